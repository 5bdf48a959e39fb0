"""The one builder of memory nodes: every event, chat and thought row is made here.

Why one builder: a node's columns carry rules that must not drift between writers: the triple is truncated
to its column widths, keywords are the triple's terms as retrieval's BM25 sees them, a thought sits one level
above the deepest node it cites, and text the manipulation rules fire on is held out of prompts
(``ella.memory.quarantine``). Perceive, reflection and the close of a conversation all build their rows through
``memory_node`` (and ``thought``), and ``models.memory`` stores them.

``expires_at`` (the seed's ``expiration``) means one thing here: the moment after which a *plan* is stale. Only
planning thoughts get one (``ella.memory.plans``): a reflection, a memo or a chapter's thought is an insight and
stays recallable for the life of the relationship (recency lowers it; nothing hides it). Retrieval never
returns a node whose ``expires_at`` has passed.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, Protocol

import numpy as np

from ella.embeddings import Embedder
from ella.lexicon import tokenize
from ella.memory.quarantine import Hold, manipulation_fires
from ella.provenance import Provenance

NodeType = Literal["event", "chat", "thought"]
MAX_KEYWORDS = 20


@dataclass(frozen=True)
class Triple:
    subject: str
    predicate: str
    object: str


@dataclass(frozen=True)
class MemoryNodeDraft:
    """A memory node not yet stored: ``columns()`` is the row ``models.memory.insert_node`` takes."""

    user_id: str
    node_type: NodeType
    description: str
    created_at: datetime
    triple: Triple
    poignancy: int
    embedding: bytes
    embedding_model: str
    keywords: tuple[str, ...]
    dedupe_key: str
    depth: int = 0
    evidence: str = "[]"
    expires_at: datetime | None = None
    source_message_id: str | None = None
    conversation_id: int | None = None
    quarantine: str | None = None  # ella.memory.quarantine.Hold: why this text never enters a prompt
    provenance: Provenance | None = None  # what made the row (ella.provenance); None only in hand-built drafts

    def columns(self) -> dict[str, Any]:
        return {
            "user_id": self.user_id,
            "node_type": self.node_type,
            "created_at": self.created_at,
            "last_accessed_at": self.created_at,
            "expires_at": self.expires_at,
            "subject": self.triple.subject[:200],
            "predicate": self.triple.predicate[:120],
            "object": self.triple.object[:400],
            "description": self.description,
            "embedding": self.embedding,
            "embedding_model": self.embedding_model,
            "poignancy": self.poignancy,
            "keywords": json.dumps(list(self.keywords)),
            "depth": self.depth,
            "evidence": self.evidence,
            "source_message_id": self.source_message_id,
            "conversation_id": self.conversation_id,
            "dedupe_key": self.dedupe_key[:200],
            "quarantine": self.quarantine,
            **(self.provenance.columns() if self.provenance is not None else {}),
        }


def keywords(triple: Triple) -> tuple[str, ...]:
    """The triple's terms as retrieval's BM25 sees them (stemmed, stop words dropped)."""
    return tuple(sorted(set(tokenize(f"{triple.subject} {triple.predicate} {triple.object}")))[:MAX_KEYWORDS])


def memory_node(
    embedder: Embedder,
    *,
    user_id: str,
    node_type: NodeType,
    description: str,
    at: datetime,
    triple: Triple,
    poignancy: int,
    dedupe_key: str,
    depth: int = 0,
    evidence: Sequence[Any] = (),
    index_triple: bool = True,
    source_message_id: str | None = None,
    conversation_id: int | None = None,
    expires_at: datetime | None = None,
    quarantine: str | None = None,
    provenance: Provenance,
) -> MemoryNodeDraft:
    """A node of any type, embedded. ``index_triple=False`` leaves the keywords empty (a chat node's triple,
    "Ella chatted with …", says nothing a query should match). ``expires_at``: only a plan's (see the module's
    docstring). ``quarantine``: the turn's hold when the guard refused it; text the manipulation rules fire on is
    held whatever the caller says, so nothing that reads like an injection is ever shown to a model again."""
    if quarantine is None and manipulation_fires(description):
        quarantine = Hold.MANIPULATION.value
    vector = np.asarray(embedder.embed([description])[0], dtype=np.float32)
    return MemoryNodeDraft(
        user_id=user_id,
        node_type=node_type,
        description=description,
        created_at=at,
        triple=triple,
        poignancy=poignancy,
        embedding=vector.tobytes(),
        embedding_model=embedder.model_id,
        keywords=keywords(triple) if index_triple else (),
        dedupe_key=dedupe_key,
        depth=depth,
        evidence=json.dumps(list(evidence)),
        expires_at=expires_at,
        source_message_id=source_message_id,
        conversation_id=conversation_id,
        quarantine=quarantine,
        provenance=provenance,
    )


class Perceptible(Protocol):
    """What a node needs of the call that perceived it: poignancy and triple (``kinds.Perceived``,
    ``kinds.Perception``)."""

    @property
    def score(self) -> int: ...
    @property
    def subject(self) -> str: ...
    @property
    def predicate(self) -> str: ...
    @property
    def object(self) -> str: ...


def thought(
    embedder: Embedder,
    *,
    user_id: str,
    description: str,
    perceived: Perceptible,
    evidence: Sequence[int],
    depth: int,
    at: datetime,
    dedupe_key: str,
    conversation_id: int | None = None,
    expires_at: datetime | None = None,
    provenance: Provenance,
) -> MemoryNodeDraft:
    """A thought citing ``evidence`` (node ids), with the poignancy and triple its own call returned; only a
    planning thought passes ``expires_at``."""
    return memory_node(
        embedder,
        user_id=user_id,
        node_type="thought",
        description=description,
        at=at,
        triple=Triple(perceived.subject, perceived.predicate, perceived.object),
        poignancy=perceived.score,
        dedupe_key=dedupe_key,
        depth=depth,
        evidence=list(evidence),
        conversation_id=conversation_id,
        expires_at=expires_at,
        provenance=provenance,
    )

"""The one builder of memory nodes: every event, chat and thought row is made here.

Why one builder: a node's columns carry rules that must not drift between writers: the triple is truncated
to its column widths, keywords are the triple's terms as retrieval's BM25 sees them, a thought expires after
``THOUGHT_TTL`` and sits one level above the deepest node it cites. Perceive, reflection and the close of a
conversation all build their rows through ``memory_node`` (and ``thought``), and ``models.memory`` stores them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal, Protocol

import numpy as np

from ella.embeddings import Embedder
from ella.lexicon import tokenize

NodeType = Literal["event", "chat", "thought"]
THOUGHT_TTL = timedelta(days=30)
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
) -> MemoryNodeDraft:
    """A node of any type, embedded; a thought gets its expiry. ``index_triple=False`` leaves the keywords
    empty (a chat node's triple, "Ella chatted with …", says nothing a query should match)."""
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
        expires_at=at + THOUGHT_TTL if node_type == "thought" else None,
        source_message_id=source_message_id,
        conversation_id=conversation_id,
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
) -> MemoryNodeDraft:
    """A thought citing ``evidence`` (node ids), with the poignancy and triple its own call returned."""
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
    )

"""Perceive: an observation becomes a memory node with its triple, embedding and poignancy.

Which nodes drain the reflection trigger, and why: events (what the user says and does) and chats count, as in
Generative Agents' perceive step, because they are new information about the user. Thoughts do not: a
reflection's own thoughts counting towards the next reflection would let Ella reflect on her reflections
without hearing anything new.

Model calls, and why so few: an idle observation scores 1 without a call (the reference's rule); a user turn
arrives with the poignancy and triple the live reply's own call returned; only an observation with neither
costs one perception call. A fail-safe perception is never stored.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ella.embeddings import Embedder
from ella.llm.kinds import Perception
from ella.llm.port import ModelPort
from ella.memory.nodes import MemoryNodeDraft, NodeType, Perceptible, Triple, memory_node

log = logging.getLogger(__name__)

DRAINS_TRIGGER: dict[str, bool] = {"event": True, "chat": True, "thought": False}
REPEAT_WINDOW = 5  # a repeat of one of the last few observations is not stored again
IDLE = re.compile(r"\bis idle\b|^\s*(idle|\.\.\.|…)?\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Scored:
    """Poignancy and triple decided without a model call."""

    score: int
    subject: str
    predicate: str
    object: str


def node_type_of(value: str) -> NodeType:
    """The node type named by a task argument; anything else is refused before any work."""
    known: dict[str, NodeType] = {"event": "event", "chat": "chat", "thought": "thought"}
    if value not in known:
        raise ValueError(f"unknown node type {value!r}")
    return known[value]


def given_perception(perception: dict[str, Any] | None) -> Perception | None:
    """A perception that came with the task, if it validates (a payload is never trusted blindly)."""
    if not perception:
        return None
    try:
        return Perception.model_validate(perception)
    except ValueError:
        log.warning("a perception that came with the task did not validate: a model call makes it")
        return None


def is_repeat(description: str, recent: Sequence[str]) -> bool:
    """A repeat of one of the last ``REPEAT_WINDOW`` observations of its type adds nothing."""
    return description in recent[:REPEAT_WINDOW]


def perceived(port: ModelPort, user_id: str, description: str, given: Perceptible | None) -> Perceptible | None:
    """Poignancy and triple of an observation: idle without a call, ``given`` when it came with the turn,
    else one perception call; None on a fail-safe (a failure is never a memory)."""
    if IDLE.search(description):
        return Scored(score=1, subject=user_id, predicate="is", object="idle")
    if given is not None:
        return given
    result = port.call(Perception, {"name": user_id, "event": description}, user_id=user_id)
    if result.failsafe:
        log.warning("perception failed (%s): the observation is not stored", result.error[:200])
        return None
    return result.value


def perceive(
    port: ModelPort,
    embedder: Embedder,
    *,
    user_id: str,
    description: str,
    node_type: NodeType,
    at: datetime,
    dedupe_key: str,
    given: Perceptible | None = None,
    source_message_id: str | None = None,
    conversation_id: int | None = None,
) -> MemoryNodeDraft | None:
    """The node for one observation, or None when the model failed (then nothing is stored)."""
    found = perceived(port, user_id, description, given)
    if found is None:
        return None
    return memory_node(
        embedder,
        user_id=user_id,
        node_type=node_type,
        description=description,
        at=at,
        triple=Triple(found.subject, found.predicate, found.object),
        poignancy=found.score,
        dedupe_key=dedupe_key,
        source_message_id=source_message_id,
        conversation_id=conversation_id,
    )

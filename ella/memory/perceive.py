"""Perceive: an observation becomes a memory node with its triple, embedding and poignancy.

Which nodes drain the reflection trigger, and why: events (what the user says and does) and chats count, as in
Generative Agents' perceive step, because they are new information about the user. Thoughts do not: a
reflection's own thoughts counting towards the next reflection would let Ella reflect on her reflections
without hearing anything new.

Model calls, and why so few: an idle observation scores 1 without a call (the reference's rule); a user turn
arrives with the poignancy and triple the live reply's own call returned; only an observation with neither
costs one perception call. A fail-safe perception is never stored. A turn the guard held
(``ella.memory.quarantine``) costs no call either: its words must not reach a model, so a rule scores it.
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
from ella.memory.quarantine import HELD_POIGNANCY, Hold, stand_in
from ella.provenance import Provenance, by_rule, unrecorded

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


def perceived(
    port: ModelPort,
    user_id: str,
    description: str,
    given: Perceptible | None,
    given_by: Provenance | None = None,
) -> tuple[Perceptible, Provenance] | None:
    """Poignancy and triple of an observation and what made them: idle without a call (the idle rule),
    ``given`` when it came with the turn (``given_by``: the live reply's call), else one perception call; None
    on a fail-safe (a failure is never a memory)."""
    if IDLE.search(description):
        return Scored(score=1, subject=user_id, predicate="is", object="idle"), by_rule("idle_observation")
    if given is not None:
        return given, given_by or unrecorded("reply")
    result = port.call(Perception, {"name": user_id, "event": description}, user_id=user_id)
    if result.failsafe:
        log.warning("perception failed (%s): the observation is not stored", result.error[:200])
        return None
    return result.value, result.provenance


def held_description(hold: str | None, user_id: str, text: str) -> str:
    """What a held turn's memory says: a manipulation turn verbatim (it is kept for the record and shown to no
    model), a boundary turn by Ella's stand-in line (it may be shown; the user's words may not)."""
    if hold is None or Hold(hold) is Hold.MANIPULATION:
        return text
    return stand_in(hold, user_id)


def held_perception(hold: str, user_id: str) -> tuple[Perceptible, Provenance]:
    """The poignancy and triple of a held turn, by rule: no model sees its text, not even to score it."""
    what = "a message Ella declined" if Hold(hold) is Hold.MANIPULATION else "something Ella kept a boundary on"
    scored = Scored(score=HELD_POIGNANCY[Hold(hold)], subject=user_id, predicate="said", object=what)
    return scored, by_rule("held_turn")


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
    given_by: Provenance | None = None,
    source_message_id: str | None = None,
    conversation_id: int | None = None,
    quarantine: str | None = None,
) -> MemoryNodeDraft | None:
    """The node for one observation, or None when the model failed (then nothing is stored). The node's
    provenance is the call that scored it: ``given_by`` for a ``given`` perception. A held turn
    (``quarantine``) is scored by rule, with no call."""
    scored = (
        held_perception(quarantine, user_id) if quarantine else perceived(port, user_id, description, given, given_by)
    )
    if scored is None:
        return None
    found, made_by = scored
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
        provenance=made_by,
        quarantine=quarantine,
    )

"""Perceive: an observation becomes a memory node with its triple, embedding and poignancy.

Which nodes drain the reflection trigger, and why: events (what the user says and does) and chats count, as in
Generative Agents' perceive step, because they are new information about the user. Thoughts do not: a
reflection's own thoughts counting towards the next reflection would let Ella reflect on her reflections
without hearing anything new.

Model calls, and why so few: an idle observation scores 1 without a call (the reference's rule); a user turn
arrives with the poignancy and triple the live reply's own call returned; only an observation with neither
costs one perception call. A fail-safe perception is never stored. A turn the guard held
(``ella.memory.quarantine``) costs no call either: its words must not reach a model, so a rule scores it.

An event whose perception call failed is still stored, unrated, and why: at 80% model faults one turn (a
fallback reply whose perception call failed too) was answered but never remembered (issue 36). The rule "the
model's failures are never memories" is about what the model said: a fail-safe's score and triple ("said
something", poignancy 1) are never stored as if Ella had perceived them. The user's message is still a real
event, so it becomes a node with ``UNRATED_POIGNANCY`` and a neutral triple, made by the rule ``UNRATED``
(its provenance's ``prompt_kind``), which marks it for a later re-rating. A thought or a chat is Ella's own
or a transcript, not the user's new event: its failed perception still stores nothing.
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
# An event stored although its perception call failed: the rule that made it (``Provenance.prompt_kind``, so a
# re-rating finds it) and its poignancy until then (an ordinary turn, as a notification Ella sent or a boundary).
UNRATED = "unrated_event"
UNRATED_POIGNANCY = 3


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
        log.warning("perception failed (%s): its score and triple are not stored", result.error[:200])
        return None
    return result.value, result.provenance


def unrated(user_id: str) -> tuple[Perceptible, Provenance]:
    """The poignancy and triple of an event whose perception call failed: a default, by the rule ``UNRATED``,
    never the fail-safe's (which would pass a model's failure off as Ella's perception)."""
    return Scored(UNRATED_POIGNANCY, subject=user_id, predicate="said", object="a message not yet rated"), by_rule(
        UNRATED
    )


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
    """The node for one observation, or None when the model failed on a thought or a chat (then nothing is
    stored; an event is stored unrated: ``unrated``). The node's provenance is the call that scored it:
    ``given_by`` for a ``given`` perception. A held turn (``quarantine``) is scored by rule, with no call."""
    scored = (
        held_perception(quarantine, user_id) if quarantine else perceived(port, user_id, description, given, given_by)
    )
    if scored is None and node_type == "event":
        scored = unrated(user_id)
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

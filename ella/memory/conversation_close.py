"""Closing a conversation: the chat node, and Ella's memo and planning thought about it.

Why a conversation leaves three nodes: the chat node is the conversation itself (its transcript as evidence,
as poignant as its most poignant turn), the memo is what Ella takes from it ("Ella …"), and the planning
thought is what she means to do next ("For Ella's planning: …"), the input of the daily digest. Both thoughts
cite the chat node. The turns were already perceived and drained the reflection trigger, so the chat node
drains nothing. Both notes come from one call (``ConversationNote``); a fail-safe is never stored.

A plan that looks forward to an event the user said is over is not stored either (``stale_plan``): the close runs
after the conversation, so the outcome may already be in the ledger, or only in the transcript it reads
(``ella.event_over``). The prompt asks for the same, but a model may still write "ask how the interview went".
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime

from ella.embeddings import Embedder
from ella.event_over import HOLD, KnownEvents, looks_forward, plan_told_over, reason
from ella.llm.kinds import ConversationNote, Memo, PlanningThought
from ella.llm.port import ModelPort
from ella.memory.nodes import MemoryNodeDraft, Perceptible, Triple, memory_node, thought
from ella.memory.plans import dated_expiry
from ella.provenance import Provenance, by_rule, unrecorded

log = logging.getLogger(__name__)

SUMMARY_CHARS = 600


@dataclass(frozen=True)
class ClosingNotes:
    """What the model made of a conversation; None where it failed (a fail-safe is never a memory)."""

    memo: Memo | None
    plan: PlanningThought | None
    made_by: Provenance | None = None  # the one call that made both (ella.provenance)


def chat_node(
    embedder: Embedder,
    *,
    user_id: str,
    conversation_id: int,
    closed_at: datetime,
    transcript: Sequence[str],
    turn_poignancy: Sequence[int],
) -> MemoryNodeDraft:
    summary = f"Ella and {user_id} talked: " + " / ".join(transcript)[:SUMMARY_CHARS]
    return memory_node(
        embedder,
        user_id=user_id,
        node_type="chat",
        description=summary,
        at=closed_at,
        triple=Triple("Ella", "chatted with", user_id),
        poignancy=max(turn_poignancy, default=1),
        dedupe_key=f"chat:{conversation_id}",
        evidence=list(transcript),
        index_triple=False,
        conversation_id=conversation_id,
        provenance=by_rule("chat_node"),  # the transcript itself, joined by this function: no prompt made it
    )


def closing_notes(port: ModelPort, user_id: str, transcript: Sequence[str], today: date | None = None) -> ClosingNotes:
    """The memo and the planning thought, in one call (``ConversationNote``: both read the same transcript, and
    two calls sent it twice). ``today`` (the close's date) dates the plan. A fail-safe gives neither."""
    day = (today or datetime.now(UTC).date()).isoformat()
    variables = {"name": user_id, "transcript": list(transcript), "today": day}
    result = port.call(ConversationNote, variables, user_id=user_id)
    if result.failsafe:
        log.warning("%s failed (%s): neither note stored", result.kind, result.error[:200])
        return ClosingNotes(memo=None, plan=None)
    memo, plan = result.value.parts()
    return ClosingNotes(memo=memo, plan=plan, made_by=result.provenance)


def stale_plan(notes: ClosingNotes, transcript: Sequence[str], name: str, known: KnownEvents) -> str | None:
    """Why the closing plan must not be stored (it looks forward to an event that is over: retired in the ledger,
    ``known``, or told over later in the transcript), or None when it may be."""
    if notes.plan is None:
        return None
    over = looks_forward(notes.plan.plan, known)
    if over is not None:
        return reason(over)
    head = plan_told_over(notes.plan.plan, transcript, name)
    return None if head is None else f"{HOLD}: told over in this conversation"  # not the event: the user's words


def without_stale_plan(
    notes: ClosingNotes, transcript: Sequence[str], name: str, known: KnownEvents
) -> tuple[ClosingNotes, str | None]:
    """The notes to store: the memo always, the plan unless it is stale (``stale_plan``), and why it went."""
    why = stale_plan(notes, transcript, name, known)
    if why is None:
        return notes, None
    return ClosingNotes(memo=notes.memo, plan=None, made_by=notes.made_by), why


def closing_thoughts(
    embedder: Embedder,
    notes: ClosingNotes,
    *,
    user_id: str,
    conversation_id: int,
    chat_id: int,
    closed_at: datetime,
) -> list[MemoryNodeDraft]:
    """The memo and planning thoughts that were not fail-safes, each citing the chat node."""
    found: list[tuple[str, Perceptible, str, datetime | None, Provenance]] = []
    if notes.memo is not None:
        made_by = notes.made_by or unrecorded("memo")
        found.append((f"Ella {notes.memo.memo}", notes.memo.perception, "memo", None, made_by))  # no expiry
    if notes.plan is not None:
        expires = dated_expiry(notes.plan.until)  # None: it waits for the next conversation's close
        made_by = notes.made_by or unrecorded("planning_thought")
        found.append((f"For Ella's planning: {notes.plan.plan}", notes.plan.perception, "plan", expires, made_by))
    return [
        thought(
            embedder,
            user_id=user_id,
            description=description,
            perceived=perceived,  # asked for with it: no extra call
            evidence=[chat_id],
            depth=1,
            at=closed_at,
            dedupe_key=f"{key}:{conversation_id}",
            conversation_id=conversation_id,
            expires_at=expires,
            provenance=made_by,
        )
        for description, perceived, key, expires, made_by in found
    ]

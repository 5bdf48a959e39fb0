"""Closing a conversation: the chat node, and Ella's memo and planning thought about it.

Why a conversation leaves three nodes: the chat node is the conversation itself (its transcript as evidence,
as poignant as its most poignant turn), the memo is what Ella takes from it ("Ella …"), and the planning
thought is what she means to do next ("For Ella's planning: …"), the input of the daily digest. Both thoughts
cite the chat node. The turns were already perceived and drained the reflection trigger, so the chat node
drains nothing. A fail-safe memo or plan is never stored.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from ella.embeddings import Embedder
from ella.llm.kinds import Memo, PlanningThought
from ella.llm.port import ModelPort
from ella.memory.nodes import MemoryNodeDraft, Perceptible, Triple, memory_node, thought

log = logging.getLogger(__name__)

SUMMARY_CHARS = 600


@dataclass(frozen=True)
class ClosingNotes:
    """What the model made of a conversation; None where it failed (a fail-safe is never a memory)."""

    memo: Memo | None
    plan: PlanningThought | None


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
    )


def closing_notes(port: ModelPort, user_id: str, transcript: Sequence[str]) -> ClosingNotes:
    """The memo and the planning thought, one call each."""
    variables = {"name": user_id, "transcript": list(transcript)}
    memo = port.call(Memo, variables, user_id=user_id)
    plan = port.call(PlanningThought, variables, user_id=user_id)
    for result in (memo, plan):
        if result.failsafe:
            log.warning("%s failed (%s): not stored", result.kind, result.error[:200])
    return ClosingNotes(
        memo=None if memo.failsafe else memo.value,
        plan=None if plan.failsafe else plan.value,
    )


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
    found: list[tuple[str, Perceptible, str]] = []
    if notes.memo is not None:
        found.append((f"Ella {notes.memo.memo}", notes.memo.perception, "memo"))
    if notes.plan is not None:
        found.append((f"For Ella's planning: {notes.plan.plan}", notes.plan.perception, "plan"))
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
        )
        for description, perceived, key in found
    ]

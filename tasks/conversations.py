"""``ella.close_due_conversations`` (the minute sweep) and ``ella.close_conversation`` (its memo and plan).

A due time in the database plus a sweep every minute replaces a 30-minute countdown, which Redis would
redeliver once the visibility timeout passed and which a worker restart would lose. What a closed
conversation leaves in memory is decided in ``ella.memory.conversation_close``.
"""

from __future__ import annotations

import logging
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from adapters.db import autocommit_scope, session_scope
from adapters.embedding_cache import shared_embedder
from adapters.llm import get_port
from adapters.settings import get_settings
from ella.memory.conversation_close import chat_node, closing_notes, closing_thoughts, without_stale_plan
from models.base import utcnow
from models.conversation import Conversation, close_due
from models.erasure import is_forgotten, tombstone_key
from models.event_over import events_of
from models.memory import MemoryNode, expire_plans_before, insert_node
from models.turns import conversation_transcript
from workers import effects, events
from workers.app import app
from workers.logs import user_scope
from workers.reliability import ReliableTask
from workers.routing import TaskName

log = logging.getLogger(__name__)

CHUNK = 500


@app.task(name=TaskName.CLOSE_DUE_CONVERSATIONS, base=ReliableTask, bind=True)
def close_due_conversations(self: ReliableTask, max_chunks: int = 100) -> int:
    """Close in chunks of ``CHUNK`` rows, one transaction each, so a retry resumes where this one stopped."""
    total = 0
    now = utcnow()
    for _ in range(max_chunks):
        with session_scope() as session:
            closed = close_due(session, now, CHUNK)
            owed = events.owe_memos(session, closed)
        effects.send_rows(owed)  # after the commit: the memo and planning thoughts (the sweep, if not now)
        total += len(closed)
        if len(closed) < CHUNK:
            break
    if total:
        log.info("closed %d inactive conversations", total)
    return total


@app.task(name=TaskName.CLOSE_CONVERSATION, base=ReliableTask, bind=True)
def close_conversation(self: ReliableTask, conversation_id: int) -> int:
    """A closed conversation becomes a chat node plus a memo thought and a planning thought citing it; the
    number of thoughts stored (0 on a redelivery, and when its user was erased while it ran)."""
    with session_scope() as session:
        conv = session.get(Conversation, conversation_id)
        if conv is None or conv.closed_at is None:
            return 0
        user_id, closed_at, started_at = conv.user_id, conv.closed_at, conv.started_at
        done = session.scalar(select(MemoryNode.id).where(MemoryNode.dedupe_key == f"memo:{conversation_id}"))
        transcript = conversation_transcript(session, conversation_id, user_id)
        turn_poignancy = list(
            session.scalars(select(MemoryNode.poignancy).where(MemoryNode.conversation_id == conversation_id))
        )
    if done is not None or not transcript:
        return 0
    with user_scope(user_id):
        try:
            return _close(conversation_id, user_id, closed_at, started_at, transcript, turn_poignancy)
        except IntegrityError:
            if not erased_meanwhile(user_id):
                raise
            # The erasure ran during the memo's model call and took the conversation with the user: done.
            log.info("conversation %s: its user was erased meanwhile; nothing stored", conversation_id)
            return 0


def erased_meanwhile(user_id: str) -> bool:
    """Whether ``user_id`` has a tombstone (``models.erasure``): a write that failed on a missing user or
    conversation lost to the erasure, and must not be retried or dead-lettered with the ids in its error."""
    key = tombstone_key(user_id, get_settings().forget_hmac_key.get_secret_value())
    with autocommit_scope() as session:
        return is_forgotten(session, key)


def _close(
    conversation_id: int,
    user_id: str,
    closed_at: datetime,
    started_at: datetime,
    transcript: list[str],
    turn_poignancy: list[int],
) -> int:
    notes = closing_notes(get_port(), user_id, transcript, closed_at.date())
    chat = chat_node(
        shared_embedder(),
        user_id=user_id,
        conversation_id=conversation_id,
        closed_at=closed_at,
        transcript=transcript,
        turn_poignancy=turn_poignancy,
    )
    with session_scope() as session:
        chat_id = (
            insert_node(session, chat.columns())
            or session.scalars(select(MemoryNode.id).where(MemoryNode.dedupe_key == chat.dedupe_key)).one()
        )  # stored by an earlier delivery
        expire_plans_before(session, user_id, started_at, closed_at)  # "next time" was this conversation
        known = events_of(session, user_id, closed_at)  # read now: an outcome told during the model call counts
    notes, stale = without_stale_plan(notes, transcript, user_id, known)
    if stale is not None:
        log.info("conversation %s: its plan looks forward to an event that is over, not stored (%s)",
                 conversation_id, stale)  # fmt: skip
    drafts = closing_thoughts(
        shared_embedder(),
        notes,
        user_id=user_id,
        conversation_id=conversation_id,
        chat_id=chat_id,
        closed_at=closed_at,
    )
    with session_scope() as session:
        stored = [node_id for d in drafts if (node_id := insert_node(session, d.columns())) is not None]
    return len(stored)

"""``ella.ingest_message``: one user message in, one reply out, exactly once per ``message_id``.

Order of work, and why:
1. validate (a malformed payload is dead-lettered, never retried);
2. if the message is already stored, only make sure its reply is published (a repeat delivery changes
   nothing);
3. produce the reply through the model port, outside any transaction (a model call may take seconds);
4. store turn + reply in one transaction under the user's lock (a concurrent duplicate loses on the
   unique ``message_id`` and falls back to step 2);
5. publish the recorded reply to the outbox stream once, then mark the row published;
6. emit the turn to ``ella.perceive`` (memory) and ``ella.extract_facts`` (the ledger), after the commit.

The reply itself is composed in ``tasks.compose``. The statements it makes about Ella herself go to the
self-log in the turn's transaction; they never reach the ledger.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError

from ella.contract import IngestPayload, MalformedPayload, OutboxEntry, parse_ingest
from ella.guard import DETECTOR_VERSION, Verdict
from ella.guard.disclosure import DisclosurePolicy, ai_notice_due, break_due, with_notices
from models.base import utcnow
from models.boundary import log_fire
from models.conversation import Conversation
from models.memory import mark_accessed
from models.message import InboundMessage
from models.outbox import OutboxRecord
from models.selflog import add_entries
from models.turns import find_message, reply_to, store_exchange
from models.user import User
from tasks.compose import compose_reply, user_defaults
from workers import inbox
from workers.app import app
from workers.db import autocommit_scope, session_scope
from workers.llm import held_ledger_rows, write_ledger
from workers.logs import user_scope
from workers.outbox_stream import publish_once
from workers.redis_conn import get_redis
from workers.reliability import ReliableTask
from workers.settings import Settings, get_settings

log = logging.getLogger(__name__)


def outbox_entry(record: OutboxRecord) -> OutboxEntry:
    return OutboxEntry(
        kind=record.kind,
        user_id=record.user_id,
        text=record.text,
        route=record.route,
        category=record.category,
        outbox_id=record.uid,
        in_reply_to=record.in_reply_to or "",
        conversation_id=str(record.conversation_id or ""),
        created_at=record.created_at.isoformat(),
    )


def publish(record: OutboxRecord) -> str:
    """Publish a committed outbox record once (see workers.outbox_stream) and note it on the row."""
    stream_id = publish_once(get_redis(), outbox_entry(record))
    with autocommit_scope() as session:
        session.execute(
            update(OutboxRecord)
            .where(OutboxRecord.id == record.id, OutboxRecord.published_at.is_(None))
            .values(published_at=utcnow(), stream_id=stream_id)
        )
    return stream_id


def publish_stored_reply(message_id: str) -> str | None:
    """The repeat-delivery path: publish the reply recorded for ``message_id`` unless that was done."""
    with autocommit_scope() as session:
        record = reply_to(session, message_id)
    if record is None:
        return None
    return record.stream_id if record.published_at is not None else publish(record)


def log_fires(session: Any, payload: IngestPayload, fires: list[tuple[str, Verdict]], keep_text: bool) -> None:
    for direction, verdict in fires:
        log.info("boundary %s: %s/%s by %s", direction, verdict.category, verdict.route, verdict.matched)
        log_fire(
            session,
            user_id=payload.user_id,
            direction=direction,
            category=str(verdict.category),
            severity=verdict.severity.label,
            route=str(verdict.route),
            detector_version=DETECTOR_VERSION,
            rule=verdict.matched,
            message_id=payload.message_id,
            text=payload.text if keep_text else None,
        )


def disclosure_policy(settings: Settings) -> DisclosurePolicy:
    interval = timedelta(hours=settings.ai_disclosure_interval_h)
    return DisclosurePolicy(settings.ai_disclosure, continuing_interval=interval, minor_break_interval=interval)


def disclose(session: Any, record: OutboxRecord, now: datetime, policy: DisclosurePolicy) -> None:
    """Prefix the AI notice (and append a minor's break reminder) when due, and note when they were given."""
    user = session.get(User, record.user_id)
    conversation = session.get(Conversation, record.conversation_id)
    notice = ai_notice_due(policy, now, conversation.turn_count == 1, user.ai_disclosed_at)
    pause = break_due(policy, now, user.is_minor, conversation.started_at, user.break_reminded_at)
    if notice or pause:
        record.text = with_notices(record.text, notice, pause)
        user.ai_disclosed_at = now if notice else user.ai_disclosed_at
        user.break_reminded_at = now if pause else user.break_reminded_at


def stored_message(payload: IngestPayload) -> InboundMessage | None:
    """The stored message with this payload's ``message_id``; refuses one that another user sent."""
    with autocommit_scope() as session:
        found = find_message(session, payload.message_id)
    if found is not None and found.user_id != payload.user_id:
        raise MalformedPayload(f"message_id {payload.message_id!r} was already used by another user")
    return found


def ingest(
    payload: IngestPayload, task_id: str | None, final_attempt: bool = True
) -> tuple[str | None, dict[str, Any] | None]:
    """(the reply's stream id, the turn's perception if this delivery produced one)."""
    settings = get_settings()
    if stored_message(payload) is not None:
        log.info("repeat delivery of message %s: publishing only", payload.message_id)
        return publish_stored_reply(payload.message_id), None
    composed = compose_reply(payload, task_id, final_attempt)
    ledger = held_ledger_rows()
    try:
        with session_scope() as session:
            record = store_exchange(
                session,
                message_id=payload.message_id,
                user_id=payload.user_id,
                text=payload.text,
                sent_at=payload.sent_at,
                external_conversation_id=payload.conversation_id,
                reply=composed.reply,
                timeout=timedelta(seconds=settings.conversation_inactivity_timeout_s),
                user_defaults=user_defaults(settings),
                task_id=task_id,
            )
            write_ledger(list(ledger), session)  # the reply's model calls, in the same commit
            log_fires(session, payload, composed.fires, settings.boundary_log_text)
            disclose(session, record, payload.sent_at, disclosure_policy(settings))
            if composed.self_statements:
                add_entries(session, payload.user_id, utcnow(), composed.self_statements, payload.message_id)
            mark_accessed(session, composed.memory_ids, datetime.now(UTC))
            closed = list(session.info.get("closed_conversations", []))
    except IntegrityError:
        if stored_message(payload) is None:
            raise  # not a duplicate: a real integrity problem, let it fail loudly
        log.info("message %s was stored by a concurrent delivery", payload.message_id)
        return publish_stored_reply(payload.message_id), None  # held ledger rows are written when the task ends
    ledger.clear()  # committed with the turn
    for conversation_id in closed:
        app.send_task(
            "ella.close_conversation", kwargs={"conversation_id": conversation_id}, queue=get_settings().queue_cognition
        )
    return publish(record), composed.perception


class IngestTask(ReliableTask):
    def model_retries(self) -> int:
        """A user is waiting: fewer retries than background work before the fallback reply."""
        return get_settings().llm_live_max_retries


@app.task(name="ella.ingest_message", base=IngestTask, bind=True)
def ingest_message(self: IngestTask, *args: Any, **kwargs: Any) -> str | None:
    """Gateway contract: kwargs ``{message_id, user_id, text, sent_at, conversation_id?}``."""
    try:
        payload = parse_ingest(args, kwargs, get_settings().max_message_chars)
        with user_scope(payload.user_id):
            final = (self.request.retries or 0) >= self.model_retries()
            stream_id, perception = ingest(payload, self.request.id, final)
    except MalformedPayload:
        inbox.forget(get_redis(), kwargs.get("message_id"))  # dead-lettered: nothing to re-send
        raise
    inbox.forget(get_redis(), payload.message_id)
    perceive_turn(payload, perception)
    extract_turn_facts(payload)
    return stream_id


def extract_turn_facts(payload: IngestPayload) -> None:
    """Emit the user's turn (only theirs: Ella's replies never become facts) to the ledger's extraction."""
    app.send_task(
        "ella.extract_facts",
        kwargs={
            "user_id": payload.user_id,
            "message_id": payload.message_id,
            "text": payload.text,
            "sent_at": payload.sent_at.isoformat(),
        },
        queue=get_settings().queue_cognition,
        kwargsrepr=repr({"user_id": payload.user_id, "message_id": payload.message_id}),
    )


def perceive_turn(payload: IngestPayload, perception: dict[str, Any] | None) -> None:
    """Emit the turn to memory after its commit (also on a repeat delivery: perceive is idempotent per message)."""
    app.send_task(
        "ella.perceive",
        kwargs={
            "user_id": payload.user_id,
            "description": payload.text,
            "node_type": "event",
            "created_at": payload.sent_at.isoformat(),
            "source_message_id": payload.message_id,
            "perception": perception,
        },
        queue=get_settings().queue_cognition,
        kwargsrepr=repr({"user_id": payload.user_id, "source_message_id": payload.message_id}),
    )

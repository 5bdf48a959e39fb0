"""``ella.ingest_message``: one user message in, one reply out, exactly once per ``message_id``.

Order of work, and why:
1. validate (a malformed payload is dead-lettered, never retried);
2. if the message is already stored, only make sure its reply is published (a repeat delivery changes
   nothing);
3. produce the reply outside any transaction (later: a model call that may take seconds);
4. store turn + reply in one transaction under the user's lock (a concurrent duplicate loses on the
   unique ``message_id`` and falls back to step 2);
5. publish the recorded reply to the outbox stream once, then mark the row published.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError

from ella.contract import IngestPayload, MalformedPayload, OutboxEntry, parse_ingest
from ella.offline_reply import plain_reply
from models.base import utcnow
from models.message import InboundMessage
from models.outbox import OutboxRecord
from models.turns import Reply, find_message, reply_to, store_exchange
from workers import inbox
from workers.app import app
from workers.db import autocommit_scope, session_scope
from workers.logs import user_scope
from workers.outbox_stream import publish_once
from workers.redis_conn import get_redis
from workers.reliability import ReliableTask
from workers.settings import Settings, get_settings

log = logging.getLogger(__name__)


def user_defaults(settings: Settings) -> dict[str, Any]:
    dnd = settings.window_minutes(settings.default_do_not_disturb)
    active = settings.window_minutes(settings.default_active_hours)
    return {
        "timezone": settings.default_timezone,
        "dnd_start_minute": dnd[0],
        "dnd_end_minute": dnd[1],
        "active_start_minute": active[0],
        "active_end_minute": active[1],
        "is_minor": False,
        "importance_trigger_curr": settings.importance_trigger_max,
        "importance_trigger_max": settings.importance_trigger_max,
    }


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


def compose_reply(payload: IngestPayload) -> Reply:
    """For now the offline engine's plain reply; the model port and guardrail go here in later issues."""
    return Reply(text=plain_reply(payload.text), route="generated", category="chat")


def stored_message(payload: IngestPayload) -> InboundMessage | None:
    """The stored message with this payload's ``message_id``; refuses one that another user sent."""
    with autocommit_scope() as session:
        found = find_message(session, payload.message_id)
    if found is not None and found.user_id != payload.user_id:
        raise MalformedPayload(f"message_id {payload.message_id!r} was already used by another user")
    return found


def ingest(payload: IngestPayload, task_id: str | None) -> str | None:
    settings = get_settings()
    if stored_message(payload) is not None:
        log.info("repeat delivery of message %s: publishing only", payload.message_id)
        return publish_stored_reply(payload.message_id)
    reply = compose_reply(payload)
    try:
        with session_scope() as session:
            record = store_exchange(
                session,
                message_id=payload.message_id,
                user_id=payload.user_id,
                text=payload.text,
                sent_at=payload.sent_at,
                external_conversation_id=payload.conversation_id,
                reply=reply,
                timeout=timedelta(seconds=settings.conversation_inactivity_timeout_s),
                user_defaults=user_defaults(settings),
                task_id=task_id,
            )
    except IntegrityError:
        if stored_message(payload) is None:
            raise  # not a duplicate: a real integrity problem, let it fail loudly
        log.info("message %s was stored by a concurrent delivery", payload.message_id)
        return publish_stored_reply(payload.message_id)
    return publish(record)


@app.task(name="ella.ingest_message", base=ReliableTask, bind=True)
def ingest_message(self: ReliableTask, *args: Any, **kwargs: Any) -> str | None:
    """Gateway contract: kwargs ``{message_id, user_id, text, sent_at, conversation_id?}``."""
    try:
        payload = parse_ingest(args, kwargs, get_settings().max_message_chars)
        with user_scope(payload.user_id):
            stream_id = ingest(payload, self.request.id)
    except MalformedPayload:
        inbox.forget(get_redis(), kwargs.get("message_id"))  # dead-lettered: nothing to re-send
        raise
    inbox.forget(get_redis(), payload.message_id)
    return stream_id

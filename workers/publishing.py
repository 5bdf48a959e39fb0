"""Committed outbox records onto the outbox stream, once each, and the row marked published.

Why apart from the tasks: every kind of outgoing text (a reply now, a notification later) is first committed
as an ``outbox_records`` row and only then published; a redelivered task re-publishes the same row, and the
stream's Lua script (``workers.outbox_stream``) makes that a no-op.
"""

from __future__ import annotations

from sqlalchemy import update

from ella.contract import OutboxEntry
from models.base import utcnow
from models.outbox import OutboxRecord
from models.turns import reply_to
from workers.db import autocommit_scope
from workers.outbox_stream import publish_once
from workers.redis_conn import get_redis


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
    """Publish a committed outbox record once and note it on the row; the stream id."""
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

"""What Ella sends, recorded before it is published to the outbox stream (a transactional outbox).

The row is written in the same transaction as the turn it answers; publishing to Redis happens after commit
and is made idempotent by the row's id, so a redelivered task re-publishes nothing.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from ella.contract import OutboxEntry
from models.base import Base, BigId, UTCDateTime, utcnow


class OutboxRecord(Base):
    __tablename__ = "outbox_records"
    # No index may name ``published_at``: every reply's publish sets it, and an index on it (even a partial one)
    # would turn that UPDATE from a heap-only (HOT) update into one that rewrites every index of the row: about 7%
    # of ingest throughput, measured. Unpublished notifications are found through their candidates instead.
    __table_args__ = (
        Index("ix_outbox_records_user_id_created_at", "user_id", "created_at"),
        Index("ix_outbox_records_created_at", "created_at"),  # the retention job's scan (models.retention)
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    # The public id (outbox entry ``outbox_id``, publish marker): unlike ``id`` it never repeats across
    # databases, so a restored or recreated database cannot collide with markers already in Redis.
    uid: Mapped[str] = mapped_column(String(36), unique=True, default=lambda: str(uuid.uuid4()))
    kind: Mapped[str] = mapped_column(String(16), comment="reply | notification")
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    conversation_id: Mapped[int | None] = mapped_column(ForeignKey("conversations.id", ondelete="SET NULL"))
    in_reply_to: Mapped[str | None] = mapped_column(
        String(200), unique=True, comment="message_id answered; one reply per inbound message"
    )
    route: Mapped[str] = mapped_column(String(16), comment="generated | canned | fallback")
    category: Mapped[str] = mapped_column(String(32), default="chat")
    text: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    published_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    stream_id: Mapped[str | None] = mapped_column(String(32))
    images: Mapped[str | None] = mapped_column(Text, comment="JSON: the image references the entry carries")
    seen: Mapped[str | None] = mapped_column(
        Text, comment="JSON: section -> ids of what the reply's prompt carried (ella.seen)"
    )


def stream_entry(record: OutboxRecord, conversation_id: str = "") -> OutboxEntry:
    """The record as the outbox stream carries it; ``conversation_id`` is the gateway's own id of its conversation
    ("" for none: a memory notice names no conversation). One mapping for every publisher
    (``adapters.publishing``, ``adapters.memory_changes``)."""
    return OutboxEntry(
        kind=record.kind,
        user_id=record.user_id,
        text=record.text,
        route=record.route,
        category=record.category,
        outbox_id=record.uid,
        in_reply_to=record.in_reply_to or "",
        conversation_id=conversation_id,
        ella_conversation_id=str(record.conversation_id or ""),
        images=record.images or "",
        created_at=record.created_at.isoformat(),
    )

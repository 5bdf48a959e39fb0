"""Message Batches bookkeeping: a batch per submission, an item per ``custom_id``, applied at most once.

The item row is the idempotency key: it is created before submission (insert-or-nothing on ``custom_id``),
and ``applied_at`` is set in the same transaction as whatever applying the result writes, so a poll that
runs twice, or a worker killed mid-poll, applies each result once.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from models.base import Base, BigId, UTCDateTime, utcnow


class ModelBatch(Base):
    __tablename__ = "model_batches"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    provider: Mapped[str] = mapped_column(String(16))
    provider_batch_id: Mapped[str | None] = mapped_column(String(128), unique=True)
    status: Mapped[str] = mapped_column(String(16), default="in_progress", index=True)  # in_progress | ended
    submitted_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    ended_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    item_count: Mapped[int] = mapped_column(Integer, default=0)


class ModelBatchItem(Base):
    __tablename__ = "model_batch_items"
    __table_args__ = (Index("ix_model_batch_items_status_purpose", "status", "purpose"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    custom_id: Mapped[str] = mapped_column(String(64), unique=True)
    batch_id: Mapped[int | None] = mapped_column(ForeignKey("model_batches.id", ondelete="SET NULL"), index=True)
    purpose: Mapped[str] = mapped_column(String(64), comment="which handler applies the result")
    kind: Mapped[str] = mapped_column(String(32))
    user_id: Mapped[str | None] = mapped_column(String(128))
    variables: Mapped[str] = mapped_column(Text, comment="JSON")
    context: Mapped[str] = mapped_column(Text, default="{}", comment="JSON")
    # pending -> submitted -> applied | failsafe | gave_up (errored/canceled/expired go back to pending)
    status: Mapped[str] = mapped_column(String(16), default="pending")
    submissions: Mapped[int] = mapped_column(Integer, default=0)
    result: Mapped[str | None] = mapped_column(Text, comment="JSON of the validated output")
    error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    applied_at: Mapped[datetime | None] = mapped_column(UTCDateTime())

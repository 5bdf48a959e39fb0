"""A user's inbound message, stored once: the unique ``message_id`` is the ingest idempotency key."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String, Text
from sqlalchemy import text as sql  # the class has a column named text
from sqlalchemy.orm import Mapped, mapped_column

from models.base import Base, BigId, UTCDateTime, utcnow


class InboundMessage(Base):
    __tablename__ = "inbound_messages"
    __table_args__ = (
        Index("ix_inbound_messages_user_id_sent_at", "user_id", "sent_at"),
        # The retention job's scan (models.retention): the messages whose words it has not cleared yet, oldest
        # first. Partial, so the rows it cleared (kept for exactly-once) are not walked again on every run.
        Index(
            "ix_inbound_messages_received_at_with_text",
            "received_at",
            sqlite_where=sql("text <> ''"),
            postgresql_where=sql("text <> ''"),
        ),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    message_id: Mapped[str] = mapped_column(String(200), unique=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    conversation_id: Mapped[int] = mapped_column(ForeignKey("conversations.id", ondelete="CASCADE"), index=True)
    text: Mapped[str] = mapped_column(Text)
    sent_at: Mapped[datetime] = mapped_column(UTCDateTime())
    received_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    task_id: Mapped[str | None] = mapped_column(String(64))
    quarantine: Mapped[str | None] = mapped_column(
        String(16), comment="why its words never enter a prompt: manipulation | boundary (ella.memory.quarantine)"
    )

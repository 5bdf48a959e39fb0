"""The audit trail of the user's say over their memory: who asked to forget, correct or export what, when, why.

Why a table of its own: a forget must leave nothing of what was forgotten, yet an operator (and the user's own
access request) must be able to see that something was forgotten, by whom and for what reason. A row names the
item by kind and id and keeps the reason; it never keeps the forgotten words (``ella.memory.say`` decides what
a request does, ``models.forgetting`` does it and writes this row in the same transaction).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String, Text, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from models.base import Base, BigId, UTCDateTime, utcnow


class MemoryAudit(Base):
    __tablename__ = "memory_audit"
    __table_args__ = (
        Index("ix_memory_audit_user_id_at", "user_id", "at"),
        Index("ix_memory_audit_at", "at"),  # the retention job's scan (models.retention)
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    actor: Mapped[str] = mapped_column(String(120), comment="user | gateway | operator:<name>")
    action: Mapped[str] = mapped_column(String(32), comment="forget_memory | retire_fact | correct_fact | export")
    target: Mapped[str] = mapped_column(String(64), comment="memory:<id> | fact:<id> | user")
    reason: Mapped[str] = mapped_column(Text, default="")
    detail: Mapped[str] = mapped_column(Text, default="{}", comment="JSON: ids it touched, never the words")
    request_id: Mapped[str | None] = mapped_column(String(200), comment="the message or request that asked")


def audit_trail(session: Session, user_id: str, limit: int = 200) -> list[MemoryAudit]:
    """The user's audit rows, newest first."""
    return list(
        session.scalars(
            select(MemoryAudit)
            .where(MemoryAudit.user_id == user_id)
            .order_by(MemoryAudit.at.desc(), MemoryAudit.id.desc())
            .limit(limit)
        )
    )

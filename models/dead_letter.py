"""Tasks we refused or gave up on, with the reason and the payload, so nothing is lost silently."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import String, Text
from sqlalchemy.orm import Mapped, mapped_column

from models.base import Base, BigId, UTCDateTime, utcnow


class DeadLetter(Base):
    __tablename__ = "dead_letters"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, index=True)
    task_name: Mapped[str] = mapped_column(String(200))
    task_id: Mapped[str | None] = mapped_column(String(64), index=True)
    reason: Mapped[str] = mapped_column(Text)
    # JSON, ASCII-escaped so lone surrogates and NULs survive on PostgreSQL's text type.
    payload: Mapped[str] = mapped_column(Text)
    user_id: Mapped[str | None] = mapped_column(String(128), index=True)
    message_id: Mapped[str | None] = mapped_column(String(200))

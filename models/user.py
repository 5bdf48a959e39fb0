"""Ella's per-user state: the importance counter that triggers reflection and the user's clock."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Boolean, CheckConstraint, Integer, SmallInteger, String, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from models.base import Base, UTCDateTime, insert_or_nothing, utcnow


class User(Base):
    __tablename__ = "users"
    __table_args__ = (
        CheckConstraint("importance_trigger_max > 0", name="trigger_max_positive"),
        CheckConstraint(
            "dnd_start_minute BETWEEN 0 AND 1439 AND dnd_end_minute BETWEEN 0 AND 1439"
            " AND active_start_minute BETWEEN 0 AND 1439 AND active_end_minute BETWEEN 0 AND 1439",
            name="minutes_of_day",
        ),
    )

    id: Mapped[str] = mapped_column(String(128), primary_key=True, comment="the gateway's user id")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    last_seen_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    timezone: Mapped[str] = mapped_column(String(64), default="UTC")
    # Windows are minutes after local midnight; a window may wrap midnight (22:00-08:00).
    dnd_start_minute: Mapped[int] = mapped_column(SmallInteger, default=22 * 60)
    dnd_end_minute: Mapped[int] = mapped_column(SmallInteger, default=8 * 60)
    active_start_minute: Mapped[int] = mapped_column(SmallInteger, default=9 * 60)
    active_end_minute: Mapped[int] = mapped_column(SmallInteger, default=21 * 60)
    is_minor: Mapped[bool] = mapped_column(Boolean, default=False)
    # Generative Agents: each perceived event's poignancy drains curr; at <= 0 Ella reflects and curr = max.
    importance_trigger_curr: Mapped[int] = mapped_column(Integer, default=150)
    importance_trigger_max: Mapped[int] = mapped_column(Integer, default=150)


def lock_user(session: Session, user_id: str, defaults: dict[str, Any]) -> User:
    """The user's row, created with ``defaults`` on first sight, locked until the transaction ends.

    The lock (``FOR UPDATE`` on PostgreSQL; SQLite's BEGIN IMMEDIATE already serialises writers) makes one
    user's turns queue up, so two concurrent messages cannot both open a conversation.
    """
    insert_or_nothing(session, User, {"id": user_id, "created_at": utcnow(), **defaults}, ["id"])
    user = session.scalars(
        select(User).where(User.id == user_id).with_for_update().execution_options(populate_existing=True)
    ).one()
    return user

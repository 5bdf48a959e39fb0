"""Ella's per-user state: the importance counter that triggers reflection and the user's clock."""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    Index,
    Integer,
    SmallInteger,
    String,
    bindparam,
    case,
    or_,
    select,
    true,
)
from sqlalchemy.orm import Mapped, Session, mapped_column

from models.base import Base, DialectInsert, UTCDateTime, dialect_insert, table_of, utcnow


class User(Base):
    __tablename__ = "users"
    __table_args__ = (
        CheckConstraint("importance_trigger_max > 0", name="trigger_max_positive"),
        CheckConstraint(
            "dnd_start_minute BETWEEN 0 AND 1439 AND dnd_end_minute BETWEEN 0 AND 1439"
            " AND active_start_minute BETWEEN 0 AND 1439 AND active_end_minute BETWEEN 0 AND 1439",
            name="minutes_of_day",
        ),
        # The proactive jobs page users by time zone: the zones due in a slot, then ids by keyset.
        Index("ix_users_timezone", "timezone", "id"),
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
    # AI disclosure (NY GBL 1702) and a minor's break reminder (CA SB 243): when each was last given.
    ai_disclosed_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    break_reminded_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    locale: Mapped[str] = mapped_column(
        String(16), default="en_US", server_default="en_US", comment="for crisis resources"
    )
    # The profile the gateway sends (ella.update_profile): an older update never overwrites a newer one.
    notifications_enabled: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    profile_updated_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), comment="the gateway's updated_at")
    # When Ella last reached out (any kind): the spacing rule reads it without scanning notifications.
    last_notified_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    # Raised by every forget of one memory (models.forgetting): the per-process retrieval caches, which assume
    # the stream only grows, rebuild the user's index when it moves (adapters.memory_cache).
    memory_epoch: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


def touch_user(session: Session, user_id: str, seen_at: datetime, defaults: dict[str, Any]) -> User:
    """The user's row, created with ``defaults`` on first sight, ``last_seen_at`` advanced, locked.

    One statement (INSERT ... ON CONFLICT DO UPDATE ... RETURNING) on the ingest hot path. Its update takes
    the row lock until the transaction ends (SQLite's BEGIN IMMEDIATE already serialises writers), so one
    user's turns queue up and two concurrent messages cannot both open a conversation.
    """
    values = {"id": user_id, "created_at": utcnow(), "last_seen_at": seen_at, **defaults}
    stmt = _touch_statement(dialect_insert(session), tuple(sorted(values)))
    params = {f"v_{name}": value for name, value in values.items()}  # the statement's parameter names
    user: User = session.scalars(stmt, params, execution_options={"populate_existing": True}).one()
    return user


@lru_cache(maxsize=16)
def _touch_statement(insert: DialectInsert, columns: tuple[str, ...]) -> Any:
    """``touch_user``'s upsert for a dialect and a set of columns, built once with bound parameters: building it
    per message cost more CPU than PostgreSQL took to run it (issue 35). A Core upsert whose row the ORM loads
    (``from_statement``): an ORM-enabled INSERT (``insert(User)``) rebuilt its statement from the values on every
    execution, and its cache key with it: 1.1-2.0 -> 0.4-0.7 ms of CPU a call, one sample of six at 1.6 (two
    alternating pairs of loops of 500 one-call transactions on PostgreSQL, less an empty transaction's CPU)."""
    table = table_of(User)
    new = insert(table).values({name: bindparam(f"v_{name}", type_=table.c[name].type) for name in columns})
    newer = case(
        (
            or_(table.c.last_seen_at.is_(None), table.c.last_seen_at < new.excluded.last_seen_at),
            new.excluded.last_seen_at,
        ),
        else_=table.c.last_seen_at,
    )
    upsert = new.on_conflict_do_update(index_elements=["id"], set_={"last_seen_at": newer}).returning(*table.c)
    return select(User).from_statement(upsert)


def apply_profile(
    session: Session, user_id: str, profile: dict[str, Any], updated_at: datetime, defaults: dict[str, Any]
) -> bool:
    """Store the gateway's profile snapshot of ``updated_at``; False when the stored one is as new or newer.

    One statement: INSERT (a new user, ``defaults`` for the columns the profile does not set) ... ON CONFLICT
    DO UPDATE ... WHERE the stored snapshot is older ... RETURNING. So an older snapshot never overwrites a
    newer one, a redelivery changes nothing, and of two concurrent updates the newer one ends up stored
    (PostgreSQL locks the row and evaluates the WHERE on its latest version; SQLite serialises writers).
    """
    insert = dialect_insert(session)
    new = insert(User).values(
        id=user_id, created_at=utcnow(), **{**defaults, **profile, "profile_updated_at": updated_at}
    )
    stmt = new.on_conflict_do_update(
        index_elements=["id"],
        set_={name: new.excluded[name] for name in (*profile, "profile_updated_at")},
        where=or_(User.profile_updated_at.is_(None), User.profile_updated_at < new.excluded.profile_updated_at),
    ).returning(User.id)
    return session.execute(stmt).scalar_one_or_none() is not None

"""Monthly relationship arcs: one row per user and month, history kept; the current arc is the latest month's.

Why history and not one row per user: the next month's arc reads the previous one (a trajectory needs a
before), and an operator can see how a friendship moved. Why bulk loaders: the digest and the arc planner read
the arcs of a whole chunk of users in one query (``current_arcs``, ``arcs_before``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any, cast

from sqlalchemy import ForeignKey, String, Text, UniqueConstraint, select
from sqlalchemy.engine import CursorResult
from sqlalchemy.orm import Mapped, Session, mapped_column

from ella.arcs import Arc
from models.base import Base, BigId, UTCDateTime, dialect_insert, newest_per_user, utcnow
from models.provenance import Provenanced, in_prompts


class RelationshipArcRow(Provenanced, Base):
    __tablename__ = "relationship_arcs"
    __table_args__ = (UniqueConstraint("user_id", "period"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    period: Mapped[str] = mapped_column(String(16), comment="the local month, 2026-10")
    stage: Mapped[str] = mapped_column(String(16), comment="new | warming | steady | strained | drifting")
    trajectory: Mapped[str] = mapped_column(String(80))
    mindful_of: Mapped[str] = mapped_column(Text)
    chapter_ids: Mapped[str] = mapped_column(Text, default="[]", comment="JSON: the story_chapters ids it read")
    previous_period: Mapped[str | None] = mapped_column(String(16), comment="the arc it followed, if any")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)

    def as_arc(self) -> Arc:
        return Arc(self.user_id, self.period, self.stage, self.trajectory, self.mindful_of, self.created_at)


def add_arc(session: Session, values: dict[str, Any]) -> bool:
    """Store an arc unless the user has one for that month; True when this call stored it."""
    stmt = (
        dialect_insert(session)(RelationshipArcRow)
        .values(**{**values, "chapter_ids": json.dumps(values.get("chapter_ids", []))})
        .on_conflict_do_nothing(index_elements=["user_id", "period"])
    )
    return bool(cast("CursorResult[Any]", session.execute(stmt)).rowcount)


def current_arcs(session: Session, user_ids: Sequence[str]) -> dict[str, Arc]:
    """Each user's current arc (the latest month's a prompt may show), one query for all; a user with none is
    absent."""
    rows = newest_per_user(session, RelationshipArcRow, user_ids, in_prompts(RelationshipArcRow))
    return {row.user_id: row.as_arc() for row in rows}


def current_arc(session: Session, user_id: str) -> Arc | None:
    """The user's current arc, or None (a user not a month old, or never active a whole month)."""
    return current_arcs(session, [user_id]).get(user_id)


def current_arc_with_id(session: Session, user_id: str) -> tuple[Arc | None, int | None]:
    """``current_arc`` and its row's id (what the reply saw: ``ella.seen``)."""
    rows = newest_per_user(session, RelationshipArcRow, [user_id], in_prompts(RelationshipArcRow))
    return (rows[0].as_arc(), rows[0].id) if rows else (None, None)


def arcs_before(session: Session, periods: dict[str, str]) -> dict[str, Arc]:
    """For each ``user_id -> month``, the user's latest arc of an earlier month (the one a new arc follows);
    one query for the chunk. A re-plan of a month already read does not take that month's own arc."""
    if not periods:
        return {}
    rows = session.scalars(
        select(RelationshipArcRow)
        .where(
            RelationshipArcRow.user_id.in_(list(periods)),
            RelationshipArcRow.period < max(periods.values()),
            in_prompts(RelationshipArcRow),
        )
        .order_by(RelationshipArcRow.period)
    )
    found: dict[str, Arc] = {}
    for row in rows:  # oldest first: the last one kept per user is the latest before their month
        if row.period < periods[row.user_id]:
            found[row.user_id] = row.as_arc()
    return found


def arc_history(session: Session, user_id: str) -> list[Arc]:
    """Every arc of the user, oldest first."""
    rows = session.scalars(
        select(RelationshipArcRow).where(RelationshipArcRow.user_id == user_id).order_by(RelationshipArcRow.period)
    )
    return [row.as_arc() for row in rows]

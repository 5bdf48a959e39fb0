"""Notification candidates: what Ella might say on her own, what grounds it, and what became of it.

Why a row per candidate with a hard ``fresh_until``: a notification that brings up a stale event breaks trust at
once (addendum, section 5), so every candidate carries the moment after which it is dead, whatever else
happens; its status says what became of it (``candidate`` / ``sent`` / ``skipped`` / ``expired``) and
``reason`` says why. ``based_on`` names the world facts and self-log entries it rests on (empty only for a
generic check-in), so an auditor can tell a grounded message from a generic one. ``dedupe_key`` makes the same
follow-up impossible to make twice; ``not_before`` is when the dispatcher looks at a held candidate again, so a
dispatch pass reads only due candidates, through the partial index, and never every user.
"""

from __future__ import annotations

import json
from datetime import datetime

from sqlalchemy import (
    CheckConstraint,
    ForeignKey,
    Index,
    String,
    Text,
    and_,
    cast,
    func,
    literal,
    literal_column,
    or_,
    select,
    text,
    true,
)
from sqlalchemy.orm import Mapped, Session, mapped_column

from ella.ledger.rules import subject_range
from ella.notifications import followups
from ella.notifications.followups import NewCandidate
from ella.notifications.generic import QuietState
from ella.notifications.policy import Kind, Status
from models.base import Base, BigId, UTCDateTime, dialect_insert, utcnow
from models.ledger import WorldFact
from models.user import User


class NotificationCandidate(Base):
    __tablename__ = "notification_candidates"
    __table_args__ = (
        CheckConstraint("kind IN ('followup', 'digest', 'generic')", name="kind_known"),
        CheckConstraint("status IN ('candidate', 'sent', 'skipped', 'expired')", name="status_known"),
        Index(
            "ix_notification_candidates_due",
            "not_before",
            sqlite_where=text("status = 'candidate'"),
            postgresql_where=text("status = 'candidate'"),
        ),
        Index("ix_notification_candidates_user_id_created_at", "user_id", "created_at"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(16), comment="followup | digest | generic")
    body: Mapped[str] = mapped_column(Text, comment="1-2 sentences in Ella's voice, checked by the outbound guard")
    based_on: Mapped[str] = mapped_column(
        Text, default='{"facts": [], "self_log": []}', comment="JSON: world fact ids and self-log ids"
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    fresh_until: Mapped[datetime] = mapped_column(UTCDateTime(), comment="hard expiry: never sent after this")
    not_before: Mapped[datetime] = mapped_column(UTCDateTime(), comment="the dispatcher looks again from here")
    status: Mapped[str] = mapped_column(String(16), default="candidate")
    reason: Mapped[str | None] = mapped_column(String(300), comment="why skipped, expired, or last held back")
    sent_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    outbox_record_id: Mapped[int | None] = mapped_column(
        ForeignKey("outbox_records.id", ondelete="SET NULL"), unique=True
    )
    dedupe_key: Mapped[str] = mapped_column(String(200), unique=True)

    @property
    def fact_ids(self) -> list[int]:
        return [int(i) for i in json.loads(self.based_on).get("facts", [])]

    @property
    def self_log_ids(self) -> list[int]:
        return [int(i) for i in json.loads(self.based_on).get("self_log", [])]


def based_on_json(fact_ids: list[int], self_log_ids: list[int]) -> str:
    return json.dumps({"facts": sorted(fact_ids), "self_log": sorted(self_log_ids)})


# --- making candidates (follow-ups and generic check-ins; ``tasks.followups``)


def open_followups(
    session: Session, now: datetime, after: tuple[datetime, int] | None, limit: int
) -> list[tuple[WorldFact, str]]:
    """One keyset page, across all users, of the facts ``followups.wants_followup`` accepts at ``now`` and that
    have no candidate yet (with each user's time zone), ordered by (``followup_after``, id), after ``after``.

    Read through the partial index ``ix_world_facts_followup_open`` (its predicate is repeated here as literals
    so SQLite's planner can use it too), never by scanning users; a user with notifications off is left out
    (asked again by a later pass if they turn them back on while the window is open).
    """
    exact, low, high = subject_range(followups.USER_SUBJECT)
    made = (
        select(NotificationCandidate.id)
        .where(NotificationCandidate.dedupe_key == literal(followups.DEDUPE_PREFIX) + cast(WorldFact.id, String))
        .exists()
    )
    stmt = (
        select(WorldFact, User.timezone)
        .join(User, User.id == WorldFact.user_id)
        .where(
            WorldFact.status == literal_column("'active'"),
            WorldFact.followup_after.is_not(None),
            WorldFact.followup_after <= now,
            WorldFact.followup_until > now,
            WorldFact.tier.in_(sorted(followups.FOLLOWUP_TIERS)),
            or_(WorldFact.subject == exact, and_(WorldFact.subject >= low, WorldFact.subject < high)),
            User.notifications_enabled == true(),
            ~made,
        )
        .order_by(WorldFact.followup_after, WorldFact.id)
        .limit(limit)
    )
    if after is not None:
        at, fact_id = after
        stmt = stmt.where(WorldFact.followup_after >= at, or_(WorldFact.followup_after > at, WorldFact.id > fact_id))
    return [(fact, zone) for fact, zone in session.execute(stmt)]


def add_candidate(session: Session, candidate: NewCandidate, now: datetime) -> int | None:
    """Store ``candidate`` once: its id, or None when its ``dedupe_key`` was made before (by any pass)."""
    values = {
        "user_id": candidate.user_id,
        "kind": Kind(candidate.kind).value,
        "body": candidate.body,
        "based_on": based_on_json(list(candidate.fact_ids), list(candidate.self_log_ids)),
        "created_at": now,
        "fresh_until": candidate.fresh_until,
        "not_before": candidate.not_before,
        "status": Status(candidate.status).value,
        "reason": candidate.reason[:300] if candidate.reason else None,
        "dedupe_key": candidate.dedupe_key,
    }
    stmt = (
        dialect_insert(session)(NotificationCandidate)
        .values(**values)
        .on_conflict_do_nothing(index_elements=["dedupe_key"])
        .returning(NotificationCandidate.id)
    )
    made: int | None = session.scalar(stmt)
    return made


def quiet_users(session: Session, now: datetime, seen_since: datetime, after: str, limit: int) -> list[QuietState]:
    """One keyset page (by user id, after ``after``) of users with notifications on seen since ``seen_since``,
    with what ``generic.due`` reads: whether they hold a fresh candidate and when their last generic was made."""
    c = NotificationCandidate
    fresh = select(c.id).where(c.user_id == User.id, c.status == Status.CANDIDATE.value, c.fresh_until > now).exists()
    last_generic = (
        select(func.max(c.created_at)).where(c.user_id == User.id, c.kind == Kind.GENERIC.value).scalar_subquery()
    )
    stmt = (
        select(User.id, User.created_at, User.last_notified_at, fresh, last_generic)
        .where(User.id > after, User.last_seen_at >= seen_since, User.notifications_enabled == true())
        .order_by(User.id)
        .limit(limit)
    )
    return [
        QuietState(user_id, created_at, last_notified_at, bool(has_fresh), last_generic_at)
        for user_id, created_at, last_notified_at, has_fresh, last_generic_at in session.execute(stmt)
    ]

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
import uuid
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import (
    CheckConstraint,
    ColumnElement,
    ForeignKey,
    Index,
    Select,
    String,
    Text,
    and_,
    cast,
    func,
    insert,
    literal,
    literal_column,
    or_,
    select,
    text,
    true,
    update,
)
from sqlalchemy.orm import Mapped, Session, mapped_column

from ella.guard.disclosure import with_notices
from ella.ledger.rules import LIVE, subject_range
from ella.notifications import followups
from ella.notifications.followups import NewCandidate
from ella.notifications.generic import QuietState
from ella.notifications.policy import Kind, Status
from models.base import Base, BigId, UTCDateTime, dialect_insert, utcnow
from models.conversation import Conversation, open_for_notifications
from models.ledger import WorldFact
from models.outbox import OutboxRecord
from models.provenance import Provenanced
from models.selflog import SelfLogEntry
from models.user import User


class NotificationCandidate(Provenanced, Base):
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
        # Sent and still fresh: the dispatcher re-publishes those whose outbox record never reached the stream.
        Index(
            "ix_notification_candidates_sent_fresh",
            "fresh_until",
            sqlite_where=text("status = 'sent'"),
            postgresql_where=text("status = 'sent'"),
        ),
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
        return grounded_on(self.based_on, "facts")

    @property
    def self_log_ids(self) -> list[int]:
        return grounded_on(self.based_on, "self_log")

    @property
    def thought_ids(self) -> list[int]:
        return grounded_on(self.based_on, "thoughts")


def grounded_on(based_on: str, kind: str) -> list[int]:
    """The ids of one kind (``facts``, ``self_log``, ``thoughts``) in a candidate's ``based_on`` JSON; a kind a
    row does not name (every row made before digests cited thoughts) is an empty list."""
    return [int(i) for i in json.loads(based_on).get(kind, [])]


def based_on_json(fact_ids: list[int], self_log_ids: list[int], thought_ids: list[int] | None = None) -> str:
    """``thoughts`` (memory node ids: a digest's planning thoughts) is written only when some are cited, so a
    follow-up's or a generic's row reads as it always did."""
    grounds: dict[str, list[int]] = {"facts": sorted(fact_ids), "self_log": sorted(self_log_ids)}
    if thought_ids:
        grounds["thoughts"] = sorted(thought_ids)
    return json.dumps(grounds)


# --- making candidates (follow-ups and generic check-ins; ``tasks.followups``)


def open_followups(
    session: Session, now: datetime, after: tuple[datetime, int] | None, limit: int
) -> list[tuple[WorldFact, str]]:
    """One keyset page, across all users, of the facts ``followups.wants_followup`` accepts at ``now`` and that
    have no candidate yet (with each user's time zone), ordered by (``followup_until``, id), after ``after``.

    Read through the partial index ``ix_world_facts_followup_open`` on ``followup_until`` (its predicate is
    repeated here as literals so SQLite's planner can use it too), so windows that closed long ago are not
    walked again on every pass, and never by scanning users; a user with notifications off is left out
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
        .order_by(WorldFact.followup_until, WorldFact.id)
        .limit(limit)
    )
    if after is not None:
        at, fact_id = after
        stmt = stmt.where(WorldFact.followup_until >= at, or_(WorldFact.followup_until > at, WorldFact.id > fact_id))
    return [(fact, zone) for fact, zone in session.execute(stmt)]


def add_candidate(session: Session, candidate: NewCandidate, now: datetime) -> int | None:
    """Store ``candidate`` once: its id, or None when its ``dedupe_key`` was made before (by any pass)."""
    values = {
        "user_id": candidate.user_id,
        "kind": Kind(candidate.kind).value,
        "body": candidate.body,
        "based_on": based_on_json(list(candidate.fact_ids), list(candidate.self_log_ids), list(candidate.thought_ids)),
        "created_at": now,
        "fresh_until": candidate.fresh_until,
        "not_before": candidate.not_before,
        "status": Status(candidate.status).value,
        "reason": candidate.reason[:300] if candidate.reason else None,
        "dedupe_key": candidate.dedupe_key,
        **(candidate.made_by.columns() if candidate.made_by is not None else {}),
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


# --- sending (``tasks.notifications``: ``ella.dispatch_notifications`` and ``ella notifications``)


@dataclass(frozen=True)
class Due:
    """A candidate with what the cadence rules read about its user, from one query (no query per user)."""

    id: int
    user_id: str
    kind: str
    body: str
    based_on: str
    status: str
    fresh_until: datetime
    not_before: datetime
    reason: str | None
    timezone: str
    dnd: tuple[int, int]
    active: tuple[int, int]
    notifications_enabled: bool
    last_notified_at: datetime | None
    conversation_close_due_at: datetime | None

    @property
    def fact_ids(self) -> list[int]:
        return grounded_on(self.based_on, "facts")

    @property
    def thought_ids(self) -> list[int]:
        return grounded_on(self.based_on, "thoughts")


@dataclass(frozen=True)
class Sent:
    """A notification committed as an outbox record; ``body`` is the candidate's text (without the AI notice the
    record's text opens with), which is what Ella remembers saying."""

    candidate_id: int
    record: OutboxRecord
    body: str


# Literals, not bound parameters, so that SQLite's planner sees the partial indexes' predicates match.
_CANDIDATE: ColumnElement[str] = literal_column("'candidate'", String())
_SENT: ColumnElement[str] = literal_column("'sent'", String())


def _with_user() -> Select[*tuple[Any, ...]]:
    c = NotificationCandidate
    return (
        select(
            c.id, c.user_id, c.kind, c.body, c.based_on, c.status, c.fresh_until, c.not_before, c.reason,
            User.timezone, User.dnd_start_minute, User.dnd_end_minute, User.active_start_minute,
            User.active_end_minute, User.notifications_enabled, User.last_notified_at, Conversation.close_due_at,
        )
        .join(User, User.id == c.user_id)
        .outerjoin(Conversation, and_(Conversation.user_id == c.user_id, Conversation.closed_at.is_(None)))
    )  # fmt: skip


def _due(row: Any) -> Due:
    return Due(
        id=row.id,
        user_id=row.user_id,
        kind=row.kind,
        body=row.body,
        based_on=row.based_on,
        status=row.status,
        fresh_until=row.fresh_until,
        not_before=row.not_before,
        reason=row.reason,
        timezone=row.timezone,
        dnd=(row.dnd_start_minute, row.dnd_end_minute),
        active=(row.active_start_minute, row.active_end_minute),
        notifications_enabled=row.notifications_enabled,
        last_notified_at=row.last_notified_at,
        conversation_close_due_at=row.close_due_at,
    )


def due_candidates(session: Session, now: datetime, after: tuple[datetime, int] | None, limit: int) -> list[Due]:
    """One keyset page of candidates due at ``now`` (by ``not_before``, id, after ``after``), each with its user's
    profile and open conversation: through the partial index ``ix_notification_candidates_due``, never by
    scanning users."""
    c = NotificationCandidate
    stmt = _with_user().where(c.status == _CANDIDATE, c.not_before <= now).order_by(c.not_before, c.id).limit(limit)
    if after is not None:
        at, last_id = after
        stmt = stmt.where(c.not_before >= at, or_(c.not_before > at, c.id > last_id))
    return [_due(row) for row in session.execute(stmt)]


def waiting_candidates(session: Session, user_id: str) -> list[Due]:
    """The user's candidates still waiting to be sent, the next one first."""
    c = NotificationCandidate
    stmt = _with_user().where(c.user_id == user_id, c.status == _CANDIDATE).order_by(c.not_before, c.id)
    return [_due(row) for row in session.execute(stmt)]


def notified_since(session: Session, user_ids: Collection[str], since: datetime) -> dict[str, list[datetime]]:
    """When each user's notifications since ``since`` were recorded (for the daily cap), by user id."""
    if not user_ids:
        return {}
    rows = session.execute(
        select(OutboxRecord.user_id, OutboxRecord.created_at).where(
            OutboxRecord.user_id.in_(user_ids),
            OutboxRecord.created_at >= since,
            OutboxRecord.kind == "notification",
        )
    )
    found: dict[str, list[datetime]] = {}
    for user_id, at in rows:
        found.setdefault(user_id, []).append(at)
    return found


def live_fact_ids(session: Session, fact_ids: Collection[int]) -> set[tuple[str, int]]:
    """(user id, fact id) of those of ``fact_ids`` that are still live (active or contested)."""
    if not fact_ids:
        return set()
    rows = session.execute(
        select(WorldFact.user_id, WorldFact.id).where(
            WorldFact.id.in_(sorted(set(fact_ids))), WorldFact.status.in_(sorted(s.value for s in LIVE))
        )
    )
    return {(user_id, fact_id) for user_id, fact_id in rows}


def expire_stale(session: Session, now: datetime) -> int:
    """Candidates past ``fresh_until`` become ``expired`` (through the due index's predicate); how many."""
    c = NotificationCandidate
    result = session.execute(
        update(c)
        .where(c.status == _CANDIDATE, c.fresh_until <= now)
        .values(status=Status.EXPIRED.value, reason="expired: fresh_until passed before it could be sent")
        .execution_options(synchronize_session=False)
    )
    return int(getattr(result, "rowcount", 0) or 0)


def hold_back(session: Session, holds: Sequence[tuple[int, datetime, str]]) -> None:
    """(id, not_before, reason): candidates that wait, each looked at again from its ``not_before``."""
    if holds:
        session.execute(
            update(NotificationCandidate)
            .where(NotificationCandidate.status == _CANDIDATE)
            .execution_options(synchronize_session=None),
            [{"id": i, "not_before": at, "reason": reason[:300]} for i, at, reason in holds],
        )


def end_candidates(session: Session, ends: Sequence[tuple[int, str, str]]) -> None:
    """(id, status, reason): candidates a final hold ends (expired, skipped), unless something else ended them."""
    if ends:
        session.execute(
            update(NotificationCandidate)
            .where(NotificationCandidate.status == _CANDIDATE)
            .execution_options(synchronize_session=None),
            [{"id": i, "status": status, "reason": reason[:300]} for i, status, reason in ends],
        )


def send(
    session: Session,
    candidates: Sequence[tuple[int, str, str, str]],
    now: datetime,
    reply_window: timedelta,
    ai_notice: bool = True,
) -> list[Sent]:
    """Send (id, user id, kind, body) candidates in the caller's one transaction; those this call won.

    A notification begins an interaction, so with ``ai_notice`` (the AI-disclosure setting) it opens with the
    notice that Ella is an AI (NY GBL §1702) and the user's ``ai_disclosed_at`` is set with it: the user's
    answer inside the reply window continues that interaction and is not told again.

    Each is flipped to ``sent`` by a conditional UPDATE (a concurrent dispatcher that flipped it first wins; this
    one then writes nothing for it), its users' ``last_notified_at`` set (which takes their row locks, as ingest
    does), and an outbox record ``kind='notification'`` written as a turn of the conversation it opens
    (``models.conversation.open_for_notifications``) and linked. Publishing is the caller's, after the commit.
    """
    if not candidates:
        return []
    c = NotificationCandidate
    won = set(
        session.scalars(
            update(c)
            .where(c.id.in_([cand[0] for cand in candidates]), c.status == _CANDIDATE)
            .values(status=Status.SENT.value, sent_at=now, reason=None)
            .returning(c.id)
            .execution_options(synchronize_session=False)
        )
    )
    mine = [cand for cand in candidates if cand[0] in won]
    if not mine:
        return []
    users = sorted({user_id for _, user_id, _, _ in mine})
    told = {"ai_disclosed_at": now} if ai_notice else {}
    session.execute(
        update(User)
        .where(User.id.in_(users))
        .values(last_notified_at=now, **told)
        .execution_options(synchronize_session=False)
    )
    conversations = open_for_notifications(session, users, now, reply_window)
    rows = [
        {
            "uid": str(uuid.uuid4()),
            "kind": "notification",
            "user_id": user_id,
            "conversation_id": conversations[user_id],
            "in_reply_to": None,
            "route": "canned" if kind == Kind.GENERIC else "generated",
            "category": kind,
            "text": with_notices(body, ai_notice, False),
            "created_at": now,
        }
        for _, user_id, kind, body in mine
    ]
    records = session.scalars(insert(OutboxRecord).returning(OutboxRecord, sort_by_parameter_order=True), rows).all()
    session.execute(
        update(c), [{"id": cand[0], "outbox_record_id": r.id} for cand, r in zip(mine, records, strict=True)]
    )
    return [Sent(cand[0], record, cand[3]) for cand, record in zip(mine, records, strict=True)]


def unpublished_notifications(session: Session, now: datetime, limit: int) -> list[Sent]:
    """Notification records committed but never published (a worker died between the commit and the stream),
    with the candidate each came from, soonest to go stale first.

    Found through their candidates (sent, still fresh: the partial index ``ix_notification_candidates_sent_fresh``)
    and not through an index on ``outbox_records.published_at``, which would slow every reply's publish. A record
    whose candidate went stale before it could be published is never sent: the hard expiry holds here too."""
    c = NotificationCandidate
    rows = session.execute(
        select(OutboxRecord, c.id, c.body)
        .join(c, c.outbox_record_id == OutboxRecord.id)
        .where(c.status == _SENT, c.fresh_until > now, OutboxRecord.published_at.is_(None))
        .order_by(c.fresh_until, c.id)
        .limit(limit)
    )
    return [Sent(candidate_id, record, body) for record, candidate_id, body in rows]


def user_candidates(session: Session, user_id: str, limit: int) -> list[NotificationCandidate]:
    """The user's most recent candidates, newest first."""
    c = NotificationCandidate
    return list(
        session.scalars(select(c).where(c.user_id == user_id).order_by(c.created_at.desc(), c.id.desc()).limit(limit))
    )


def grounds(
    session: Session, fact_ids: Collection[int], self_log_ids: Collection[int]
) -> tuple[dict[int, WorldFact], dict[int, SelfLogEntry]]:
    """The facts and self-log entries that ground some candidates, by id (two queries at most)."""
    facts = (
        {f.id: f for f in session.scalars(select(WorldFact).where(WorldFact.id.in_(sorted(set(fact_ids)))))}
        if fact_ids
        else {}
    )
    entries = (
        {e.id: e for e in session.scalars(select(SelfLogEntry).where(SelfLogEntry.id.in_(sorted(set(self_log_ids)))))}
        if self_log_ids
        else {}
    )
    return facts, entries

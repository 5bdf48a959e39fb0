"""The world-fact ledger: one row per fact, never edited in content, and one row per status change.

Why rows and not the seed's JSONL file: the seed rewrote its whole file on every supersession (O(n), about
290 ms at 50,000 facts) and two writers corrupted it. Here a supersession is one conditional UPDATE and one
INSERT in a transaction. A fact's whole life is on its row (Graphiti's ``edges.py`` idea): when it holds in
the world (``valid_from``/``valid_until``), when the system recorded and retired it (``recorded_at``/
``retired_at``), what it replaced (``supersedes``), and its chain (every fact a supersession descends from
shares one ``chain``; a partial unique index keeps one live fact per chain). Status changes also go to
``world_fact_events`` so the history can be replayed. Supersession is scoped to one chain: unlike mem0 nothing
is deleted, and unlike Graphiti nothing unrelated is invalidated.

This module holds the tables, the write steps every writer shares (the world's lock, the INSERT, status
events, the contest check), ``append`` and ``retire``, and the read-only queries (``current`` and friends never
write). Elsewhere:

- ``models.supersession``: where a fact is superseded (``supersede``, ``resolve_contest``).
- ``models.world_clock``: ``advance_world``, the one function that lays a new world's anchors and applies the
  clock's ticks (decided in plain Python by ``ella.ledger.world_clock``).

Every query takes the user id: a user's world is theirs alone.
"""

from __future__ import annotations

import uuid
import zlib
from collections.abc import Sequence
from datetime import datetime
from functools import cache
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import (
    CheckConstraint,
    Float,
    ForeignKey,
    Index,
    String,
    Text,
    and_,
    bindparam,
    func,
    insert,
    literal,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.orm import Mapped, Session, mapped_column

from ella.core_profile import MAX_PAST_LINES, PAST_PREDICATES, asks_about_own_past, past_section
from ella.core_profile import past_lines as user_past_lines
from ella.ledger.facts import NewFact as NewFact  # the plain value writers hand in, re-exported here
from ella.ledger.past import asks_about_the_past, named_subjects, past_lines, section
from ella.ledger.rules import (
    LIVE,
    USER_SUBJECT,
    FactConflict,
    Status,
    Tier,
    Writer,
    about_the_user,
    check_supersede,
    check_write,
    subject_range,
)
from ella.provenance import Provenance, by_operator, by_rule, unrecorded
from ella.readers import OWN_PAST, PAST_QUESTION, reads_as
from models.base import Base, BigId, UTCDateTime, utcnow
from models.provenance import Provenanced
from models.user import User

LIVE_SQL = "status IN ('active', 'contested')"
# Subjects are compared byte-wise so that prefix ranges ("ellahome." .. "ellahome/") are exact on any server.
Key = String(200).with_variant(String(200, collation="C"), "postgresql")


FOLLOWUP_SQL = "status = 'active' AND followup_after IS NOT NULL"


class WorldFact(Provenanced, Base):
    __tablename__ = "world_facts"
    __table_args__ = (
        CheckConstraint(f"tier IN {tuple(t.value for t in Tier)}", name="tier_known"),
        CheckConstraint(f"status IN {tuple(s.value for s in Status)}", name="status_known"),
        CheckConstraint("confidence >= 0 AND confidence <= 1", name="confidence_unit"),
        Index("ix_world_facts_user_id_subject_predicate", "user_id", "subject", "predicate"),
        Index(
            "uq_world_facts_live_chain",
            "chain",
            unique=True,
            postgresql_where=text(LIVE_SQL),
            sqlite_where=text(LIVE_SQL),
        ),
        # Follow-ups: active facts whose window is still open, found by its end, not by scanning every user.
        Index(
            "ix_world_facts_followup_open",
            "followup_until",
            postgresql_where=text(FOLLOWUP_SQL),
            sqlite_where=text(FOLLOWUP_SQL),
        ),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    chain: Mapped[str] = mapped_column(String(32), comment="shared by a fact and everything it supersedes")
    tier: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16), default=Status.ACTIVE.value)
    subject: Mapped[str] = mapped_column(Key)
    predicate: Mapped[str] = mapped_column(String(120))
    object: Mapped[str] = mapped_column(String(400))
    confidence: Mapped[float] = mapped_column(Float, default=1.0)
    source_message_id: Mapped[str | None] = mapped_column(String(200))
    note: Mapped[str] = mapped_column(Text, default="")
    written_by: Mapped[str] = mapped_column(String(16))
    supersedes: Mapped[int | None] = mapped_column(ForeignKey("world_facts.id", ondelete="SET NULL"))
    valid_from: Mapped[datetime] = mapped_column(UTCDateTime(), comment="when it starts to hold in the world")
    valid_until: Mapped[datetime | None] = mapped_column(UTCDateTime(), comment="when it stopped holding")
    recorded_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    retired_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), comment="when it stopped being live")
    status_note: Mapped[str | None] = mapped_column(Text, comment="why its status last changed")
    outcome: Mapped[str | None] = mapped_column(Text, comment="a retired event: what came of it, as the user told")
    followup_after: Mapped[datetime | None] = mapped_column(UTCDateTime(), comment="a dated event: ask after")
    followup_until: Mapped[datetime | None] = mapped_column(UTCDateTime(), comment="...and never after this")
    dedupe_key: Mapped[str | None] = mapped_column(String(200), unique=True)


class FactEvent(Base):
    """A status change of a fact: the replayable history the seed's ledger lost when it rewrote lines."""

    __tablename__ = "world_fact_events"
    __table_args__ = (
        Index("ix_world_fact_events_user_id_fact_id", "user_id", "fact_id"),
        Index("ix_world_fact_events_at", "at"),  # the retention job's scan (models.retention)
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    fact_id: Mapped[int] = mapped_column(ForeignKey("world_facts.id", ondelete="CASCADE"))
    user_id: Mapped[str] = mapped_column(String(128))
    at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    from_status: Mapped[str] = mapped_column(String(16))
    to_status: Mapped[str] = mapped_column(String(16))
    writer: Mapped[str] = mapped_column(String(16))
    note: Mapped[str] = mapped_column(Text, default="")


def lock_key(session: Session, user_id: str) -> Any:
    """An expression that takes the world's lock when selected (PostgreSQL), else a harmless constant."""
    if session.get_bind().dialect.name == "postgresql":
        return func.pg_advisory_xact_lock(world_lock_id(user_id))
    return literal(None)


def world_lock_id(user_id: str) -> int:
    """The advisory lock's key for one user's world (a signed 64-bit integer, as PostgreSQL wants)."""
    return zlib.crc32(f"ledger:{user_id}".encode()) - 2**31


def lock_world(session: Session, user_id: str) -> None:
    """Serialise ledger writes to one user's world until the transaction ends.

    PostgreSQL: a transaction-scoped advisory lock on the user, so contest marking (which updates several
    rows) cannot deadlock with a concurrent supersession. SQLite: BEGIN IMMEDIATE already serialises writers.
    """
    if session.get_bind().dialect.name == "postgresql":
        session.execute(select(lock_key(session, user_id)))


def record_events(session: Session, rows: Sequence[dict[str, Any]]) -> None:
    """Status changes, as one Core INSERT (no unit-of-work flush on the hot path)."""
    if rows:
        session.execute(insert(FactEvent), list(rows))


def event_row(fact_id: int, user_id: str, old: str, new: str, writer: str, note: str, at: datetime) -> dict[str, Any]:
    return {"fact_id": fact_id, "user_id": user_id, "at": at, "from_status": old, "to_status": new,
            "writer": writer, "note": note}  # fmt: skip


# What a new row is given; the rest (its id, and when and why it stopped being live) comes later. Both INSERTs
# (``insert_fact`` and PostgreSQL's one-statement supersession) take their column list from here.
NOT_INSERTED = frozenset({"id", "retired_at", "status_note", "outcome"})
INSERTED_COLUMNS = tuple(c for c in WorldFact.__table__.columns if c.key not in NOT_INSERTED)


def fact_row(user_id: str, new: NewFact, writer: Writer, now: datetime) -> dict[str, Any]:
    """A new fact's values, but for its ``chain`` and ``supersedes`` (which the writer decides)."""
    return {
        "user_id": user_id,
        "tier": Tier(new.tier).value,
        "status": Status.ACTIVE.value,
        "subject": new.subject[:200],
        "predicate": new.predicate[:120],
        "object": new.object[:400],
        "confidence": float(new.confidence),
        "source_message_id": new.source_message_id,
        "note": new.note,
        "written_by": writer.value,
        "valid_from": new.valid_from or now,
        "valid_until": new.valid_until,
        "recorded_at": now,
        "followup_after": new.followup_after,
        "followup_until": new.followup_until,
        "dedupe_key": new.dedupe_key,
        **(new.made_by or writer_provenance(writer)).columns(),
    }


def writer_provenance(writer: Writer) -> Provenance:
    """What made a fact that came with no provenance of its own: the writer's rule (the anchors, the world's
    clock, the resolver), the operator, or for a user's fact (always extracted by a call that says so) unknown."""
    if writer == Writer.OPERATOR:
        return by_operator("ledger")
    if writer == Writer.USER:
        return unrecorded("fact_extraction")
    return by_rule(writer.value)


def insert_fact(
    session: Session, user_id: str, new: NewFact, writer: Writer, now: datetime, chain: str, supersedes: int | None
) -> WorldFact | None:
    """INSERT one fact; None when its ``dedupe_key`` was recorded before."""
    values = {**fact_row(user_id, new, writer, now), "chain": chain, "supersedes": supersedes}
    stmt = _insert_statement(session.get_bind().dialect.name, new.dedupe_key is not None)
    fact: WorldFact | None = session.scalars(stmt, values).one_or_none()
    return fact


@cache
def _insert_statement(dialect: str, dedupe: bool) -> Any:
    """Built once per dialect: the hot path only binds values (statement building was half its time)."""
    from sqlalchemy.dialects import postgresql, sqlite

    dialect_insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    stmt: Any = dialect_insert(WorldFact).values({c.key: bindparam(c.key) for c in INSERTED_COLUMNS})
    if dedupe:
        stmt = stmt.on_conflict_do_nothing(index_elements=["dedupe_key"])
    return stmt.returning(WorldFact)


def settle_contest(
    session: Session, user_id: str, subject: str, predicate: str, tier: str, writer: str, now: datetime
) -> None:
    """Mark the live facts of (subject, predicate, tier) contested when they disagree, active when they no
    longer do (the other side was superseded or retired). One indexed SELECT when nothing changes.

    Dated events (a follow-up window) never dispute each other: an interview on Thursday and a dentist
    appointment on Wednesday are two events, not two answers to one question (``ella.ledger.extraction.place``).
    """
    live = session.execute(
        select(WorldFact.id, WorldFact.status, WorldFact.object).where(
            WorldFact.user_id == user_id,
            WorldFact.subject == subject,
            WorldFact.predicate == predicate,
            WorldFact.tier == tier,
            WorldFact.status.in_([s.value for s in LIVE]),
            WorldFact.followup_after.is_(None),
        )
    ).all()
    target = Status.CONTESTED if len({row.object for row in live}) > 1 else Status.ACTIVE
    changed = [row for row in live if row.status != target]
    if not changed:
        return
    note = "disagrees with another live fact of its tier" if target == Status.CONTESTED else "no longer disputed"
    session.execute(
        update(WorldFact)
        .where(WorldFact.id.in_([row.id for row in changed]))
        .values(status=target.value, status_note=note)
        .execution_options(synchronize_session="fetch")
    )
    record_events(session, [event_row(row.id, user_id, row.status, target.value, writer, note, now) for row in changed])


def append(
    session: Session, user_id: str, new: NewFact, writer: Writer | str, now: datetime | None = None
) -> WorldFact | None:
    """Record a new fact (a new chain); None when its ``dedupe_key`` was recorded before.

    The trust rules are checked first: a user's words can never become canon.
    """
    writer = Writer(writer)
    check_write(writer, new.tier)
    now = now or utcnow()
    lock_world(session, user_id)
    fact = insert_fact(session, user_id, new, writer, now, uuid.uuid4().hex, None)
    if fact is not None:
        settle_contest(session, user_id, fact.subject, fact.predicate, fact.tier, writer.value, now)
    return fact


def retire(
    session: Session,
    user_id: str,
    fact_id: int,
    writer: Writer | str,
    reason: str,
    now: datetime | None = None,
    outcome: str | None = None,
) -> WorldFact:
    """Withdraw a live fact without a replacement (kept, with the reason, for history). ``outcome`` is what came
    of an event that happened (the seed's lifecycle rule: "the interview went great" retires "has upcoming: job
    interview"), kept on the row so nothing looks forward to it again and its history says how it went."""
    writer = Writer(writer)
    now = now or utcnow()
    lock_world(session, user_id)
    fact = session.scalars(select(WorldFact).where(WorldFact.id == fact_id, WorldFact.user_id == user_id)).one_or_none()
    if fact is None or fact.status not in LIVE:
        raise FactConflict(f"fact {fact_id} is not live in this user's world")
    check_supersede(writer, fact.tier, fact.tier)
    record_events(session, [event_row(fact.id, user_id, fact.status, Status.RETIRED.value, writer.value, reason, now)])
    fact.status, fact.retired_at, fact.status_note = Status.RETIRED.value, now, reason
    if outcome:
        fact.outcome = outcome[:2000]
    fact.valid_until = fact.valid_until or now
    session.flush()
    settle_contest(session, user_id, fact.subject, fact.predicate, fact.tier, writer.value, now)
    return fact


# --- reads: none of these writes ---------------------------------------------------------------------------


def _subject_filter(prefix: str | None) -> Any:
    if not prefix:
        return True
    exact, low, high = subject_range(prefix)
    return or_(WorldFact.subject == exact, and_(WorldFact.subject >= low, WorldFact.subject < high))


def current(session: Session, user_id: str, subject_prefix: str | None = None) -> list[WorldFact]:
    """The live facts (active or contested) of the user's world, optionally under a subject; read-only (the
    world clock does not run here: ``models.world_clock.advance_world`` is the read that catches it up)."""
    statement = _live_facts()
    if subject_prefix:
        statement = statement.where(_subject_filter(subject_prefix))
    return list(session.scalars(statement, {"b_user_id": user_id}))


@cache
def _live_facts() -> Any:
    """``current``'s statement, built once with a bound user id: SQLAlchemy computes a statement's cache key on
    each new statement object, which for a fresh ``select`` per reply cost about a tenth of the read's CPU
    (profiled under load, issue 35). Every reply reads the whole world, so that one is reused as it is."""
    return (
        select(WorldFact)
        .where(
            WorldFact.user_id == bindparam("b_user_id", type_=String()), WorldFact.status.in_([s.value for s in LIVE])
        )
        .order_by(WorldFact.subject, WorldFact.predicate, WorldFact.id)
    )


def history(session: Session, user_id: str, subject_prefix: str | None = None) -> list[WorldFact]:
    """Every fact ever recorded under a subject, oldest first ("remember when the door was red?")."""
    return list(
        session.scalars(
            select(WorldFact)
            .where(WorldFact.user_id == user_id, _subject_filter(subject_prefix))
            .order_by(WorldFact.recorded_at, WorldFact.id)
        )
    )


def events(session: Session, user_id: str, fact_ids: Sequence[int]) -> list[FactEvent]:
    return list(
        session.scalars(
            select(FactEvent)
            .where(FactEvent.user_id == user_id, FactEvent.fact_id.in_(list(fact_ids)))
            .order_by(FactEvent.at, FactEvent.id)
        )
    )


def as_of(session: Session, user_id: str, at: datetime, subject_prefix: str | None = None) -> list[WorldFact]:
    """The world as the ledger held it at ``at``: facts recorded by then and not yet superseded or retired."""
    return list(
        session.scalars(
            select(WorldFact)
            .where(
                WorldFact.user_id == user_id,
                WorldFact.recorded_at <= at,
                or_(WorldFact.retired_at.is_(None), WorldFact.retired_at > at),
                _subject_filter(subject_prefix),
            )
            .order_by(WorldFact.subject, WorldFact.predicate, WorldFact.id)
        )
    )


def narrative_anchors(session: Session, user_id: str) -> list[WorldFact]:
    """The first canon fact of each world element: the seed of truth later facts agree with or supersede."""
    first = (
        select(func.min(WorldFact.id))
        .where(WorldFact.user_id == user_id, WorldFact.tier == Tier.CANON.value)
        .group_by(WorldFact.subject)
    )
    return list(session.scalars(select(WorldFact).where(WorldFact.id.in_(first)).order_by(WorldFact.id)))


def user_zone(session: Session, user_id: str) -> ZoneInfo:
    """The user's time zone (their world's days begin at their midnight)."""
    return ZoneInfo(session.scalar(select(User.timezone).where(User.id == user_id)) or "UTC")


def chain_began(session: Session, fact: WorldFact) -> datetime | None:
    """When the fact's chain began to hold (the first ``valid_from`` of everything it descends from)."""
    began: datetime | None = session.scalar(select(func.min(WorldFact.valid_from)).where(WorldFact.chain == fact.chain))
    return began


def has_facts_from(session: Session, user_id: str, message_id: str) -> bool:
    """Whether a message's facts were stored already (a redelivered extraction then stores nothing)."""
    found = session.scalar(
        select(WorldFact.id).where(WorldFact.user_id == user_id, WorldFact.source_message_id == message_id).limit(1)
    )
    return found is not None


def users_with_contests(session: Session, after: str, limit: int) -> list[str]:
    """One page of the users who have contested facts, by user id after ``after``."""
    return list(
        session.scalars(
            select(WorldFact.user_id)
            .where(WorldFact.status == Status.CONTESTED.value, WorldFact.user_id > after)
            .group_by(WorldFact.user_id)
            .order_by(WorldFact.user_id)
            .limit(limit)
        )
    )


# --- her world's past: what held before, for a question about it (``ella.ledger.past``) ------------------------

PAST_STATUS_VALUES = (Status.SUPERSEDED.value, Status.RETIRED.value)
WORLD_TIER_VALUES = (Tier.CANON.value, Tier.OBSERVED.value, Tier.RUMORED.value)


def world_past(session: Session, user_id: str, subjects: Sequence[str], limit: int = 8) -> list[WorldFact]:
    """The superseded or retired facts of Ella's world (canon, observed, rumored) under ``subjects`` (each the
    subject or anything under it), the ones that stopped holding last first, at most ``limit``; read-only."""
    if not subjects:
        return []
    return list(
        session.scalars(
            select(WorldFact)
            .where(
                WorldFact.user_id == user_id,
                WorldFact.status.in_(PAST_STATUS_VALUES),
                WorldFact.tier.in_(WORLD_TIER_VALUES),
                or_(*(_subject_filter(subject) for subject in subjects)),
            )
            .order_by(WorldFact.valid_until.desc().nulls_last(), WorldFact.id.desc())
            .limit(limit)
        )
    )


def past_values(session: Session, user_id: str) -> list[tuple[str, str]]:
    """Every (subject, object) the user's world held and no longer does: the subjects a past question may name,
    and the values that name them ("was it always blue?"). One query; distinct, so a daily ticker's history
    costs its few values, not its days."""
    rows = session.execute(
        select(WorldFact.subject, WorldFact.object)
        .where(
            WorldFact.user_id == user_id,
            WorldFact.status.in_(PAST_STATUS_VALUES),
            WorldFact.tier.in_(WORLD_TIER_VALUES),
        )
        .distinct()
    ).all()
    return [(row.subject, row.object) for row in rows]


def past_view(
    session: Session, user_id: str, text: str, now: datetime, live_facts: Sequence[WorldFact] | None = None
) -> tuple[str, list[int]]:
    """The "her world's past" section for a message and the ids of the facts in it; ("", []) unless the message
    asks about the past of Ella's world (``ella.ledger.past.asks_about_the_past``) and names a subject of it
    that has a past. Two reads, only for such a message: the past values and the past facts (and the live facts,
    unless the caller read them: ``live_facts``)."""
    if not asks_about_the_past(text) and not reads_as(text, PAST_QUESTION):  # the English rule, then by meaning
        return "", []
    every = current(session, user_id) if live_facts is None else live_facts
    live = [f for f in every if f.tier in WORLD_TIER_VALUES]
    values: dict[str, list[str]] = {}
    for fact in live:
        values.setdefault(fact.subject, []).append(fact.object)
    for subject, obj in past_values(session, user_id):
        values.setdefault(subject, []).append(obj)
    subjects = named_subjects(text, values, values)
    past = world_past(session, user_id, subjects)
    if not past:
        return "", []
    named_live = [f for f in live if any(f.subject == s or f.subject.startswith(s + ".") for s in subjects)]
    lines = past_lines([*past, *named_live], now)
    return section(lines), [fact_id for fact_id, _ in lines]


# --- the user's own past: what used to be true of them, for a question about it (``ella.core_profile``) --------


def user_past(session: Session, user_id: str, limit: int = MAX_PAST_LINES) -> list[WorldFact]:
    """The user's own superseded or retired facts (``user`` and ``user.*``; not their dated events, which the
    follow-ups and the digest own), the ones that stopped holding last first, at most ``limit``; read-only."""
    return list(
        session.scalars(
            select(WorldFact)
            .where(
                WorldFact.user_id == user_id,
                WorldFact.status.in_(PAST_STATUS_VALUES),
                _subject_filter(USER_SUBJECT),
                WorldFact.predicate != "has_upcoming",
            )
            .order_by(WorldFact.valid_until.desc().nulls_last(), WorldFact.id.desc())
            .limit(limit)
        )
    )


def user_past_view(session: Session, user_id: str, text: str, live: Sequence[WorldFact]) -> tuple[str, list[int]]:
    """The "their own past" section for a message and the ids of the facts in it; ("", []) unless the message asks
    about the user's own past ("where did I live before?", by the English rule, then by meaning in the five
    languages) and the ledger holds one. One read, only for such a message; ``live`` is the turn's live facts."""
    if not asks_about_own_past(text) and not reads_as(text, OWN_PAST):
        return "", []
    mine = [f for f in live if about_the_user(f.subject)]
    stated = [f for f in mine if f.predicate in PAST_PREDICATES]
    lines = user_past_lines([*user_past(session, user_id), *stated], mine)
    return past_section(lines), [fact_id for fact_id, _ in lines]

"""The world-fact ledger: one row per fact, never edited in content, and one row per status change.

Why rows and not the seed's JSONL file: the seed rewrote its whole file on every supersession (O(n), about
290 ms at 50,000 facts) and two writers corrupted it. Here a supersession is one conditional UPDATE and one
INSERT in a transaction. A fact's whole life is on its row (Graphiti's ``edges.py`` idea): when it holds in
the world (``valid_from``/``valid_until``), when the system recorded and retired it (``recorded_at``/
``retired_at``), what it replaced (``supersedes``), and its chain (every fact a supersession descends from
shares one ``chain``; a partial unique index keeps one live fact per chain). Status changes also go to
``world_fact_events`` so the history can be replayed. Supersession is scoped to one chain: unlike mem0 nothing
is deleted, and unlike Graphiti nothing unrelated is invalidated.

Every query takes the user id: a user's world is theirs alone.
"""

from __future__ import annotations

import uuid
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
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
    column,
    func,
    insert,
    literal,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.orm import Mapped, Session, mapped_column

from ella.ledger.anchors import AGE_SUBJECT, WEATHER_SUBJECT, cat_age, seed_anchors, weather_for
from ella.ledger.rules import (
    LIVE,
    WRITABLE,
    FactConflict,
    Status,
    Tier,
    Writer,
    check_supersede,
    check_write,
    subject_range,
)
from models.base import Base, BigId, UTCDateTime, utcnow
from models.user import User

LIVE_SQL = "status IN ('active', 'contested')"
# Subjects are compared byte-wise so that prefix ranges ("ellahome." .. "ellahome/") are exact on any server.
Key = String(200).with_variant(String(200, collation="C"), "postgresql")


class WorldFact(Base):
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
    followup_after: Mapped[datetime | None] = mapped_column(UTCDateTime(), comment="a dated event: ask after")
    followup_until: Mapped[datetime | None] = mapped_column(UTCDateTime(), comment="...and never after this")
    dedupe_key: Mapped[str | None] = mapped_column(String(200), unique=True)


class FactEvent(Base):
    """A status change of a fact: the replayable history the seed's ledger lost when it rewrote lines."""

    __tablename__ = "world_fact_events"
    __table_args__ = (Index("ix_world_fact_events_user_id_fact_id", "user_id", "fact_id"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    fact_id: Mapped[int] = mapped_column(ForeignKey("world_facts.id", ondelete="CASCADE"))
    user_id: Mapped[str] = mapped_column(String(128))
    at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    from_status: Mapped[str] = mapped_column(String(16))
    to_status: Mapped[str] = mapped_column(String(16))
    writer: Mapped[str] = mapped_column(String(16))
    note: Mapped[str] = mapped_column(Text, default="")


@dataclass
class NewFact:
    """What a writer asks to record; the ledger adds the ids, times and chain."""

    subject: str
    predicate: str
    object: str
    tier: str
    confidence: float = 1.0
    note: str = ""
    source_message_id: str | None = None
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    followup_after: datetime | None = None
    followup_until: datetime | None = None
    dedupe_key: str | None = None


def _lock_key(session: Session, user_id: str) -> Any:
    """An expression that takes the world's lock when selected (PostgreSQL), else a harmless constant."""
    if session.get_bind().dialect.name == "postgresql":
        return func.pg_advisory_xact_lock(zlib.crc32(f"ledger:{user_id}".encode()) - 2**31)
    return literal(None)


def lock_world(session: Session, user_id: str) -> None:
    """Serialise ledger writes to one user's world until the transaction ends.

    PostgreSQL: a transaction-scoped advisory lock on the user, so contest marking (which updates several
    rows) cannot deadlock with a concurrent supersession. SQLite: BEGIN IMMEDIATE already serialises writers.
    """
    if session.get_bind().dialect.name == "postgresql":
        session.execute(select(_lock_key(session, user_id)))


def _record_events(session: Session, rows: Sequence[dict[str, Any]]) -> None:
    """Status changes, as one Core INSERT (no unit-of-work flush on the hot path)."""
    if rows:
        session.execute(insert(FactEvent), list(rows))


def _event(fact_id: int, user_id: str, old: str, new: str, writer: str, note: str, at: datetime) -> dict[str, Any]:
    return {"fact_id": fact_id, "user_id": user_id, "at": at, "from_status": old, "to_status": new,
            "writer": writer, "note": note}  # fmt: skip


def _insert(
    session: Session, user_id: str, new: NewFact, writer: Writer, now: datetime, chain: str, supersedes: int | None
) -> WorldFact | None:
    values = {
        "user_id": user_id,
        "chain": chain,
        "tier": Tier(new.tier).value,
        "status": Status.ACTIVE.value,
        "subject": new.subject[:200],
        "predicate": new.predicate[:120],
        "object": new.object[:400],
        "confidence": float(new.confidence),
        "source_message_id": new.source_message_id,
        "note": new.note,
        "written_by": writer.value,
        "supersedes": supersedes,
        "valid_from": new.valid_from or now,
        "valid_until": new.valid_until,
        "recorded_at": now,
        "followup_after": new.followup_after,
        "followup_until": new.followup_until,
        "dedupe_key": new.dedupe_key,
    }
    stmt = _insert_statement(session.get_bind().dialect.name, new.dedupe_key is not None)
    return session.scalars(stmt, values).one_or_none()


@cache
def _insert_statement(dialect: str, dedupe: bool) -> Any:
    """Built once per dialect: the hot path only binds values (statement building was half its time)."""
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as dialect_insert_
    else:
        from sqlalchemy.dialects.sqlite import insert as dialect_insert_
    columns = [c.key for c in WorldFact.__table__.columns if c.key not in {"id", *_NOT_INSERTED}]
    stmt = dialect_insert_(WorldFact).values({key: bindparam(key) for key in columns})
    if dedupe:
        stmt = stmt.on_conflict_do_nothing(index_elements=["dedupe_key"])
    return stmt.returning(WorldFact)


_NOT_INSERTED = {"retired_at", "status_note"}
_SUPERSEDE = (
    update(WorldFact)
    .where(
        WorldFact.id == bindparam("old_id"),
        WorldFact.user_id == bindparam("uid"),
        WorldFact.status.in_([s.value for s in LIVE]),
    )
    .values(
        status=Status.SUPERSEDED.value,
        retired_at=bindparam("now"),
        valid_until=func.coalesce(WorldFact.valid_until, bindparam("until")),
        status_note=bindparam("reason"),
    )
    .returning(WorldFact.id)
    .execution_options(synchronize_session=False)
)


def _settle_contest(
    session: Session, user_id: str, subject: str, predicate: str, tier: str, writer: str, now: datetime
) -> None:
    """Mark the live facts of (subject, predicate, tier) contested when they disagree, active when they no
    longer do (the other side was superseded or retired). One indexed SELECT when nothing changes."""
    live = session.execute(
        select(WorldFact.id, WorldFact.status, WorldFact.object).where(
            WorldFact.user_id == user_id,
            WorldFact.subject == subject,
            WorldFact.predicate == predicate,
            WorldFact.tier == tier,
            WorldFact.status.in_([s.value for s in LIVE]),
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
    _record_events(session, [_event(row.id, user_id, row.status, target.value, writer, note, now) for row in changed])


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
    fact = _insert(session, user_id, new, writer, now, uuid.uuid4().hex, None)
    if fact is not None:
        _settle_contest(session, user_id, fact.subject, fact.predicate, fact.tier, writer.value, now)
    return fact


def supersede(
    session: Session,
    user_id: str,
    old_id: int,
    new: NewFact,
    writer: Writer | str,
    now: datetime | None = None,
    reason: str = "",
) -> WorldFact:
    """Atomically replace a live fact: the old one becomes superseded, the new one active with ``supersedes``.

    Of two concurrent supersessions of one fact exactly one wins; the other raises FactConflict (the
    conditional UPDATE finds the fact no longer live; the partial unique index on the chain backs it up).
    """
    writer = Writer(writer)
    now = now or utcnow()
    if session.get_bind().dialect.name == "postgresql":
        return _supersede_in_one_statement(session, user_id, old_id, new, writer, now, reason)
    # The world's lock and the old fact in one round trip; the conditional UPDATE below re-checks liveness
    # after the lock, so the read's earlier snapshot cannot let two supersessions both win.
    old = session.execute(
        select(
            WorldFact.tier,
            WorldFact.chain,
            WorldFact.status,
            WorldFact.subject,
            WorldFact.predicate,
            _lock_key(session, user_id),
        ).where(WorldFact.id == old_id, WorldFact.user_id == user_id)
    ).one_or_none()
    if old is None:
        raise FactConflict(f"fact {old_id} is not in this user's world")
    check_supersede(writer, old.tier, new.tier)
    params = {
        "old_id": old_id,
        "uid": user_id,
        "now": now,
        "until": new.valid_from or now,
        "reason": reason or "superseded by a newer fact",
    }
    superseded = session.execute(_SUPERSEDE, params).scalar_one_or_none()
    _expire_loaded(session, old_id)
    if superseded is None:
        raise FactConflict(f"fact {old_id} is no longer live (status {old.status}): superseded or retired first")
    _record_events(session, [_event(old_id, user_id, old.status, Status.SUPERSEDED.value, writer.value, reason, now)])
    fact = _insert(session, user_id, new, writer, now, old.chain, old_id)
    if fact is None:
        raise FactConflict(f"the replacement of fact {old_id} was recorded before ({new.dedupe_key})")
    _settle_contest(session, user_id, old.subject, old.predicate, old.tier, writer.value, now)
    if (fact.subject, fact.predicate, fact.tier) != (old.subject, old.predicate, old.tier):
        _settle_contest(session, user_id, fact.subject, fact.predicate, fact.tier, writer.value, now)
    return fact


_SUPERSEDE_PG = text(
    """
    WITH old AS (
        SELECT id, status, tier, chain, subject, predicate FROM world_facts
        WHERE id = :old_id AND user_id = :uid AND pg_advisory_xact_lock(:lock) IS NOT NULL
    ), upd AS (
        UPDATE world_facts w
        SET status = 'superseded', retired_at = :now, valid_until = COALESCE(w.valid_until, :valid_from),
            status_note = :reason
        FROM old
        WHERE w.id = old.id AND w.status IN ('active', 'contested') AND old.tier = ANY(:writable)
        RETURNING old.status AS old_status, old.tier AS old_tier, old.subject AS old_subject,
                  old.predicate AS old_predicate, w.chain
    ), event AS (
        INSERT INTO world_fact_events (fact_id, user_id, at, from_status, to_status, writer, note)
        SELECT :old_id, :uid, :now, upd.old_status, 'superseded', :writer, :reason FROM upd
    ), ins AS (
        INSERT INTO world_facts (user_id, chain, tier, status, subject, predicate, object, confidence,
            source_message_id, note, written_by, supersedes, valid_from, valid_until, recorded_at, followup_after,
            followup_until, dedupe_key)
        SELECT :uid, upd.chain, :tier, 'active', :subject, :predicate, :object, :confidence, :source_message_id,
            :note, :writer, :old_id, :valid_from, :valid_until, :now, :followup_after, :followup_until, :dedupe_key
        FROM upd
        ON CONFLICT (dedupe_key) DO NOTHING
        RETURNING *
    )
    SELECT ins.*, upd.old_tier, upd.old_subject, upd.old_predicate FROM ins, upd
    """
).columns(
    *WorldFact.__table__.columns,
    column("old_tier", String),
    column("old_subject", String),
    column("old_predicate", String),
)


def _expire_loaded(session: Session, fact_id: int) -> None:
    """The old fact may be loaded in this session already: reload it now rather than show it live (a SELECT only
    in that case, which the hot path does not hit)."""
    loaded = session.identity_map.get(session.identity_key(WorldFact, fact_id))
    if loaded is not None:
        session.refresh(loaded)


def _supersede_in_one_statement(
    session: Session, user_id: str, old_id: int, new: NewFact, writer: Writer, now: datetime, reason: str
) -> WorldFact:
    """PostgreSQL: lock, conditional UPDATE, status event and INSERT in one round trip (a writable CTE).

    The advisory lock is taken while the old row is read; the UPDATE then re-checks liveness on the row's
    latest version (READ COMMITTED re-evaluates its WHERE after waiting), so of two concurrent supersessions
    one finds the fact already superseded and inserts nothing. Nothing inserted means a conflict, a trust
    violation or a duplicate: one more query says which, and the caller's transaction is rolled back.
    """
    check_write(writer, new.tier)
    params = {
        "old_id": old_id,
        "uid": user_id,
        "lock": zlib.crc32(f"ledger:{user_id}".encode()) - 2**31,
        "now": now,
        "reason": reason or "superseded by a newer fact",
        "writable": [t.value for t in WRITABLE[writer]],
        "writer": writer.value,
        "tier": Tier(new.tier).value,
        "subject": new.subject[:200],
        "predicate": new.predicate[:120],
        "object": new.object[:400],
        "confidence": float(new.confidence),
        "source_message_id": new.source_message_id,
        "note": new.note,
        "valid_from": new.valid_from or now,
        "valid_until": new.valid_until,
        "followup_after": new.followup_after,
        "followup_until": new.followup_until,
        "dedupe_key": new.dedupe_key,
    }
    query = select(WorldFact, column("old_tier"), column("old_subject"), column("old_predicate"))
    row = session.execute(query.from_statement(_SUPERSEDE_PG), params).one_or_none()
    if row is None:
        old = session.execute(
            select(WorldFact.tier, WorldFact.status).where(WorldFact.id == old_id, WorldFact.user_id == user_id)
        ).one_or_none()
        if old is None:
            raise FactConflict(f"fact {old_id} is not in this user's world")
        check_supersede(writer, old.tier, new.tier)
        if old.status in LIVE:
            raise FactConflict(f"the replacement of fact {old_id} was recorded before ({new.dedupe_key})")
        raise FactConflict(f"fact {old_id} is no longer live (status {old.status}): superseded or retired first")
    fact, old_tier, old_subject, old_predicate = row
    _expire_loaded(session, old_id)
    _settle_contest(session, user_id, old_subject, old_predicate, old_tier, writer.value, now)
    if (fact.subject, fact.predicate, fact.tier) != (old_subject, old_predicate, old_tier):
        _settle_contest(session, user_id, fact.subject, fact.predicate, fact.tier, writer.value, now)
    return fact


def retire(
    session: Session, user_id: str, fact_id: int, writer: Writer | str, reason: str, now: datetime | None = None
) -> WorldFact:
    """Withdraw a live fact without a replacement (kept, with the reason, for history)."""
    writer = Writer(writer)
    now = now or utcnow()
    lock_world(session, user_id)
    fact = session.scalars(select(WorldFact).where(WorldFact.id == fact_id, WorldFact.user_id == user_id)).one_or_none()
    if fact is None or fact.status not in LIVE:
        raise FactConflict(f"fact {fact_id} is not live in this user's world")
    check_supersede(writer, fact.tier, fact.tier)
    _record_events(session, [_event(fact.id, user_id, fact.status, Status.RETIRED.value, writer.value, reason, now)])
    fact.status, fact.retired_at, fact.status_note = Status.RETIRED.value, now, reason
    fact.valid_until = fact.valid_until or now
    session.flush()
    _settle_contest(session, user_id, fact.subject, fact.predicate, fact.tier, writer.value, now)
    return fact


def resolve_contest(
    session: Session,
    user_id: str,
    winner_id: int,
    loser_ids: Sequence[int],
    writer: Writer | str,
    reason: str,
    now: datetime | None = None,
) -> None:
    """The winner of a contest becomes active, the losers superseded with the reason in their note."""
    writer = Writer(writer)
    now = now or utcnow()
    lock_world(session, user_id)
    ids = [winner_id, *loser_ids]
    facts = {
        f.id: f for f in session.scalars(select(WorldFact).where(WorldFact.user_id == user_id, WorldFact.id.in_(ids)))
    }
    if set(facts) != set(ids) or any(f.status not in LIVE for f in facts.values()):
        raise FactConflict("a fact of this contest is no longer live: resolved or changed since")
    for loser_id in loser_ids:
        loser = facts[loser_id]
        note = f"lost a contest to fact {winner_id}: {reason}"
        _record_events(session, [_event(loser_id, user_id, loser.status, "superseded", writer.value, note, now)])
        loser.status, loser.retired_at, loser.status_note = Status.SUPERSEDED.value, now, note
        loser.valid_until = loser.valid_until or now
    session.flush()
    winner = facts[winner_id]
    _settle_contest(session, user_id, winner.subject, winner.predicate, winner.tier, writer.value, now)
    if winner.status != Status.ACTIVE:  # still disputed by a fact outside this contest
        raise FactConflict(f"fact {winner_id} is still contested by a fact outside this contest")
    winner.status_note = f"won a contest: {reason}"


def _subject_filter(prefix: str | None) -> Any:
    if not prefix:
        return True
    exact, low, high = subject_range(prefix)
    return or_(WorldFact.subject == exact, and_(WorldFact.subject >= low, WorldFact.subject < high))


def current(session: Session, user_id: str, subject_prefix: str | None = None) -> list[WorldFact]:
    """The live facts (active or contested) of the user's world, optionally under a subject."""
    return list(
        session.scalars(
            select(WorldFact)
            .where(
                WorldFact.user_id == user_id,
                WorldFact.status.in_([s.value for s in LIVE]),
                _subject_filter(subject_prefix),
            )
            .order_by(WorldFact.subject, WorldFact.predicate, WorldFact.id)
        )
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


def _weather_is_stale(weather: WorldFact | None, zone: ZoneInfo, today: date) -> bool:
    """Weather holds for the local day it was set (an operator's change stands until the next day)."""
    return weather is not None and weather.tier == Tier.CANON and weather.valid_from.astimezone(zone).date() < today


def _age_now(session: Session, age: WorldFact, now: datetime) -> str:
    """The cat's age today: the anchor's age rolled forward from when its chain began."""
    born = session.scalar(select(func.min(WorldFact.valid_from)).where(WorldFact.chain == age.chain)) or now
    return str(cat_age(born, now))


def world_facts(session: Session, user_id: str, now: datetime | None = None) -> list[WorldFact]:
    """The user's live facts, after the world's clock has caught up (lazily, on read).

    A new world gets the seed's anchors; the day's weather and the cat's age are rolled forward by the world
    tick when stale. Nothing is written when nothing is stale: a read costs three small indexed queries.
    """
    now = now or utcnow()
    facts = current(session, user_id)
    zone = user_zone(session, user_id)
    today = now.astimezone(zone).date()
    by_subject = {f.subject: f for f in facts if f.tier == Tier.CANON}
    stale = not by_subject or _weather_is_stale(by_subject.get(WEATHER_SUBJECT), zone, today)
    age = by_subject.get(AGE_SUBJECT)
    stale = stale or (age is not None and _age_now(session, age, now) != age.object)
    if not stale:
        return facts
    tick_world(session, user_id, now, zone)
    return current(session, user_id)


def tick_world(session: Session, user_id: str, now: datetime, zone: ZoneInfo) -> None:
    """Write what the world's clock owes: the anchors of a new world, today's weather, the cat's birthday."""
    lock_world(session, user_id)
    today = now.astimezone(zone).date()
    for anchor in seed_anchors(user_id, today):
        new = NewFact(anchor.subject, anchor.predicate, anchor.object, Tier.CANON.value, note=anchor.note,
                      dedupe_key=f"anchor:{user_id}:{anchor.subject}")  # fmt: skip
        append(session, user_id, new, Writer.ANCHOR, now)
    live = {f.subject: f for f in current(session, user_id, "world") + current(session, user_id, "companion")}
    weather = live.get(WEATHER_SUBJECT)
    if weather is not None and _weather_is_stale(weather, zone, today):
        forecast = weather_for(user_id, today)
        new = NewFact(WEATHER_SUBJECT, "weather", forecast, Tier.CANON.value, note=f"weather for {today}",
                      dedupe_key=f"weather:{user_id}:{today}")  # fmt: skip
        supersede(session, user_id, weather.id, new, Writer.WORLD_TICK, now, reason="a new day")
    age = live.get(AGE_SUBJECT)
    if age is not None and age.tier == Tier.CANON:
        years = _age_now(session, age, now)
        if years != age.object:
            new = NewFact(AGE_SUBJECT, "age_years", years, Tier.CANON.value, note="a birthday",
                          dedupe_key=f"age:{user_id}:{years}")  # fmt: skip
            supersede(session, user_id, age.id, new, Writer.WORLD_TICK, now, reason="a year went by")

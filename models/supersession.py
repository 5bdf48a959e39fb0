"""Where a fact is superseded: replaced by a newer fact (``supersede``) or beaten in a contest (``resolve_contest``).

A supersession has one meaning. Under the user's world lock, the old fact is marked superseded only if it is
still live in this user's world and the trust rule lets this writer replace its tier (one conditional UPDATE,
``_mark_superseded``); the change is a status event; the new fact is inserted into the old one's chain with
``supersedes`` (and the whole supersession refused when its dedupe key was recorded before); then the contests
of both facts' (subject, predicate, tier) are settled. Of two concurrent supersessions of one fact one wins; the
other finds the fact no longer live and gets FactConflict (the partial unique index on the chain backs it up).

Two ways to run those steps, one meaning:

- **In steps**, on every database: the lock and the old row in one SELECT, the trust rule checked in Python
  (``check_supersede``), then the UPDATE, the event and the INSERT (``insert_fact``).
- **In one statement**, on PostgreSQL (``ONE_STATEMENT_DIALECTS``): a writable CTE, one round trip instead of
  four, kept for speed (bench/ledger.py: about 1.5 ms per supersession at 1M facts; at 100k, 1.9 ms against
  3.6-4.2 ms in steps, measured with ``--steps``). It is built from the same UPDATE, the INSERT's column list
  from the table's metadata (``INSERTED_COLUMNS``) and the same trust rule: the old fact's tier must be in
  ``rules.replaceable_tiers(writer, new tier)``, the set ``check_supersede`` is defined by. When the statement
  changes nothing, the same Python checks say why.

tests/test_ledger.py runs every supersession test on both ways (emptying ``ONE_STATEMENT_DIALECTS`` forces the
steps on PostgreSQL).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from functools import cache
from typing import Any

from sqlalchemy import (
    BigInteger,
    ColumnElement,
    Select,
    String,
    Update,
    bindparam,
    func,
    insert,
    literal,
    select,
    true,
    update,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.orm import Session, aliased

from ella.ledger.facts import NewFact
from ella.ledger.rules import LIVE, FactConflict, Status, Writer, check_supersede, check_write, replaceable_tiers
from models.base import UTCDateTime, utcnow
from models.ledger import (
    INSERTED_COLUMNS,
    FactEvent,
    WorldFact,
    event_row,
    fact_row,
    insert_fact,
    lock_key,
    lock_world,
    record_events,
    settle_contest,
    world_lock_id,
)

ONE_STATEMENT_DIALECTS: frozenset[str] = frozenset({"postgresql"})
DEFAULT_REASON = "superseded by a newer fact"


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

    Raises TrustViolation when the writer may not replace the old fact's tier with the new one's, FactConflict
    when the fact is not live in this user's world (a concurrent supersession won) or the replacement's dedupe
    key was recorded before; the caller's transaction is then rolled back.
    """
    writer = Writer(writer)
    now = now or utcnow()
    check_write(writer, new.tier)
    params = {
        "old_id": old_id,
        "uid": user_id,
        "now": now,
        "until": new.valid_from or now,
        "reason": reason or DEFAULT_REASON,
        "replaceable": sorted(t.value for t in replaceable_tiers(writer, new.tier)),
    }
    if session.get_bind().dialect.name in ONE_STATEMENT_DIALECTS:
        return _in_one_statement(session, user_id, old_id, new, writer, now, params)
    return _in_steps(session, user_id, old_id, new, writer, now, params)


def _mark_superseded() -> Update:
    """The conditional UPDATE both ways share: the fact becomes superseded only while it is live in this user's
    world and of a tier the writer may replace; it stops holding in the world when its replacement starts."""
    return (
        update(WorldFact)
        .where(
            WorldFact.id == bindparam("old_id"),
            WorldFact.user_id == bindparam("uid"),
            WorldFact.status.in_([s.value for s in LIVE]),
            WorldFact.tier.in_(bindparam("replaceable", expanding=True)),
        )
        .values(
            status=Status.SUPERSEDED.value,
            retired_at=bindparam("now"),
            valid_until=func.coalesce(WorldFact.valid_until, bindparam("until")),
            status_note=bindparam("reason"),
        )
    )


_MARK_IN_STEPS = _mark_superseded().returning(WorldFact.id).execution_options(synchronize_session=False)


def _in_steps(
    session: Session, user_id: str, old_id: int, new: NewFact, writer: Writer, now: datetime, params: dict[str, Any]
) -> WorldFact:
    # The world's lock and the old fact in one round trip; the conditional UPDATE re-checks liveness after the
    # lock, so the read's earlier snapshot cannot let two supersessions both win.
    old = session.execute(
        select(
            WorldFact.tier,
            WorldFact.chain,
            WorldFact.status,
            WorldFact.subject,
            WorldFact.predicate,
            lock_key(session, user_id),
        ).where(WorldFact.id == old_id, WorldFact.user_id == user_id)
    ).one_or_none()
    if old is None:
        raise _not_in_world(old_id)
    check_supersede(writer, old.tier, new.tier)
    superseded = session.execute(_MARK_IN_STEPS, params).scalar_one_or_none()
    _expire_loaded(session, old_id)
    if superseded is None:
        raise _no_longer_live(old_id, old.status)
    event = event_row(old_id, user_id, old.status, Status.SUPERSEDED.value, writer.value, params["reason"], now)
    record_events(session, [event])
    fact = insert_fact(session, user_id, new, writer, now, old.chain, old_id)
    if fact is None:
        raise _recorded_before(old_id, new)
    _settle(session, user_id, writer, now, fact, old.subject, old.predicate, old.tier)
    return fact


@cache
def _one_statement() -> Select[Any]:
    """PostgreSQL: the lock, the conditional UPDATE, the status event and the INSERT as one writable CTE.

    The advisory lock is taken while the old row is read; the UPDATE then re-checks liveness on the row's latest
    version (READ COMMITTED re-evaluates its WHERE after waiting), so of two concurrent supersessions one finds
    the fact superseded and changes nothing. The result has one row when the UPDATE happened, with the new fact
    (None when its dedupe key was recorded before) and what the old fact was.
    """
    lock = func.pg_advisory_xact_lock(bindparam("lock", type_=BigInteger))
    old = (
        select(WorldFact.id, WorldFact.status, WorldFact.tier, WorldFact.subject, WorldFact.predicate)
        .where(WorldFact.id == bindparam("old_id"), WorldFact.user_id == bindparam("uid"), lock.is_not(None))
        .cte("old")
    )
    upd = (
        _mark_superseded()
        .where(WorldFact.id == old.c.id)
        .returning(
            WorldFact.chain,
            old.c.status.label("old_status"),
            old.c.tier.label("old_tier"),
            old.c.subject.label("old_subject"),
            old.c.predicate.label("old_predicate"),
        )
        .cte("upd")
    )
    event_values: dict[str, ColumnElement[Any]] = {
        "fact_id": bindparam("old_id", type_=BigInteger),
        "user_id": bindparam("uid", type_=String),
        "at": bindparam("now", type_=UTCDateTime()),
        "from_status": upd.c.old_status,
        "to_status": literal(Status.SUPERSEDED.value, String),
        "writer": bindparam("writer", type_=String),
        "note": bindparam("reason", type_=String),
    }
    event = (
        insert(FactEvent).from_select(list(event_values), select(*event_values.values()).select_from(upd)).cte("event")
    )
    new_values: list[ColumnElement[Any]] = [
        upd.c.chain
        if c.key == "chain"
        else bindparam("old_id", type_=BigInteger)
        if c.key == "supersedes"
        else bindparam(f"new_{c.key}", type_=c.type)
        for c in INSERTED_COLUMNS
    ]
    ins = (
        pg_insert(WorldFact)
        .from_select([c.key for c in INSERTED_COLUMNS], select(*new_values).select_from(upd))
        .on_conflict_do_nothing(index_elements=["dedupe_key"])
        .returning(*WorldFact.__table__.columns)
        .cte("ins")
    )
    fact = aliased(WorldFact, ins, name="fact")
    return (
        select(fact, upd.c.old_tier, upd.c.old_subject, upd.c.old_predicate)
        .select_from(upd)
        .outerjoin(ins, true())
        .add_cte(event)
    )


def _in_one_statement(
    session: Session, user_id: str, old_id: int, new: NewFact, writer: Writer, now: datetime, params: dict[str, Any]
) -> WorldFact:
    row = {f"new_{key}": value for key, value in fact_row(user_id, new, writer, now).items()}
    values = {**params, **row, "lock": world_lock_id(user_id), "writer": writer.value}
    result = session.execute(_one_statement(), values).one_or_none()
    _expire_loaded(session, old_id)
    if result is None:  # nothing changed: the same checks as the steps say why
        old = session.execute(
            select(WorldFact.tier, WorldFact.status).where(WorldFact.id == old_id, WorldFact.user_id == user_id)
        ).one_or_none()
        if old is None:
            raise _not_in_world(old_id)
        check_supersede(writer, old.tier, new.tier)
        raise _no_longer_live(old_id, old.status)
    fact: WorldFact | None = result[0]
    old_tier, old_subject, old_predicate = result[1:]
    if fact is None:
        raise _recorded_before(old_id, new)
    _settle(session, user_id, writer, now, fact, old_subject, old_predicate, old_tier)
    return fact


def _settle(
    session: Session,
    user_id: str,
    writer: Writer,
    now: datetime,
    fact: WorldFact,
    old_subject: str,
    old_predicate: str,
    old_tier: str,
) -> None:
    """The old fact's contest may be over, and the new one may start one."""
    settle_contest(session, user_id, old_subject, old_predicate, old_tier, writer.value, now)
    if (fact.subject, fact.predicate, fact.tier) != (old_subject, old_predicate, old_tier):
        settle_contest(session, user_id, fact.subject, fact.predicate, fact.tier, writer.value, now)


def _expire_loaded(session: Session, fact_id: int) -> None:
    """The old fact may be loaded in this session already: reload it now rather than show it live (a SELECT only
    in that case, which the hot path does not hit)."""
    loaded = session.identity_map.get(session.identity_key(WorldFact, fact_id))
    if loaded is not None:
        session.refresh(loaded)


def _not_in_world(old_id: int) -> FactConflict:
    return FactConflict(f"fact {old_id} is not in this user's world")


def _no_longer_live(old_id: int, status: str) -> FactConflict:
    return FactConflict(f"fact {old_id} is no longer live (status {status}): superseded or retired first")


def _recorded_before(old_id: int, new: NewFact) -> FactConflict:
    return FactConflict(f"the replacement of fact {old_id} was recorded before ({new.dedupe_key})")


def resolve_contest(
    session: Session,
    user_id: str,
    winner_id: int,
    loser_ids: Sequence[int],
    writer: Writer | str,
    reason: str,
    now: datetime | None = None,
) -> None:
    """The winner of a contest becomes active, the losers superseded with the reason in their note.

    A loser has no replacement row (the winner was there already), so this is the other way a fact becomes
    superseded; the resolver writes no tier, so no trust rule applies, only liveness.
    """
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
        event = event_row(loser_id, user_id, loser.status, Status.SUPERSEDED.value, writer.value, note, now)
        record_events(session, [event])
        loser.status, loser.retired_at, loser.status_note = Status.SUPERSEDED.value, now, note
        loser.valid_until = loser.valid_until or now
    session.flush()
    winner = facts[winner_id]
    settle_contest(session, user_id, winner.subject, winner.predicate, winner.tier, writer.value, now)
    if winner.status != Status.ACTIVE:  # still disputed by a fact outside this contest
        raise FactConflict(f"fact {winner_id} is still contested by a fact outside this contest")
    winner.status_note = f"won a contest: {reason}"

"""What a commit still owes the rest of the pipeline: the tasks it must emit, written in the commit itself.

Why: a committed turn has derived effects (its memory, its facts, the conversation it closed, the pictures its
reply named), and so has a sent notification (Ella's memory of reaching out) and a closed conversation (its
memo). They used to be emitted after the commit by whichever path happened to publish the reply first; a worker
killed after the commit, or a broker that was unreachable at that moment, left the turn answered but never
remembered, and the repeat and sweep paths published only. Here the emits are rows of the same transaction (a
transactional outbox for tasks): after the commit the path that committed sends them and deletes the row;
``ella.send_pending_effects`` (beat) sends any row left behind, with backoff. Every receiving task is idempotent
for its source (perceive per source message, extraction per message, the memo per conversation, an anchor is
never drawn twice), so a row sent twice (a kill between the send and the delete) changes nothing: each effect
happens exactly once.

One row per commit, holding all its emits: one INSERT and one DELETE on the hot path, not one per effect.
The rows hold the user's words (perceive's description), so they are the user's data: the erasure deletes them
with the user, and forgetting a message deletes the rows it left (``forget_sources``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

from sqlalchemy import BindParameter, ForeignKey, Index, String, Text, bindparam, delete, or_, select, update
from sqlalchemy.orm import Mapped, Session, mapped_column

from models.base import Base, BigId, UTCDateTime, table_of, utcnow
from models.outbox import OutboxRecord


class PendingEffects(Base):
    __tablename__ = "pending_effects"
    __table_args__ = (
        Index("ix_pending_effects_next_at", "next_at"),
        Index("ix_pending_effects_user_id_source", "user_id", "source"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    source: Mapped[str] = mapped_column(
        String(200), comment="what the effects derive from: a message_id, notification:<id>, conversation:<id>"
    )
    effects: Mapped[str] = mapped_column(Text, comment="JSON list of {task, kwargs, kwargsrepr}")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    next_at: Mapped[datetime] = mapped_column(UTCDateTime(), comment="when the sweep may send it")
    attempts: Mapped[int] = mapped_column(default=0)
    after_outbox_id: Mapped[int | None] = mapped_column(
        ForeignKey("outbox_records.id", ondelete="CASCADE"),
        comment="sent only once this outbox record is published: Ella remembers a notification the user got",
    )


@dataclass(frozen=True)
class Effect:
    """One task to emit: its registered name, its kwargs, and what logs and Flower show of them."""

    task: str
    kwargs: dict[str, Any]
    kwargsrepr: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {"task": self.task, "kwargs": self.kwargs, "kwargsrepr": self.kwargsrepr}


@dataclass(frozen=True)
class Owed:
    """A row's effects, as read back for sending."""

    id: int
    user_id: str
    source: str
    attempts: int
    effects: list[Effect]


def owe(
    session: Session,
    user_id: str,
    source: str,
    effects: list[Effect],
    grace: timedelta,
    after_outbox_id: int | None = None,
) -> PendingEffects | None:
    """Record ``effects`` in the caller's transaction; the sweep leaves them to the committing path for ``grace``,
    and with ``after_outbox_id`` until that outbox record is published. Nothing is written for no effects."""
    if not effects:
        return None
    now = utcnow()
    row = PendingEffects(
        user_id=user_id,
        source=source,
        effects=json.dumps([e.as_json() for e in effects], separators=(",", ":")),
        created_at=now,
        next_at=now + grace,
        after_outbox_id=after_outbox_id,
    )
    session.add(row)
    return row


def owed_of(row: PendingEffects) -> Owed:
    """A row as the sender takes it (no query: the row the committing session still holds, or one just read)."""
    raw = json.loads(row.effects)
    effects = [Effect(e["task"], dict(e["kwargs"]), e.get("kwargsrepr")) for e in raw]
    return Owed(row.id, row.user_id, row.source, row.attempts, effects)


def owed_by_ids(session: Session, ids: list[int]) -> list[Owed]:
    if not ids:
        return []
    rows = session.scalars(select(PendingEffects).where(PendingEffects.id.in_(ids)).order_by(PendingEffects.id))
    return [owed_of(row) for row in rows]


def owed_for(session: Session, user_id: str, source: str) -> list[Owed]:
    """What this user's ``source`` still owes (a repeat delivery of a committed turn sends it)."""
    rows = session.scalars(
        select(PendingEffects)
        .where(PendingEffects.user_id == user_id, PendingEffects.source == source)
        .order_by(PendingEffects.id)
    )
    return [owed_of(row) for row in rows]


def due(session: Session, now: datetime, limit: int) -> list[Owed]:
    """Rows the sweep may send now, oldest first: past their grace, and published if they wait on a record."""
    p, o = PendingEffects, OutboxRecord
    rows = session.scalars(
        select(p)
        .outerjoin(o, o.id == p.after_outbox_id)
        .where(p.next_at <= now, or_(p.after_outbox_id.is_(None), o.published_at.is_not(None)))
        .order_by(p.next_at, p.id)
        .limit(limit)
    )
    return [owed_of(row) for row in rows]


def drop_unpublished(session: Session, before: datetime) -> int:
    """Rows still waiting on a record that was never published, written before ``before``: a notification that
    went stale unsent is not something Ella said, so she does not remember saying it."""
    p, o = PendingEffects, OutboxRecord
    stale = (
        select(p.id)
        .join(o, o.id == p.after_outbox_id)
        .where(p.created_at < before, o.published_at.is_(None))
        .scalar_subquery()
    )
    return int(getattr(session.execute(delete(p).where(p.id.in_(stale))), "rowcount", 0) or 0)


def claim(session: Session, owed: Owed, now: datetime, backoff: timedelta) -> bool:
    """Take ``owed`` for one send attempt: push its ``next_at`` out by ``backoff`` unless another sweep took it
    first (its ``attempts`` moved). False when taken; the caller then leaves it alone."""
    result = session.execute(
        update(PendingEffects)
        .where(PendingEffects.id == owed.id, PendingEffects.attempts == owed.attempts)
        .values(attempts=owed.attempts + 1, next_at=now + backoff)
    )
    return bool(getattr(result, "rowcount", 0))


def mark_published(
    session: Session, record: OutboxRecord, published_at: datetime, stream_id: str, settled: list[int]
) -> None:
    """Note ``record`` as published under ``stream_id`` and settle the ``settled`` rows (their effects were sent
    once it was): on PostgreSQL one statement (the DELETE a data-modifying CTE of the UPDATE), elsewhere two in
    the caller's transaction. Why together: a turn's hot path ended with the publish mark and the settle as two
    round trips of their own (issue 35)."""
    params = {"b_id": record.id, "b_user_id": record.user_id, "b_published_at": published_at, "b_stream_id": stream_id}
    if settled and session.get_bind().dialect.name == "postgresql":
        session.execute(_marking(True), {**params, "b_settled": settled})
        return
    session.execute(_marking(False), params)
    settle(session, settled)


@lru_cache(maxsize=2)
def _marking(settles: bool) -> Any:
    """``mark_published``'s statement, built once with bound parameters (``settles``: with the DELETE as a CTE).

    On the tables, not the mapped classes: an UPDATE of a mapped class runs the ORM's bulk-update machinery on
    every call (it would synchronise objects of the session; the caller's session holds none), 0.57 against 0.29 ms
    of CPU per call on PostgreSQL, alternating 500-call loops."""
    outbox, owed = table_of(OutboxRecord), table_of(PendingEffects)
    o, p = outbox.c, owed.c
    user_id = bindparam("b_user_id", type_=String())
    mark = (
        update(outbox)
        .where(o.id == bindparam("b_id"), o.user_id == user_id)
        .values(published_at=bindparam("b_published_at", type_=UTCDateTime()), stream_id=bindparam("b_stream_id"))
    )
    if not settles:
        return mark
    ids: BindParameter[list[int]] = bindparam("b_settled", expanding=True)
    settled = delete(owed).where(p.id.in_(ids), p.user_id == user_id).returning(p.id)
    return mark.add_cte(settled.cte("settled"))


def settle(session: Session, ids: list[int]) -> int:
    """The effects of these rows were sent: they are owed no more. (On the table: the ORM's bulk delete looks for
    the rows among the session's objects first, and no caller's session holds them; 0.60-0.69 against 0.50-0.51 ms
    of CPU a call with its commit on PostgreSQL.)"""
    if not ids:
        return 0
    owed = table_of(PendingEffects)
    result = session.execute(delete(owed).where(owed.c.id.in_(ids)))
    return int(getattr(result, "rowcount", 0) or 0)


def forget_sources(session: Session, user_id: str, sources: list[str]) -> int:
    """A forgotten message's unsent effects go with it (they carry its words)."""
    if not sources:
        return 0
    stmt = delete(PendingEffects).where(PendingEffects.user_id == user_id, PendingEffects.source.in_(sources))
    return int(getattr(session.execute(stmt), "rowcount", 0) or 0)

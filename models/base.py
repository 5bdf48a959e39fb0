"""Declarative base and the column types every model shares.

Why custom types: SQLite has no time zone type, so aware datetimes are normalised to UTC on the way in and
come back aware on the way out, on both back ends alike; and SQLite only auto-increments ``INTEGER``
primary keys, so big integer ids fall back to ``INTEGER`` there.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import BigInteger, DateTime, Integer, MetaData, Table, func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import DeclarativeBase, Session
from sqlalchemy.types import TypeDecorator

NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

BigId = BigInteger().with_variant(Integer(), "sqlite")


class UTCDateTime(TypeDecorator[datetime]):
    """An aware datetime stored as UTC; naive values are refused rather than guessed."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: object) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime: store aware datetimes only")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: object) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


# An execution option asking for the rows in PostgreSQL's binary protocol where the driver can (psycopg; the
# engine's hook is ``adapters.db._binary_results_when_asked``; elsewhere ignored). For big reads whose decoding
# costs more than the query: vectors, timestamps (``models.memory.node_rows``).
BINARY_RESULTS_OPTION = "ella_binary_results"
BINARY_RESULTS = {BINARY_RESULTS_OPTION: True}


def utcnow() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


def table_of(model: type[Base]) -> Table:
    """A mapped class's table, for a hot statement written in Core.

    Why: an UPDATE, DELETE or INSERT written against the mapped class runs SQLAlchemy's bulk-DML machinery on
    every call (it looks for the rows among the session's objects to keep them in step, or asks for new ids back)
    though no hot caller's session holds them: from a third more to twice the CPU a call (``docs/scaling.md``,
    section 2). Only where no object of the session needs the change: the table's statement leaves them as they
    were.
    """
    return cast(Table, model.__table__)  # a declarative class maps one Table


# ``insert(table)`` of a dialect that knows ON CONFLICT; either one's statement has ``on_conflict_do_nothing``,
# ``on_conflict_do_update`` and ``excluded``, so callers type-check against both.
DialectInsert = Callable[[Any], postgresql.Insert | sqlite.Insert]


def dialect_insert(session: Session) -> DialectInsert:
    """The INSERT construct of the session's dialect, which knows ON CONFLICT (SQLite and PostgreSQL)."""
    dialect = session.get_bind().dialect.name
    if dialect == "postgresql":
        return postgresql.insert
    if dialect == "sqlite":
        return sqlite.insert
    raise NotImplementedError(f"unsupported dialect {dialect}")  # pragma: no cover - the two back ends only


def newest_per_user(session: Session, model: Any, user_ids: Sequence[str], *where: Any) -> list[Any]:
    """Each user's row of ``model`` with the greatest ``period`` (labels that sort as time: "2026-W48",
    "2026-11") among the rows ``where`` allows, one query for all the users; a user with none has no row. For
    the chapters and the arcs."""
    if not user_ids:
        return []
    newest = (
        select(model.user_id, func.max(model.period).label("period"))
        .where(model.user_id.in_(list(user_ids)), *where)
        .group_by(model.user_id)
        .subquery()
    )
    joined = (newest.c.user_id == model.user_id) & (newest.c.period == model.period)
    return list(session.scalars(select(model).join(newest, joined)))

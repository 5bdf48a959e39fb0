"""The world clock's writes: ``advance_world`` lays a new world's anchors and applies the ticks that are due.

Why one clearly named function: reading Ella's world used to write it behind a read's name
(``models.ledger.world_facts``). The decisions (which anchors, which ticks, the new values) are plain Python in
``ella.ledger.world_clock``; this module only loads what they need and stores what they return. Reads that
must never write use ``models.ledger.current``.

``world_versions`` is here too: a per-user counter that every committed write to a lazy-world subject bumps in
its own transaction, so a cached world (``adapters.world_cache``) can tell, with one primary-key lookup, whether
it was computed from the database as it is now, even when the write's Redis invalidation was lost.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from sqlalchemy import BigInteger, Connection, ForeignKey, String, bindparam, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Mapped, Session, mapped_column

from ella.ledger import world_clock
from models.base import Base
from models.ledger import WorldFact, append, chain_began, current, lock_world, user_zone
from models.supersession import supersede


def advance_world(session: Session, user_id: str, now: datetime) -> list[WorldFact]:
    """Catch the user's world up with its clock at ``now`` and return its live facts.

    Nothing is written when nothing is due: then it costs three small indexed queries (the live facts, the
    user's zone, when the cat's age chain began) and takes no lock. When something is due, the world's lock is
    taken and the decision is made again on a fresh read, so two callers at once write it once.
    """
    live = current(session, user_id)
    zone = user_zone(session, user_id)
    if not _due(session, user_id, live, now, zone):
        return live
    lock_world(session, user_id)
    for write in _due(session, user_id, current(session, user_id), now, zone):
        if write.replaces is None:
            append(session, user_id, write.new, write.writer, now)
        else:
            supersede(session, user_id, write.replaces, write.new, write.writer, now, reason=write.reason)
    return current(session, user_id)


def _due(
    session: Session, user_id: str, live: list[WorldFact], now: datetime, zone: ZoneInfo
) -> list[world_clock.ClockWrite]:
    age = world_clock.age_fact(live)
    began = chain_began(session, age) if age is not None else None
    return world_clock.due(user_id, live, zone, now, began)


class WorldVersion(Base):
    """How many committed transactions have written the user's lazy-world subjects (ticks included).

    Why a counter of its own and not ``max(world_facts.id)``: ids are handed out when a row is inserted, not when
    its transaction commits, so a write with a lower id can commit after a reader saw a higher one; and a
    retirement updates a row without inserting one. A counter bumped in the write's transaction moves exactly
    when the write becomes visible. Its own table, not a column of ``users``, so the bump (the last statement of
    a writing transaction) never waits on the user's row, which a tick's transaction touches first.
    """

    __tablename__ = "world_versions"

    user_id: Mapped[str] = mapped_column(String(128), ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    version: Mapped[int] = mapped_column(BigInteger, default=0, comment="bumped by every world-subject write")


_VERSION_OF = select(WorldVersion.__table__.c.version).where(WorldVersion.__table__.c.user_id == bindparam("user_id"))


def world_version(session: Session, user_id: str) -> int:
    """The user's world version now (0 before the first write): one primary-key lookup."""
    return int(session.execute(_VERSION_OF, {"user_id": user_id}).scalar() or 0)


def version_in(conn: Connection, user_id: str) -> int:
    """The same lookup on a Core connection (the lazy world's warm read: no ORM session for one row)."""
    return int(conn.execute(_VERSION_OF, {"user_id": user_id}).scalar() or 0)


def bump_world_version(session: Session, user_id: str) -> int:
    """Add one to the user's world version in the session's transaction and return the new value (an upsert:
    the row lock it takes is held until the commit, so concurrent writers are counted one by one)."""
    insert = pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
    upsert = insert(WorldVersion).values(user_id=user_id, version=1)
    stmt = upsert.on_conflict_do_update(
        index_elements=[WorldVersion.user_id], set_={"version": WorldVersion.version + 1}
    ).returning(WorldVersion.version)
    return int(session.execute(stmt).scalar_one())

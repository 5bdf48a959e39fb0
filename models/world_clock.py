"""The world clock's writes: ``advance_world`` lays a new world's anchors and applies the ticks that are due.

Why one clearly named function: reading Ella's world used to write it behind a read's name
(``models.ledger.world_facts``). The decisions (which anchors, which ticks, the new values) are plain Python in
``ella.ledger.world_clock``; this module only loads what they need and stores what they return. Reads that
must never write use ``models.ledger.current``.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from sqlalchemy.orm import Session

from ella.ledger import world_clock
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

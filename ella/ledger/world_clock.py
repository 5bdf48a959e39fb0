"""The world's own clock, as decisions: which anchors a new world gets and which canon facts a day or a year
has made stale.

Why apart from the ledger's queries: reading Ella's world used to write it (the read anchored a new world and
rolled the weather and the cat's age forward), so the decision hid in a query. Here it is a function of plain
values: the live facts, the user's zone, the time, and when the cat's age chain began. ``models.world_clock``
stores what it returns under the world's lock; nothing here touches a database.

- A world without a single live canon fact is new: it gets the seed's anchors (``ella.ledger.anchors``), each
  with a dedupe key, so laying them twice writes them once.
- The weather holds for the local day it was set (an operator's change stands until the next day); on a later
  day the world clock replaces it with that day's weather.
- The cat's age is the anchor's age rolled forward by whole years since its chain began.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import TypeVar
from zoneinfo import ZoneInfo

from ella.ledger.anchors import AGE_SUBJECT, WEATHER_SUBJECT, cat_age, seed_anchors, weather_for
from ella.ledger.facts import NewFact, StoredFact
from ella.ledger.rules import Tier, Writer

ClockFact = StoredFact  # what the clock reads of a live fact

F = TypeVar("F", bound=ClockFact)


@dataclass(frozen=True)
class ClockWrite:
    """One write the clock owes: an anchor (``replaces`` is None) or a tick that supersedes a live fact."""

    new: NewFact
    writer: Writer
    replaces: int | None = None
    reason: str = ""


def canon_by_subject(live: Iterable[F]) -> dict[str, F]:
    """The live canon facts by subject: only canon is the clock's (a user's claim about the weather is not)."""
    return {f.subject: f for f in live if f.tier == Tier.CANON}


def age_fact(live: Iterable[F]) -> F | None:
    """The live canon age of the cat, whose chain's start the clock needs to know."""
    return canon_by_subject(live).get(AGE_SUBJECT)


def due(
    user_id: str, live: Iterable[ClockFact], zone: ZoneInfo, now: datetime, age_began: datetime | None
) -> list[ClockWrite]:
    """What the clock owes this world at ``now``: the anchors of a new world, or the day's weather and the
    cat's birthday when stale. Empty when nothing is due (the common case: a read then writes nothing).

    ``age_began`` is when the live age fact's chain began (its first ``valid_from``); None when there is none.
    """
    today = now.astimezone(zone).date()
    canon = canon_by_subject(live)
    if not canon:
        return [
            ClockWrite(
                NewFact(
                    a.subject,
                    a.predicate,
                    a.object,
                    Tier.CANON.value,
                    note=a.note,
                    dedupe_key=f"anchor:{user_id}:{a.subject}",
                ),
                Writer.ANCHOR,
            )
            for a in seed_anchors(user_id, today)
        ]
    writes: list[ClockWrite] = []
    weather = canon.get(WEATHER_SUBJECT)
    if weather is not None and weather.valid_from.astimezone(zone).date() < today:
        forecast = NewFact(WEATHER_SUBJECT, "weather", weather_for(user_id, today), Tier.CANON.value,
                           note=f"weather for {today}", dedupe_key=f"weather:{user_id}:{today}")  # fmt: skip
        writes.append(ClockWrite(forecast, Writer.WORLD_TICK, weather.id, "a new day"))
    age = canon.get(AGE_SUBJECT)
    if age is not None:
        years = str(cat_age(age_began or now, now))
        if years != age.object:
            birthday = NewFact(AGE_SUBJECT, "age_years", years, Tier.CANON.value, note="a birthday",
                               dedupe_key=f"age:{user_id}:{years}")  # fmt: skip
            writes.append(ClockWrite(birthday, Writer.WORLD_TICK, age.id, "a year went by"))
    return writes

"""The lazy world's one decision: is a cached value still fresh at ``now``, or must its ticker run?

Why plain: the seed's ``LazyWorld`` kept the watermark in a dict of one process; here the watermark lives in
Redis and can be lost, so it must also be re-derivable from the ledger (the fact's ``valid_from`` is when it
was ticked). Both the cache and its rebuild ask the same function, so a rebuilt watermark means what the lost
one meant and a rebuild never ticks a value that is still fresh.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo


@dataclass(frozen=True)
class Staleness:
    """How long a subject's value holds: at most ``max_staleness`` after it was ticked, and, when ``daily``,
    no later than the user's next local midnight (today's weather is not tomorrow's)."""

    max_staleness: timedelta
    daily: bool = False


def fresh_until(rule: Staleness, touched: datetime, zone: ZoneInfo) -> datetime:
    """When a value ticked at ``touched`` goes stale."""
    until = touched + rule.max_staleness
    if rule.daily:
        local = touched.astimezone(zone)
        midnight = datetime.combine(local.date() + timedelta(days=1), time(0), tzinfo=zone)
        until = min(until, midnight)
    return until


def is_fresh(until: datetime, now: datetime) -> bool:
    return now < until


@dataclass(frozen=True)
class Entry:
    """One subject's cached reading: its value, the fact's words and tier, when it was ticked and until when
    it holds. Encoded as one JSON string per field of the user's Redis hash."""

    subject: str
    value: Any
    text: str
    tier: str
    touched: datetime
    until: datetime

    def encode(self) -> str:
        return json.dumps(
            {
                "value": self.value,
                "text": self.text,
                "tier": self.tier,
                "touched": self.touched.isoformat(),
                "until": self.until.isoformat(),
            }  # fmt: skip
        )

    @classmethod
    def decode(cls, subject: str, raw: str) -> Entry | None:
        """None for anything unreadable (an old or damaged field is a cache miss, not an error)."""
        try:
            data = json.loads(raw)
            return cls(subject, data["value"], str(data["text"]), str(data["tier"]),
                       datetime.fromisoformat(data["touched"]), datetime.fromisoformat(data["until"]))  # fmt: skip
        except (ValueError, KeyError, TypeError):
            return None


def stale_subjects(subjects: Iterable[str], entries: Mapping[str, Entry], now: datetime) -> list[str]:
    """The subjects whose cached entry is missing or past its watermark, in the given order."""
    return [s for s in subjects if s not in entries or not is_fresh(entries[s].until, now)]

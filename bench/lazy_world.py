"""The lazy world at 1,000 users: the Redis watermark cache against the seed's in-process ``LazyWorld``.

1. Cold: each user's first read (empty cache): the world clock anchors the world, each subject is ticked and
   written to the ledger, then cached. p50/p99 per read (all subjects of one user).
2. Warm: the same users read again in a shuffled order, several passes: one HGETALL each. p50/p99, and the
   database statements sent during the warm passes (counted by a ``before_cursor_execute`` listener on every
   engine), per read (aim: 0).
3. The seed's ``LazyWorld`` (copied below from the addendum, section 3, the baseline): one instance per user
   in this process, with the same tickers, read warm the same way (``seed_p50_ms``). It is a dict lookup: the
   price of the Redis cache is the round trip that lets every worker process share the watermark and lets the
   ledger, not a process's memory, hold the world.
4. A user who chats 20 times a day (at random times between 08:00 and 23:00 local) for ``--days`` days:
   ticks per subject per day, and the ticks that came sooner than their subject's staleness after the one before
   (aim: 0, i.e. one tick per subject per staleness period).
5. Image renders under 16 concurrent first references (``adapters.images.renders_under_concurrency``; aim: 1).

    python bench/lazy_world.py [--users 1000] [--passes 3] [--days 7] [--backend postgresql|sqlite]

The last line is JSON.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

from tests.support.scratch import create_database, scratch_run

RUN, VAR = scratch_run("bench")


# --- the seed's LazyWorld (addendum section 3), verbatim but for the lint: the baseline ------------------------


class LazyWorld:
    """World state is computed on demand. A 'last_touched' watermark tracks staleness."""

    def __init__(self, max_staleness: timedelta = timedelta(hours=12)):
        self.max_staleness = max_staleness
        self.state: dict[str, dict] = {}
        self.tickers: dict[str, Callable] = {}

    def register(self, subject: str, ticker: Callable[[dict], dict]) -> None:
        self.tickers[subject] = ticker

    def get(self, subject: str) -> dict:
        row = self.state.get(subject)
        now = datetime.utcnow()
        if row and now - row["last_touched"] < self.max_staleness:
            return row["value"]
        prev = row["value"] if row else None
        new = self.tickers[subject](prev)
        self.state[subject] = {"value": new, "last_touched": now}
        return new


# --- helpers ---------------------------------------------------------------------------------------------------


def ms(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000, 3)


@contextmanager
def counted_statements() -> Iterator[list[str]]:
    from sqlalchemy import Engine, event

    seen: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        seen.append(statement)

    event.listen(Engine, "before_cursor_execute", count)
    try:
        yield seen
    finally:
        event.remove(Engine, "before_cursor_execute", count)


def seed_world(user_id: str, zone: ZoneInfo) -> LazyWorld:
    """The seed's class with our tickers: each ticker's value from its previous value (the seed passes no time
    or world, so they are given here)."""
    from ella.world.tickers import Previous, WorldView, tickers

    lazy = LazyWorld()
    view = WorldView(user_id, zone)
    for ticker in tickers():

        def tick(prev: Any, ticker: Any = ticker) -> Any:
            now = datetime.now(UTC)
            return ticker.tick(Previous(prev, now) if prev is not None else None, now, view).value

        lazy.register(ticker.subject, tick)
    return lazy


def chatty_days(cache: Any, user_id: str, zone: ZoneInfo, days: int, rng: random.Random) -> dict[str, Any]:
    from ella.world.tickers import ticker_for, tickers

    start = datetime(2026, 12, 7, tzinfo=zone)
    ticks: dict[str, list[datetime]] = {t.subject: [] for t in tickers()}
    for day in range(days):
        base = start + timedelta(days=day, hours=8)
        for at in sorted(base + timedelta(minutes=rng.uniform(0, 15 * 60)) for _ in range(20)):
            for subject in cache.read(user_id, at.astimezone(UTC)).ticked:
                ticks[subject].append(at)
    early = 0
    for subject, times in ticks.items():
        rule = ticker_for(subject).staleness
        for before, after in zip(times, times[1:], strict=False):
            new_day = rule.daily and after.date() != before.date()
            early += int(after - before < rule.max_staleness and not new_day)
    return {"per_day": {s: round(len(t) / days, 2) for s, t in ticks.items()}, "early": early}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--users", type=int, default=1000)
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--days", type=int, default=7)
    parser.add_argument("--backend", default="postgresql", choices=["postgresql", "sqlite"])
    args = parser.parse_args()

    import os

    url, drop = create_database(args.backend, f"ella_lw_{RUN}", VAR)
    os.environ["ELLA_DATABASE_URL"] = url
    from adapters.settings import get_settings

    get_settings.cache_clear()
    from adapters import db
    from adapters.world_cache import LazyWorldCache, cache_key
    from models import User

    db.upgrade()
    rng = random.Random(14)
    zones = ["Europe/London", "America/New_York", "Asia/Tokyo", "UTC", "Australia/Sydney"]
    users = [(f"lw-{RUN}-{i:05d}", zones[i % len(zones)]) for i in range(args.users)]
    with db.session_scope() as session:
        session.add_all(User(id=u, timezone=z) for u, z in users)
    cache = LazyWorldCache()
    client = cache._redis()
    try:
        cold: list[float] = []
        for user_id, _zone in users:
            t0 = time.perf_counter()
            cache.read(user_id)
            cold.append(time.perf_counter() - t0)
        cold_ticks = cache.ticks
        print(f"cold: {len(cold)} reads, p50 {ms(cold, 0.5)} ms, p99 {ms(cold, 0.99)} ms, {cold_ticks} ticks")

        warm: list[float] = []
        not_warm = 0
        with counted_statements() as statements:
            for _ in range(args.passes):
                order = users[:]
                rng.shuffle(order)
                for user_id, _zone in order:
                    t0 = time.perf_counter()
                    read = cache.read(user_id)
                    warm.append(time.perf_counter() - t0)
                    not_warm += int(not read.warm)
        per_read = len(statements) / len(warm)
        print(f"warm: {len(warm)} reads, p50 {ms(warm, 0.5)} ms, p99 {ms(warm, 0.99)} ms, "
              f"{len(statements)} database statements ({per_read} per read), {not_warm} reads not warm")  # fmt: skip

        seeds = {u: seed_world(u, ZoneInfo(z)) for u, z in users}
        for lazy in seeds.values():  # their cold pass
            for subject in lazy.tickers:
                lazy.get(subject)
        seed: list[float] = []
        for _ in range(args.passes):
            order = users[:]
            rng.shuffle(order)
            for user_id, _zone in order:
                lazy = seeds[user_id]
                t0 = time.perf_counter()
                for subject in lazy.tickers:
                    lazy.get(subject)
                seed.append(time.perf_counter() - t0)
        print(f"seed LazyWorld (in-process dict), warm: p50 {ms(seed, 0.5)} ms, p99 {ms(seed, 0.99)} ms")

        chatter = f"lw-{RUN}-chatty"
        with db.session_scope() as session:
            session.add(User(id=chatter, timezone="Europe/London"))
        chatty = chatty_days(cache, chatter, ZoneInfo("Europe/London"), args.days, rng)
        print(f"20 chats a day for {args.days} days: ticks per subject per day {chatty['per_day']}, "
              f"ticks sooner than their staleness: {chatty['early']}")  # fmt: skip

        renders: int | None = None
        try:
            from adapters.images import renders_under_concurrency
        except ImportError:
            pass
        else:
            renders = renders_under_concurrency(16)
            print(f"image renders under 16 concurrent first references: {renders}")
    finally:
        client.delete(*(cache_key(u) for u, _ in users), cache_key(f"lw-{RUN}-chatty"))
        db.forget_engine(url)
        drop()

    print(
        json.dumps(
            {
                "warm_p50_ms": ms(warm, 0.5),
                "warm_p99_ms": ms(warm, 0.99),
                "cold_p50_ms": ms(cold, 0.5),
                "cold_p99_ms": ms(cold, 0.99),
                "seed_p50_ms": ms(seed, 0.5),
                "db_queries_per_warm_read": per_read,
                "ticks_per_subject_per_day": chatty["per_day"],
                "ticks_sooner_than_staleness": chatty["early"],
                "renders_16way": renders,
                "users": args.users,
                "backend": args.backend,
                "warm_reads": len(warm),
            }
        )
    )


if __name__ == "__main__":
    main()

"""The daily digest at scale on PostgreSQL, against the loopback Message Batches server, and the seed's way.

What the issue asks of the proactive jobs, measured rather than argued:

1. Planning plus submission of one digest slot at ``--users`` users (default 100,000; bulk-loaded with COPY),
   a tenth of them active (an inbound message since they were first seen: what ``tasks/digest.py`` counts as
   new), all in zones whose 07:00 falls in the same UTC hour (UTC and zones at UTC+0 on 30 November), so one
   pass plans them all: ``run_inline(Job.DIGEST, now)`` then ``flush_pending(port)`` to the loopback server
   (``tests/support/fake_anthropic.py``). Aim: under 5 minutes on a 2-core machine; requests for active users
   only.
2. The planner's peak memory: the peak of Python allocations (``tracemalloc``) during a second planner pass
   over the same users (the first pass's rows deleted), at a tenth of the population and at the whole of it;
   the RSS growth during the timed pass (sampled every 10 ms) is printed too. Aim: bounded (under 300 MB) and
   not growing with the user count (a chunk of ``job_chunk_size`` users is what is held at once).
3. At 1,000 users: our pass (plan + submit) against the seed's way, one synchronous ``port.call`` per user,
   every user, each loading its own inputs (the same queries, for one user), against the same server.

Each population gets its own scratch database, dropped at the end. Figures print as they come; the last line is
JSON: users, active, digest_submit_s, requests_sent, planner_peak_mb, ours_s_1k, seed_way_s_1k.

    python bench/proactive_jobs.py [--users 100000] [--active-share 0.1] [--compare 1000] [--poll]

``--poll`` also reads the batch back and applies its results (not part of the aim: the results come back
within the provider's day).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

from tests.support.scratch import create_database, scratch_run

RUN, VAR = scratch_run("bench")

from adapters.settings import get_settings  # noqa: E402
from ella.jobs import Job  # noqa: E402
from tests.support.fake_anthropic import FakeAnthropic  # noqa: E402

NOW = datetime(2026, 11, 30, 7, 10, tzinfo=UTC)  # 07:10 UTC on a Monday: the digest slot of UTC+0 zones
# UTC+0 on 30 November (no summer time then): their local 07:00 is in the same UTC hour slot.
ZONES = ["UTC", "Etc/UTC", "Europe/London", "Europe/Lisbon", "Africa/Abidjan", "Atlantic/Reykjavik"]
FIRST_SEEN = NOW - timedelta(days=30)
LAST_MESSAGE = NOW - timedelta(hours=10)  # yesterday evening: new since first sight, so the user is active
PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE


@contextmanager
def peak_rss(every_s: float = 0.01) -> Iterator[dict[str, int]]:
    """Sample this process's RSS while the block runs; ``out["delta"]``: the peak above the RSS at its start."""
    out = {"start": rss_bytes(), "peak": 0, "delta": 0}
    out["peak"] = out["start"]
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            out["peak"] = max(out["peak"], rss_bytes())
            stop.wait(every_s)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        yield out
    finally:
        stop.set()
        sampler.join()
        out["peak"] = max(out["peak"], rss_bytes())
        out["delta"] = out["peak"] - out["start"]


@dataclass
class Population:
    users: int
    active: int
    url: str
    drop: Callable[[], None]


def _copy(url: str, table: str, columns: str, rows: io.StringIO) -> None:
    import psycopg
    from sqlalchemy.engine import make_url

    dsn = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(dsn) as conn, conn.cursor() as cur:
        with cur.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
            copy.write(rows.getvalue())
        if table == "conversations":
            cur.execute(
                "SELECT setval(pg_get_serial_sequence('conversations', 'id'), (SELECT max(id) FROM conversations))"
            )
        cur.execute(f"ANALYZE {table}")


def populate(users: int, active_share: float, name: str) -> Population:
    """A fresh migrated database with ``users`` users (every ``1/active_share``-th one active), COPYed in."""
    from adapters import db

    started = time.perf_counter()
    url, drop = create_database("postgresql", f"{name}_{RUN}", VAR)
    os.environ["ELLA_DATABASE_URL"] = url
    get_settings.cache_clear()
    db.upgrade()
    step = max(1, round(1 / active_share)) if active_share > 0 else 0
    people, chats, messages = io.StringIO(), io.StringIO(), io.StringIO()
    first, last = FIRST_SEEN.isoformat(), LAST_MESSAGE.isoformat()
    active = 0
    for i in range(users):
        uid = f"u{i:07d}"
        people.write(f"{uid}\t{first}\t{ZONES[i % len(ZONES)]}\t1320\t480\t540\t1260\tf\t150\t150\ten_US\tt\n")
        if step and i % step == 0:
            active += 1
            chats.write(f"{active}\t{uid}\t{last}\t{last}\t{last}\t1\t{last}\n")
            messages.write(f"bench-{uid}-1\t{uid}\t{active}\tI finally finished the portfolio draft.\t{last}\t{last}\n")
    _copy(url, "users", "id, created_at, timezone, dnd_start_minute, dnd_end_minute, active_start_minute, "
          "active_end_minute, is_minor, importance_trigger_curr, importance_trigger_max, locale, notifications_enabled",
          people)  # fmt: skip
    if active:
        _copy(url, "conversations", "id, user_id, started_at, last_message_at, close_due_at, turn_count, created_at",
              chats)  # fmt: skip
        _copy(url, "inbound_messages", "message_id, user_id, conversation_id, text, sent_at, received_at", messages)
    print(f"  {users:,} users ({active:,} active) loaded in {time.perf_counter() - started:.1f} s", flush=True)
    return Population(users, active, url, drop)


def use(population: Population) -> None:
    os.environ["ELLA_DATABASE_URL"] = population.url
    get_settings.cache_clear()


def batch_requests_sent(fake: FakeAnthropic) -> int:
    return sum(
        len(r["body"].get("requests") or [])
        for r in fake.requests
        if r["method"] == "POST" and r["path"] == "/v1/messages/batches" and isinstance(r.get("body"), dict)
    )


def port_for(fake: FakeAnthropic) -> Any:
    from ella.llm.anthropic_provider import AnthropicProvider
    from ella.llm.port import ModelPort

    provider = AnthropicProvider("bench-key", fake.base_url, timeout=120, max_retries=0)
    return ModelPort(provider, get_settings().model_tiers)


def ours(population: Population, fake: FakeAnthropic, poll: bool = False) -> dict[str, float]:
    """One digest pass: plan (chunks in this process) then flush to the loopback Batches server."""
    from adapters.model_batches import flush_pending
    from adapters.model_batches import poll as poll_batches
    from tasks.jobs import run_inline

    use(population)
    port = port_for(fake)
    sent_before = batch_requests_sent(fake)
    chunks = 0

    def on_chunk(counts: dict[str, int]) -> None:
        nonlocal chunks
        chunks += 1
        if chunks % 20 == 0:
            print(f"    chunk {chunks}: {time.perf_counter() - started:.1f} s", flush=True)

    started = time.perf_counter()
    with peak_rss() as memory:
        totals = run_inline(Job.DIGEST, NOW, on_chunk)
    planned_s = time.perf_counter() - started
    report = flush_pending(port, max_batches=50)
    total_s = time.perf_counter() - started
    sent = batch_requests_sent(fake) - sent_before
    out = {
        "users": population.users,
        "planned_users": totals.get("users", 0),
        "requests_queued": totals.get("requests", 0),
        "idle": totals.get("idle", 0),
        "chunks": chunks,
        "plan_s": round(planned_s, 2),
        "submit_s": round(total_s - planned_s, 2),
        "plan_and_submit_s": round(total_s, 2),
        "requests_sent": sent,
        "batches": len(report.batches),
        "planner_rss_delta_mb": round(memory["delta"] / 2**20, 1),
    }
    print(f"  ours at {population.users:,}: {json.dumps(out)}", flush=True)
    if poll:
        started = time.perf_counter()
        polled = poll_batches(port)
        print(f"  poll: {dict(polled.outcomes)} in {time.perf_counter() - started:.1f} s", flush=True)
    return out


def planner_memory(population: Population) -> float:
    """The planner pass again, under ``tracemalloc``: the peak of Python allocations it made, in MB.

    Why again and not during the timed pass: tracemalloc slows allocation, and the RSS of a process that has
    already run a larger pass barely moves (freed memory is reused), so the timed pass's RSS delta says little.
    The first pass's rows (runs, chunks, marks, batch items) are deleted so the same slot plans the same users.
    """
    import tracemalloc

    from sqlalchemy import text

    from adapters.db import session_scope
    from tasks.jobs import run_inline

    use(population)
    with session_scope() as session:
        for table in ("job_marks", "job_chunks", "job_runs", "model_batch_items", "model_batches"):
            session.execute(text(f"DELETE FROM {table}"))
    tracemalloc.start()
    try:
        totals = run_inline(Job.DIGEST, NOW)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    peak_mb = round(peak / 2**20, 1)
    print(f"  planner peak (tracemalloc) at {population.users:,}: {peak_mb} MB over {totals.get('users', 0):,} users",
          flush=True)  # fmt: skip
    return peak_mb


def seed_way(population: Population, fake: FakeAnthropic) -> float:
    """The seed's digest: for every user, load their inputs and call the model synchronously, one by one."""
    from sqlalchemy import select

    from adapters.db import autocommit_scope
    from ella import digest
    from ella.jobs import trigger_in_slot, zone_of
    from ella.llm.kinds import DigestAnswer
    from models import User
    from models import digest as queries

    use(population)
    port = port_for(fake)
    fake.responder = lambda body: '{"say": false, "text": "", "cites": {}}'  # one valid answer: one call per user
    calls_before = len(fake.message_requests)
    started = time.perf_counter()
    slot = NOW.replace(minute=0)
    with autocommit_scope() as session:
        users = list(session.execute(select(User.id, User.timezone).order_by(User.id)))
    for uid, zone in users:
        period = trigger_in_slot(Job.DIGEST, zone_of(zone), slot)
        assert period is not None
        with autocommit_scope() as session:  # the seed's cron: one user at a time, each with its own loads
            facts = queries.open_facts(session, [uid], NOW).get(uid, ())
            plans = queries.planning_thoughts(session, [uid], NOW).get(uid, ())
            said = queries.self_log_about_users(session, [uid], NOW - digest.SELF_LOG_DAYS).get(uid, ())
            chapters, arcs = queries.narrative(session, [uid])
        inp = digest.DigestInput(uid, zone, period.label, period.end, plans, facts, said, chapters.get(uid),
                                 arcs.get(uid))  # fmt: skip
        port.call(DigestAnswer, digest.variables(inp, NOW, zone_of(zone)), user_id=uid, context=digest.context(inp))
    elapsed = time.perf_counter() - started
    fake.responder = None
    calls = len(fake.message_requests) - calls_before
    print(f"  seed's way at {len(users):,}: {calls:,} synchronous calls in {elapsed:.1f} s", flush=True)
    return elapsed


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--users", type=int, default=100_000, help="the population of the main pass")
    parser.add_argument("--active-share", type=float, default=0.1, help="share of users with something new")
    parser.add_argument("--compare", type=int, default=1_000, help="population of ours vs the seed's way")
    parser.add_argument("--poll", action="store_true", help="also poll the main pass's batch and apply results")
    args = parser.parse_args(argv)
    from workers.app import app

    app.loader.import_default_modules()  # the digest planner and its batch handler register on import
    compare_n = min(args.compare, args.users)
    small_n = max(1, args.users // 10)
    dropped: list[Callable[[], None]] = []
    try:
        with FakeAnthropic() as fake:
            print(f"# ours vs the seed's way at {compare_n:,} users", flush=True)
            small = populate(compare_n, args.active_share, "jobs_cmp")
            dropped.append(small.drop)
            ours_small = ours(small, fake)
            seed_s = seed_way(small, fake)
            print(f"# planner memory at {small_n:,} users", flush=True)
            tenth = populate(small_n, args.active_share, "jobs_tenth")
            dropped.append(tenth.drop)
            at_tenth = ours(tenth, fake)
            at_tenth["planner_peak_mb"] = planner_memory(tenth)
            print(f"# the daily digest at {args.users:,} users", flush=True)
            main_pop = populate(args.users, args.active_share, "jobs_main")
            dropped.append(main_pop.drop)
            at_main = ours(main_pop, fake, poll=args.poll)
            at_main["planner_peak_mb"] = planner_memory(main_pop)
    finally:
        for drop in dropped:
            drop()
    print(
        f"planner peak memory (tracemalloc): {at_tenth['planner_peak_mb']} MB at {small_n:,} users, "
        f"{at_main['planner_peak_mb']} MB at {args.users:,}",
        flush=True,
    )
    summary = {
        "users": args.users,
        "active": main_pop.active,
        "digest_submit_s": at_main["plan_and_submit_s"],
        "requests_sent": at_main["requests_sent"],
        "planner_peak_mb": max(at_main["planner_peak_mb"], at_tenth["planner_peak_mb"]),
        "ours_s_1k": ours_small["plan_and_submit_s"],
        "seed_way_s_1k": round(seed_s, 2),
    }
    print(json.dumps(summary), flush=True)
    return summary


if __name__ == "__main__":
    main()

"""The world-fact ledger at scale, against the seed's JSONL ledger, and under eight concurrent writers.

1. Latency of ``supersede`` (one transaction: lock, conditional UPDATE, INSERT, contest check, commit) and
   of ``current`` by subject prefix, at 10k, 50k, 100k and 1M facts in PostgreSQL (the production store),
   bulk-loaded with COPY between sizes.
2. The seed's ``FactLedger`` (copied below from the addendum, the baseline) at 50k facts, in the same run:
   its supersession rewrites the whole file, its ``current`` replays it.
3. Concurrency: 8 processes x 2,000 mixed appends and supersessions on a few users' worlds; afterwards no
   fact may be lost (rows = seeded + successful appends + successful supersessions) and every chain must
   have exactly one live fact.

The last line is JSON with supersede_ms_1m, current_ms_1m, speedup_vs_seed_50k and the concurrency check.

    python bench/ledger.py [--sizes 10000,50000,100000,1000000] [--ops 300] [--procs 8 --per-proc 2000] [--steps]

``--steps`` supersedes in steps on PostgreSQL too (``models.supersession``'s other way), to compare the two.
"""

from __future__ import annotations

import argparse
import io
import json
import multiprocessing as mp
import random
import statistics
import sys
import time
import uuid
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

from tests.support.scratch import create_database, scratch_run

RUN, VAR = scratch_run("bench")

# --- the seed's ledger (addendum section 1), verbatim in behaviour: the baseline -------------------------


class FactStatus(StrEnum):
    ACTIVE = "active"
    SUPERSEDED = "superseded"


class SeedFactLedger:
    """Append-only JSONL ledger. One line per fact write. Current state by replay + supersession."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def append(self, fact: dict[str, Any]) -> None:
        with self.path.open("a") as f:
            f.write(json.dumps(fact, default=str) + "\n")

    def supersede(self, old_id: str, new_fact: dict[str, Any]) -> dict[str, Any]:
        new_fact["supersedes"] = old_id
        self._mark(old_id, FactStatus.SUPERSEDED)
        self.append(new_fact)
        return new_fact

    def _mark(self, fact_id: str, status: FactStatus) -> None:
        lines = self.path.read_text().splitlines()
        out = []
        for line in lines:
            row = json.loads(line)
            if row.get("id") == fact_id and row.get("status") == FactStatus.ACTIVE.value:
                row["status"] = status.value
            out.append(json.dumps(row))
        self.path.write_text("\n".join(out) + "\n")

    def current(self, subject: str | None = None) -> list[dict[str, Any]]:
        active: dict[str, dict[str, Any]] = {}
        for line in self.path.read_text().splitlines():
            row = json.loads(line)
            if subject and row["subject"] != subject:
                continue
            if row["status"] == FactStatus.SUPERSEDED.value:
                active.pop(row["id"], None)
                continue
            if row["status"] == FactStatus.ACTIVE.value:
                active[row["id"]] = row
        return list(active.values())


def seed_fact(i: int) -> dict[str, Any]:
    return {
        "id": str(uuid.uuid4()),
        "tier": "canon",
        "status": "active",
        "subject": f"world.place{i % 500}.thing{i}",
        "predicate": "is",
        "object": f"value {i}",
        "source_message_id": None,
        "confidence": 1.0,
        "created_at": datetime.now(UTC).isoformat(),
        "supersedes": None,
        "note": "",
    }


def bench_seed(n: int, ops: int) -> dict[str, float]:
    ledger = SeedFactLedger(VAR / "seed" / "ledger.jsonl")
    with ledger.path.open("w") as f:
        for i in range(n):
            f.write(json.dumps(seed_fact(i)) + "\n")
    ids = [json.loads(line)["id"] for line in ledger.path.read_text().splitlines()]
    sup, cur = [], []
    for k in range(ops):
        started = time.perf_counter()
        ledger.supersede(random.choice(ids), seed_fact(n + k))
        sup.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        ledger.current(f"world.place{k % 500}.thing{k}")
        cur.append((time.perf_counter() - started) * 1000)
    return {"supersede_ms": statistics.mean(sup), "current_ms": statistics.mean(cur)}


# --- ours ----------------------------------------------------------------------------------------------

USERS_PER_10K = 100  # 100 facts per user world
SUBJECTS_PER_USER = 20


def bulk_load(url: str, start: int, stop: int) -> None:
    """COPY facts start..stop-1 (and their users) in: 100 per user, 20 subjects, a tenth of them superseded
    history (chains of two), the rest live."""
    import psycopg
    from sqlalchemy.engine import make_url

    dsn = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    now = datetime.now(UTC).isoformat()
    users, facts = io.StringIO(), io.StringIO()
    for i in range(start, stop):
        user, k = f"u{i // 100:06d}", i % 100
        if k == 0:
            users.write(f"{user}\t{now}\tUTC\t1320\t480\t540\t1260\tf\t150\t150\n")
        element = k // 2 if k < 20 else k  # facts 0..19 are ten chains of two: an old and a live one
        chain = uuid.uuid5(uuid.NAMESPACE_OID, f"{user}:{element}").hex
        status = "superseded" if k < 20 and k % 2 == 0 else "active"
        subject = f"world.place{element % SUBJECTS_PER_USER}.thing{element}"
        facts.write(f"{user}\t{chain}\tcanon\t{status}\t{subject}\tis\tvalue {i}\t1\t\toperator\t{now}\t{now}\n")
    with psycopg.connect(dsn) as conn, conn.cursor() as cur:
        columns = (
            "id, created_at, timezone, dnd_start_minute, dnd_end_minute, active_start_minute, active_end_minute,"
            " is_minor, importance_trigger_curr, importance_trigger_max"
        )
        with cur.copy(f"COPY users ({columns}) FROM STDIN") as copy:
            copy.write(users.getvalue())
        columns = (
            "user_id, chain, tier, status, subject, predicate, object, confidence, note, written_by, valid_from,"
            " recorded_at"
        )
        with cur.copy(f"COPY world_facts ({columns}) FROM STDIN") as copy:
            copy.write(facts.getvalue())
        cur.execute("ANALYZE world_facts")


def bench_ours(size: int, ops: int) -> dict[str, float]:
    from sqlalchemy import func, select

    from adapters.db import autocommit_scope, session_scope
    from ella.ledger.rules import Writer
    from models import WorldFact
    from models.ledger import NewFact, current
    from models.supersession import supersede

    with autocommit_scope() as s:
        sample = s.execute(
            select(WorldFact.id, WorldFact.user_id, WorldFact.subject)
            .where(WorldFact.status == "active")
            .order_by(func.random())
            .limit(ops)
        ).all()
    sup, cur = [], []
    for fact_id, user, subject in sample:
        started = time.perf_counter()
        with session_scope() as s:
            supersede(s, user, fact_id, NewFact(subject, "is", "changed", "canon"), Writer.OPERATOR)
        sup.append((time.perf_counter() - started) * 1000)
        prefix = subject.rsplit(".", 1)[0]
        started = time.perf_counter()
        with autocommit_scope() as s:
            found = current(s, user, prefix)
        cur.append((time.perf_counter() - started) * 1000)
        assert found, f"no live fact under {prefix} for {user}"
    sup.sort(), cur.sort()
    p99 = max(0, int(len(sup) * 0.99) - 1)
    return {
        "supersede_ms": statistics.mean(sup),
        "supersede_p50_ms": statistics.median(sup),
        "supersede_p99_ms": sup[p99],
        "current_ms": statistics.mean(cur),
        "current_p50_ms": statistics.median(cur),
        "current_p99_ms": cur[p99],
    }


# --- concurrency ---------------------------------------------------------------------------------------

CONCURRENT_USERS = 16


def _force_steps() -> None:
    """Supersede in steps on PostgreSQL too (``--steps``): what the one-statement CTE saves, measured."""
    import models.supersession

    models.supersession.ONE_STATEMENT_DIALECTS = frozenset()


def writer_process(url: str, seed: int, n_ops: int, out: Any, steps: bool = False) -> None:
    import os

    os.environ["ELLA_DATABASE_URL"] = url
    from sqlalchemy import select

    from adapters.db import autocommit_scope, session_scope
    from ella.ledger.rules import FactConflict, Writer
    from models import WorldFact
    from models.ledger import NewFact, append
    from models.supersession import supersede

    if steps:
        _force_steps()
    rng = random.Random(seed)
    counts = {"appended": 0, "superseded": 0, "conflicts": 0, "deadlocks": 0}
    for k in range(n_ops):
        user = f"c{rng.randrange(CONCURRENT_USERS):03d}"
        new = NewFact(f"world.spot{rng.randrange(30)}", "is", f"p{seed}-{k}", "canon")
        try:
            if rng.random() < 0.4:
                with session_scope() as s:
                    append(s, user, new, Writer.OPERATOR)
                counts["appended"] += 1
            else:
                with autocommit_scope() as s:
                    live = s.scalars(
                        select(WorldFact.id).where(
                            WorldFact.user_id == user, WorldFact.status.in_(["active", "contested"])
                        )
                    ).all()
                with session_scope() as s:
                    supersede(s, user, rng.choice(live), new, Writer.OPERATOR)
                counts["superseded"] += 1
        except FactConflict:
            counts["conflicts"] += 1
    out.put(counts)


def bench_concurrency(url: str, procs: int, per_proc: int, steps: bool = False) -> dict[str, Any]:
    from sqlalchemy import func, select

    from adapters.db import autocommit_scope, session_scope
    from ella.ledger.rules import Writer
    from models import User, WorldFact
    from models.ledger import NewFact, append

    with session_scope() as s:
        for u in range(CONCURRENT_USERS):
            s.add(User(id=f"c{u:03d}"))
    with session_scope() as s:
        for u in range(CONCURRENT_USERS):
            for k in range(10):
                append(s, f"c{u:03d}", NewFact(f"world.spot{k}", "is", "seeded", "canon"), Writer.OPERATOR)
    seeded = CONCURRENT_USERS * 10
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    workers = [ctx.Process(target=writer_process, args=(url, i, per_proc, queue, steps)) for i in range(procs)]
    started = time.perf_counter()
    for w in workers:
        w.start()
    results = [queue.get(timeout=900) for _ in workers]
    for w in workers:
        w.join()
    elapsed = time.perf_counter() - started
    totals = {key: sum(r[key] for r in results) for key in results[0]}
    with autocommit_scope() as s:
        rows = s.scalar(select(func.count()).select_from(WorldFact).where(WorldFact.user_id.like("c%")))
        live_per_chain = s.execute(
            select(WorldFact.chain, func.count().filter(WorldFact.status.in_(["active", "contested"])))
            .where(WorldFact.user_id.like("c%"))
            .group_by(WorldFact.chain)
        ).all()
    bad_chains = sum(1 for _, live in live_per_chain if live != 1)
    expected = seeded + totals["appended"] + totals["superseded"]
    return {
        **totals,
        "ops": procs * per_proc,
        "ops_per_s": round(procs * per_proc / elapsed, 1),
        "rows": rows,
        "expected_rows": expected,
        "lost_facts": expected - rows,
        "chains": len(live_per_chain),
        "chains_without_exactly_one_live": bad_chains,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,50000,100000,1000000")
    parser.add_argument("--ops", type=int, default=300, help="operations measured per size")
    parser.add_argument("--seed-ops", type=int, default=20, help="operations on the seed's ledger at 50k")
    parser.add_argument("--procs", type=int, default=8)
    parser.add_argument("--per-proc", type=int, default=2000)
    parser.add_argument("--steps", action="store_true", help="supersede in steps, not in one statement")
    args = parser.parse_args()
    if args.steps:
        _force_steps()
    sizes = sorted(int(s) for s in args.sizes.split(","))

    import os

    url, drop = create_database("postgresql", f"ella_ledger_{RUN}", VAR)
    os.environ["ELLA_DATABASE_URL"] = url
    from adapters import db

    db.upgrade()
    figures: dict[str, Any] = {}
    try:
        loaded = 0
        for size in sizes:
            started = time.perf_counter()
            bulk_load(url, loaded, size)
            loaded = size
            print(f"loaded {size:,} facts ({time.perf_counter() - started:.1f} s)", flush=True)
            ours = bench_ours(size, args.ops)
            figures[size] = ours
            print(f"ours at {size:>9,}: " + ", ".join(f"{k} {v:.3f}" for k, v in ours.items()), flush=True)
        seed = bench_seed(50_000, args.seed_ops)
        print(f"seed JSONL at 50,000: supersede {seed['supersede_ms']:.1f} ms, current {seed['current_ms']:.1f} ms")
        concurrency = bench_concurrency(url, args.procs, args.per_proc, args.steps)
        print("concurrency: " + json.dumps(concurrency), flush=True)
    finally:
        drop()
    big, at50 = figures[max(sizes)], figures.get(50_000, figures[min(sizes)])
    print(
        json.dumps(
            {
                "supersede_ms_1m": round(big["supersede_ms"], 3),
                "supersede_p99_ms_1m": round(big["supersede_p99_ms"], 3),
                "current_ms_1m": round(big["current_ms"], 3),
                "current_p99_ms_1m": round(big["current_p99_ms"], 3),
                "largest": max(sizes),
                "supersession": "steps" if args.steps else "one_statement",
                "seed_supersede_ms_50k": round(seed["supersede_ms"], 1),
                "seed_current_ms_50k": round(seed["current_ms"], 1),
                "speedup_vs_seed_50k": round(seed["supersede_ms"] / at50["supersede_ms"], 1),
                "current_speedup_vs_seed_50k": round(seed["current_ms"] / at50["current_ms"], 1),
                "concurrency_lost_facts": concurrency["lost_facts"],
                "concurrency_bad_chains": concurrency["chains_without_exactly_one_live"],
                "concurrency_conflicts": concurrency["conflicts"],
            }
        )
    )


if __name__ == "__main__":
    main()

"""Database statements and CPU per ingested message, in process, on the offline engine (issue 35's budget: <= 10
statements and <= 25 ms of CPU per message).

What is counted: every statement the ingest path sends (``tasks.ingest.ingest``: the opening read, the reply's
context, the turn's transaction, the publish and its settle), through a SQLAlchemy ``before_cursor_execute``
listener, and the process CPU (``time.process_time``) of the same span, Celery's sends of the turn's effects
included (to this run's queues, which nobody consumes). The effects themselves (the turn's memory, its facts) then
run in this process, outside the counted statements and the ingest's CPU span, their own CPU apart
(``effects_cpu_ms_p50``: what the cognition queue's worker spends on a turn, Celery aside): the next turn sees the
memory stream grow as it does in production, where another worker perceives the turn. It runs on the code before
issue 35 too (an ``ingest`` without ``send``: the task sent and settled the rows after it), for a before/after in
the same conditions.

Material: a chat of ordinary lines (a walk, a sister's visit, work, a mood) over three users, a "what do you
remember" now and then; the first ``--warm`` messages fill the users' memory and are not measured.

    python bench/ingest_statements.py [--database postgresql|sqlite] [--messages 150] [--warm 30] [--profile F]

The last line is JSON: {"statements_mean":…, "statements_p50":…, "statements_max":…, "cpu_ms_p50":…, "cpu_ms_p90":…,
"effects_cpu_ms_p50":…, …}.
"""

from __future__ import annotations

import argparse
import cProfile
import inspect
import json
import os
import statistics
import sys
import time
import uuid
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

from tests.support.scratch import create_database, scratch_run

RUN, VAR = scratch_run("bench")

LINES = [
    "Today I went for a walk by the river",
    "My sister Anna is visiting next week",
    "I work as a nurse in Leeds, nights mostly",
    "I feel a bit tired tonight, long shift",
    "The ducks by the river were funny today",
    "Anna wants to see the castle when she comes",
    "What do you remember about me?",
    "I made soup for the first time in ages",
]


def run(kind: str, messages: int, warm: int, profile: str | None = None) -> dict[str, Any]:
    os.environ["ELLA_DATABASE_URL"], drop = create_database(kind, f"ella_bench_{RUN}_{uuid.uuid4().hex[:4]}", VAR)
    from adapters.settings import get_settings

    get_settings.cache_clear()
    from sqlalchemy import event

    from adapters import db
    from adapters.redis_conn import get_redis
    from ella.contract import parse_ingest
    from models.pending_effects import owed_of
    from tasks.ingest import ingest
    from workers import effects

    db.upgrade()
    # as a worker starts (workers.app's worker_init): the guard and memory share one sentence encoder
    from adapters.embedding_cache import share_with_the_guard
    from ella.guard.classifier import prepare

    share_with_the_guard()
    prepare()
    engine = db.get_engine()
    counting = {"on": False}
    statements: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if counting["on"]:
            statements.append(" ".join(statement.split())[:60])

    event.listen(engine, "before_cursor_execute", count)
    sent_rows: list[Any] = []

    def send(rows: list[Any]) -> list[int]:
        """The task's own send (to the broker: nobody consumes this run's queues); the rows are kept to be run."""
        sent_rows.extend(rows)
        return effects.emit_rows(rows)

    def run_effects(rows: list[Any]) -> None:
        """The turn's memory and facts, run here (``Task.apply``: in process), as another worker would."""
        for row in rows:
            for effect in owed_of(row).effects:
                effects.task_named(effect.task).apply(kwargs=effect.kwargs)

    # an ingest without ``send`` (the code before issue 35): the task sent the rows after it, and settled them
    new_style = "send" in inspect.signature(ingest).parameters

    def ingest_one(payload: Any, i: int) -> list[Any]:
        sent_rows.clear()
        if new_style:
            ingest(payload, f"task-{i}", True, time.monotonic() + 5, send=send)
            return list(sent_rows)
        _, follow = ingest(payload, f"task-{i}", True, time.monotonic() + 5)
        rows = list(follow.get("owed_rows", []))
        effects.send_rows(rows)
        return rows

    profiler = cProfile.Profile(time.process_time) if profile else None  # CPU, not wall time
    per_message: list[int] = []
    cpu_ms: list[float] = []
    effects_cpu_ms: list[float] = []  # the turn's memory and facts, as the cognition queue's worker runs them
    kinds: Counter[str] = Counter()
    start = datetime.now(UTC) - timedelta(minutes=messages)
    try:
        for i in range(warm + messages):
            payload = parse_ingest(
                (),
                {
                    "message_id": f"m-{RUN}-{i}",
                    "user_id": f"user-{i % 3}",
                    "text": f"{LINES[i % len(LINES)]} ({i})",
                    "sent_at": (start + timedelta(seconds=30 * i)).isoformat(),
                },
                16000,
            )
            statements.clear()
            counting["on"] = True
            if profiler is not None and i >= warm:
                profiler.enable()
            began = time.process_time()
            rows = ingest_one(payload, i)
            spent = time.process_time() - began
            if profiler is not None:
                profiler.disable()
            counting["on"] = False
            began = time.process_time()
            run_effects(rows)
            effects_spent = time.process_time() - began
            if i >= warm:
                per_message.append(len(statements))
                cpu_ms.append(spent * 1000)
                effects_cpu_ms.append(effects_spent * 1000)
                kinds.update(s.split(" ")[0] for s in statements)
    finally:
        event.remove(engine, "before_cursor_execute", count)
        get_redis().delete(*get_settings().queues)  # the sends nobody consumed
        drop()
    if profiler is not None and profile:
        profiler.dump_stats(profile)  # the measured messages only (the effects' own work included)
    ordered = sorted(per_message)
    return {
        "database": kind,
        "messages": messages,
        "statements_mean": round(statistics.mean(per_message), 2),
        "statements_p50": statistics.median(per_message),
        "statements_max": max(per_message),
        "statements_p90": ordered[int(0.9 * (len(ordered) - 1))],
        "by_kind_per_message": {k: round(v / messages, 2) for k, v in sorted(kinds.items())},
        "cpu_ms_p50": round(statistics.median(cpu_ms), 1),
        "cpu_ms_mean": round(statistics.mean(cpu_ms), 1),
        "cpu_ms_p90": round(sorted(cpu_ms)[int(0.9 * (len(cpu_ms) - 1))], 1),
        "effects_cpu_ms_p50": round(statistics.median(effects_cpu_ms), 1),
        "effects_cpu_ms_mean": round(statistics.mean(effects_cpu_ms), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--database", choices=["postgresql", "sqlite"], default="postgresql")
    parser.add_argument("--messages", type=int, default=150)
    parser.add_argument("--warm", type=int, default=30)
    parser.add_argument("--profile", help="write a cProfile of the measured messages to this file")
    args = parser.parse_args()
    result = run(args.database, args.messages, args.warm, args.profile)
    print(f"statements per message: mean {result['statements_mean']}, p50 {result['statements_p50']}, "
          f"p90 {result['statements_p90']}, max {result['statements_max']}")  # fmt: skip
    print(f"by kind: {result['by_kind_per_message']}")
    print(f"CPU per message: p50 {result['cpu_ms_p50']} ms, p90 {result['cpu_ms_p90']} ms, "
          f"mean {result['cpu_ms_mean']} ms")  # fmt: skip
    print(f"the turn's memory and facts (the cognition queue's work, in process): p50 "
          f"{result['effects_cpu_ms_p50']} ms, mean {result['effects_cpu_ms_mean']} ms")  # fmt: skip
    print(json.dumps(result))


if __name__ == "__main__":
    main()

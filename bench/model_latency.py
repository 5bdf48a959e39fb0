"""Replies per second when every model call takes seconds: the compose inbound worker against a slow API.

Model calls are I/O. A worker that holds a process while it waits answers ``concurrency / latency`` replies
a second however many calls the global in-flight cap (``ELLA_LLM_MAX_CONCURRENCY``, adapters/llm_slots.py)
allows; the cap's own ceiling is ``cap / latency``. This runs the inbound worker exactly as
docker-compose.yml starts it (its pool and concurrency; only the queue names are this run's), points it at
the loopback Messages API (tests/support/fake_anthropic.py) answering every call after ``--latency``
seconds, sends ``--messages`` messages at once through the gateway client and times the last reply on the
outbox stream. The last line is JSON: {"replies_per_s":…, "ceiling_per_s":…, "ratio":…, …}.

    python bench/model_latency.py [--messages 1000] [--latency 2.0] [--pool threads --concurrency 16]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

from tests.support.scratch import create_database, scratch_run

RUN, VAR = scratch_run("bench")

from adapters.settings import get_settings  # noqa: E402
from bench.compose_inbound import ComposeInbound, Replies  # noqa: E402
from tests.support.fake_anthropic import FakeAnthropic  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def run(
    messages: int, latency: float, pool: str | None, concurrency: str | None, copies: int | None = None
) -> dict[str, object]:
    os.environ["ELLA_DATABASE_URL"], drop = create_database(
        "postgresql", f"ella_bench_{RUN}_{uuid.uuid4().hex[:4]}", VAR
    )
    get_settings.cache_clear()
    from adapters import db
    from adapters.redis_conn import get_redis, redis_url
    from gateway.client import enqueue_message
    from workers.app import app

    settings = get_settings()
    db.upgrade()
    cap = settings.llm_max_concurrency
    fake = FakeAnthropic().start()
    fake.latency = latency
    env = {
        "ELLA_REDIS_URL": redis_url(),
        "ELLA_DATABASE_URL": settings.effective_database_url,
        "ELLA_LLM_PROVIDER": "anthropic",
        "ANTHROPIC_API_KEY": "bench-key",
        "ANTHROPIC_BASE_URL": fake.base_url,
    }
    worker = ComposeInbound(settings, f"bench-{RUN}", VAR / "worker.log", pool, concurrency, copies)
    replies = Replies(get_redis(), settings.outbox_stream)
    try:
        worker.start(env, app)

        def send(prefix: str, n: int) -> list[str]:
            ids = []
            for i in range(n):
                mid = f"{prefix}-{i}"
                enqueue_message(message_id=mid, user_id=f"user-{i % 100}", text=f"My day was long, {i}",
                                sent_at=datetime.now(UTC))  # fmt: skip
                ids.append(mid)
            return ids

        replies.wait(send("warm", 2 * cap), 120)
        calls_before = len(fake.message_requests)
        fake.max_in_flight = 0
        t0 = time.perf_counter()
        replies.wait(send("msg", messages), 60 + 3 * messages * latency / cap)
        elapsed = time.perf_counter() - t0
        calls = len(fake.message_requests) - calls_before
    finally:
        worker.stop()
        fake.stop()
        drop()
        get_redis().delete(*settings.queues, settings.outbox_stream)
    rate = messages / elapsed
    ceiling = cap / latency
    print(
        f"inbound worker ({worker.copies} x --pool {worker.pool} --concurrency {worker.concurrency}), "
        f"model latency {latency:.1f} s, cap {cap}: "
        f"{messages} replies in {elapsed:.1f} s = {rate:.2f}/s; ceiling cap/latency = {ceiling:.2f}/s "
        f"({rate / ceiling:.0%}); {calls / messages:.2f} model calls a message, at most {fake.max_in_flight} in flight"
    )
    return {
        "replies_per_s": round(rate, 2),
        "ceiling_per_s": round(ceiling, 2),
        "ratio": round(rate / ceiling, 3),
        "pool": worker.pool,
        "concurrency": worker.concurrency,
        "processes": worker.copies,
        "cap": cap,
        "latency_s": latency,
        "max_in_flight": fake.max_in_flight,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=1000)
    parser.add_argument("--latency", type=float, default=2.0)
    parser.add_argument("--pool", help="override the compose command line's pool (to compare)")
    parser.add_argument("--concurrency", help="override the compose command line's concurrency")
    parser.add_argument("--replicas", type=int, help="override compose's deploy.replicas (worker processes)")
    args = parser.parse_args()
    try:
        result = run(args.messages, args.latency, args.pool, args.concurrency, args.replicas)
    finally:
        if not os.environ.get("BENCH_KEEP"):
            shutil.rmtree(VAR, ignore_errors=True)
    print(json.dumps(result))


if __name__ == "__main__":
    main()

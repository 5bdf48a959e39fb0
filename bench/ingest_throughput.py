"""Ingest throughput and latency through the real broker, two prefork worker processes, offline engine.

Two phases, each on a fresh database:
- burst: N messages enqueued as fast as one producer can; msgs_per_s = N / (last reply - first send);
- paced: messages at a fixed rate below capacity; latency = the reply's outbox stream id (Redis server
  clock, ms) minus the send time, i.e. enqueue-to-outbox, without queueing behind a burst.
The last line is JSON: {"msgs_per_s":…, "p50_ms":…, "p99_ms":…}.

    python bench/ingest_throughput.py [--database postgresql|sqlite] [--burst 2000] [--paced 1000 --rate 100]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

from tests.support.scratch import create_database, scratch_run

RUN, VAR = scratch_run("bench")

from workers.settings import get_settings  # noqa: E402


class Replies:
    """Follows the outbox stream and remembers when each reply landed (stream id ms)."""

    def __init__(self, client, stream: str) -> None:
        self.client, self.stream, self.last, self.at_ms = client, stream, "0-0", {}

    def poll(self) -> None:
        while True:
            items = (
                self.client.xrange(self.stream, min=f"({self.last}", count=1000)
                if self.last != "0-0"
                else self.client.xrange(self.stream, count=1000)
            )
            if not items:
                return
            for sid, fields in items:
                self.at_ms.setdefault(fields["in_reply_to"], int(sid.split("-")[0]))
                self.last = sid

    def wait(self, ids: list[str], timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not all(i in self.at_ms for i in ids):
            if time.monotonic() > deadline:
                missing = [i for i in ids if i not in self.at_ms]
                raise TimeoutError(f"{len(missing)} replies missing, e.g. {missing[:3]}")
            time.sleep(0.005)
            self.poll()


def run(kind: str, burst: int, paced: int, rate: float) -> dict[str, float]:
    os.environ["ELLA_DATABASE_URL"], drop = create_database(kind, f"ella_bench_{RUN}_{uuid.uuid4().hex[:4]}", VAR)
    get_settings.cache_clear()
    from workers import db
    from workers.app import app
    from workers.gateway import enqueue_message
    from workers.procs import WorkerProcess
    from workers.redis_conn import get_redis, redis_url

    settings = get_settings()
    db.upgrade()
    # The inbound queue only, as deployed: the memory tasks each turn emits wait on the cognition queue.
    worker = WorkerProcess(
        queues=[settings.queue_inbound],
        concurrency=2,
        log_path=VAR / "worker.log",
        env={"ELLA_REDIS_URL": redis_url(), "ELLA_DATABASE_URL": settings.effective_database_url},
        extra_args=["-l", os.environ.get("BENCH_WORKER_LOGLEVEL", "WARNING")],
    ).start()
    replies = Replies(get_redis(), settings.outbox_stream)
    sent_ms: dict[str, float] = {}

    def send(prefix: str, i: int) -> str:
        mid = f"{prefix}-{i}"
        sent_ms[mid] = time.time() * 1000
        enqueue_message(
            message_id=mid,
            user_id=f"user-{i % 100}",
            text=f"Today I went for a walk by the river, {i}",
            sent_at=datetime.now(UTC),
        )
        return mid

    try:
        worker.wait_ready(app)
        replies.wait([send("warm", i) for i in range(100)], 60)

        t0 = time.perf_counter()
        ids = [send("burst", i) for i in range(burst)]
        replies.wait(ids, 300)
        elapsed = time.perf_counter() - t0
        msgs_per_s = burst / elapsed
        print(f"[{kind}] burst: {burst} messages in {elapsed:.2f} s = {msgs_per_s:.0f} msgs/s")

        ids = []
        t0 = time.perf_counter()
        for i in range(paced):
            delay = t0 + i / rate - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            ids.append(send("paced", i))
            replies.poll()
        replies.wait(ids, 120)
        lat = sorted(replies.at_ms[m] - sent_ms[m] for m in ids)
        p50 = statistics.median(lat)
        p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))]
        print(
            f"[{kind}] paced at {rate:.0f}/s: {paced} messages, enqueue-to-outbox p50 {p50:.1f} ms, "
            f"p99 {p99:.1f} ms, max {lat[-1]:.1f} ms"
        )
        return {"msgs_per_s": round(msgs_per_s, 1), "p50_ms": round(p50, 1), "p99_ms": round(p99, 1)}
    finally:
        worker.stop()
        drop()
        # this run's leftovers: the unconsumed memory tasks and its stream
        get_redis().delete(settings.queue_cognition, settings.outbox_stream)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", choices=["postgresql", "sqlite"], default="postgresql")
    parser.add_argument("--burst", type=int, default=2000)
    parser.add_argument("--paced", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=100.0)
    args = parser.parse_args()
    try:
        result = run(args.database, args.burst, args.paced, args.rate)
    finally:
        if not os.environ.get("BENCH_KEEP"):
            shutil.rmtree(VAR, ignore_errors=True)
    print(json.dumps(result))


if __name__ == "__main__":
    main()

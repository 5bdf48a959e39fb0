"""Ingest throughput and latency through the real broker and the compose inbound worker, offline engine.

The worker is started with docker-compose.yml's ``worker-inbound`` command line (its pool and concurrency;
only the queue names are this run's; ``--pool``/``--concurrency`` override them to compare). Phases, on a
fresh database:
- baseline: N no-op tasks (tests/support/noop_task.py: only a mark on a stream) through the same broker and
  worker; noop_per_s is the floor of broker + worker overhead on this machine, in this run;
- burst: N messages enqueued as fast as one producer can; msgs_per_s = N / (last reply - first send), also
  given as a ratio to noop_per_s, since absolute rates vary by machine;
- paced: messages at a fixed rate below capacity; latency = the reply's outbox stream id (Redis server
  clock, ms) minus the send time, i.e. enqueue-to-outbox, without queueing behind a burst.
Beside the burst's rate, the worker processes' own CPU per message over it (``worker_cpu_ms``: user + system time
from ``/proc``, Linux only): on a shared machine the rate moves with everything else running, this much less. And
what else a message costs over the same burst: PostgreSQL's and Redis's server processes (``postgres_cpu_ms``,
``redis_cpu_ms``: every process of that name on the machine) and this process's (``bench_cpu_ms``: the producer
and the reply reader), so the rate can be read against the CPU the machine has. The same four over the no-op
baseline give what a no-op task costs the machine (``noop_machine_cpu_ms``, against the message's
``machine_cpu_ms``): where both runs are CPU-bound, the rate's ratio to the no-op's is about the inverse of theirs.
``--without-reply`` answers every message with one fixed reply (``bench/fixed_reply.py``: no guard, context or
engine): what the turn's recording, publish and delivery cost alone, the floor no cheaper reply gets below.
The last line is JSON: {"msgs_per_s":…, "noop_per_s":…, "ratio_to_noop":…, "worker_cpu_ms":…, "machine_cpu_ms":…,
"noop_machine_cpu_ms":…, "p50_ms":…, …}.

    python bench/ingest_throughput.py [--database postgresql|sqlite] [--burst 2000] [--paced 1000 --rate 100]
                                      [--pool prefork --concurrency 4] [--without-reply]
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
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

from tests.support.scratch import create_database, scratch_run

RUN, VAR = scratch_run("bench")

from adapters.settings import get_settings  # noqa: E402
from bench.compose_inbound import ComposeInbound, Replies  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def group_cpu(pids: list[int]) -> float | None:
    """CPU seconds so far of these processes and of their children that have ended (``/proc/<pid>/stat``: user,
    system, and the reaped children's user and system time), or None where there is no ``/proc``.

    Why the children: PostgreSQL serves each connection from a backend that the postmaster forks and reaps, and
    a worker's pool opens and closes connections during a burst; their CPU, gone from ``/proc`` with them, is in
    the postmaster's children's time. A process that ends between two readings is also gone: read the group
    twice by name (``pids_named``) and compare totals."""
    total = 0.0
    for pid in pids:
        fields = stat_fields(pid)
        if fields is None:
            continue  # ended meanwhile: its time is now in its parent's children's time
        try:
            total += sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")
        except (ValueError, IndexError):
            return None
    return total if pids else None


def stat_fields(pid: int) -> list[str] | None:
    """``/proc/<pid>/stat``'s fields after the command name (the state first: the parent pid is [1], the user
    and system times [11] and [12], the reaped children's [13] and [14]), or None for a process that is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def pids_named(*names: str) -> list[int]:
    """Every process on this machine whose command name is one of ``names`` (``/proc/<pid>/comm``): the database
    and broker servers, whose CPU a message also costs. Machine-wide, so anything else they serve meanwhile counts
    too: read them on an otherwise idle machine."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().strip() in names:
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def with_children(pids: list[int]) -> list[int]:
    """These processes and their live children (``/proc/<pid>/stat``'s parent pid): a prefork worker's pool
    children do the work, and their CPU is in the parent's only once they have ended."""
    children = []
    for entry in Path("/proc").iterdir():
        fields = stat_fields(int(entry.name)) if entry.name.isdigit() else None
        if fields is not None and fields[1].isdigit() and int(fields[1]) in pids:
            children.append(int(entry.name))
    return [*pids, *children]


def machine_ms(cpu_ms: dict[str, float | None]) -> float | None:
    """The four groups' CPU per message together (None where one could not be read)."""
    values = list(cpu_ms.values())
    return None if any(v is None for v in values) else round(sum(v for v in values if v is not None), 2)


def run(
    kind: str,
    burst: int,
    paced: int,
    rate: float,
    pool: str | None = None,
    concurrency: str | None = None,
    copies: int | None = None,
    without_reply: bool = False,
) -> dict[str, float | str | None]:
    os.environ["ELLA_DATABASE_URL"], drop = create_database(kind, f"ella_bench_{RUN}_{uuid.uuid4().hex[:4]}", VAR)
    get_settings.cache_clear()
    from adapters import db
    from adapters.redis_conn import get_redis, redis_url
    from gateway.client import enqueue_message
    from workers.app import app

    settings = get_settings()
    db.upgrade()
    # The inbound queue only, as deployed: the memory tasks each turn emits wait on the cognition queue.
    level = os.environ.get("BENCH_WORKER_LOGLEVEL", "WARNING")
    included = ["bench.fixed_reply"] if without_reply else []
    worker = ComposeInbound(
        settings, f"bench-{RUN}", VAR / "worker.log", pool, concurrency, copies,
        # the no-op for the baseline and, for --without-reply, the fixed reply (bench/fixed_reply.py)
        extra_args=("--loglevel", level, "--include", ",".join(["tests.support.noop_task", *included])),
    )  # fmt: skip
    replies = Replies(get_redis(), settings.outbox_stream)
    noop_stream = f"{settings.redis_key_prefix}:bench:noop"
    marks = Replies(get_redis(), noop_stream)
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

    def noop(i: int) -> str:
        mark = f"noop-{i}"
        app.send_task("bench.noop", kwargs={"stream": noop_stream, "mark": mark}, queue=settings.queue_inbound)
        return mark

    try:
        worker.start({"ELLA_REDIS_URL": redis_url(), "ELLA_DATABASE_URL": settings.effective_database_url}, app)
        replies.wait([send("warm", i) for i in range(100)], 60)
        marks.wait([noop(-i - 1) for i in range(100)], 60)

        worker_pids = [proc.pid for proc in worker.procs]
        groups: dict[str, Callable[[], list[int]]] = {
            "worker": lambda: with_children(worker_pids),  # a prefork pool's children too
            "postgres": lambda: pids_named("postgres"),  # PostgreSQL's processes (their comm is "postgres")
            "redis": lambda: pids_named("redis-server"),
            "bench": lambda: [os.getpid()],  # the producer and the reply reader
        }

        def cpu_ms_over(phase: Callable[[], None]) -> tuple[float, dict[str, float | None]]:
            """(seconds the phase took, each group's CPU per message of ``burst`` over it)."""
            cpu_before = {name: group_cpu(pids()) for name, pids in groups.items()}
            t0 = time.perf_counter()
            phase()
            elapsed = time.perf_counter() - t0
            cpu_ms: dict[str, float | None] = {}
            for name, pids in groups.items():
                before, after = cpu_before[name], group_cpu(pids())
                cpu_ms[name] = None if before is None or after is None else round((after - before) * 1000 / burst, 2)
            return elapsed, cpu_ms

        noop_elapsed, noop_cpu_ms = cpu_ms_over(lambda: marks.wait([noop(i) for i in range(burst)], 300))
        noop_per_s = burst / noop_elapsed
        print(f"[{kind}] baseline: {burst} no-op tasks, same broker and worker = {noop_per_s:.0f} tasks/s")
        elapsed, cpu_ms = cpu_ms_over(lambda: replies.wait([send("burst", i) for i in range(burst)], 300))
        msgs_per_s = burst / elapsed
        worker_cpu_ms = cpu_ms["worker"]
        shown_cpu = "" if worker_cpu_ms is None else f"; worker CPU {worker_cpu_ms:.1f} ms a message"
        print(
            f"[{kind}] burst: {burst} messages in {elapsed:.2f} s = {msgs_per_s:.0f} msgs/s "
            f"({msgs_per_s / noop_per_s:.2f} of the no-op rate; worker {worker.copies} x --pool {worker.pool} "
            f"--concurrency {worker.concurrency}{shown_cpu})"
        )
        print(
            f"[{kind}] the same burst's CPU a message elsewhere: PostgreSQL {cpu_ms['postgres']} ms, "
            f"Redis {cpu_ms['redis']} ms, this process (producer and reply reader) {cpu_ms['bench']} ms "
            "(server processes machine-wide: read on an otherwise idle machine)"
        )
        print(
            f"[{kind}] the whole machine's CPU a message: {machine_ms(cpu_ms)} ms, a no-op task's "
            f"{machine_ms(noop_cpu_ms)} ms ({noop_cpu_ms}); where both are CPU-bound, the rate's ratio to the "
            "no-op's is about the inverse of these"
        )

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
        return {
            "msgs_per_s": round(msgs_per_s, 1),
            "noop_per_s": round(noop_per_s, 1),
            "ratio_to_noop": round(msgs_per_s / noop_per_s, 3),
            "worker_cpu_ms": None if worker_cpu_ms is None else round(worker_cpu_ms, 1),
            "postgres_cpu_ms": cpu_ms["postgres"],
            "redis_cpu_ms": cpu_ms["redis"],
            "bench_cpu_ms": cpu_ms["bench"],
            "machine_cpu_ms": machine_ms(cpu_ms),
            "noop_machine_cpu_ms": machine_ms(noop_cpu_ms),
            "p50_ms": round(p50, 1),
            "p99_ms": round(p99, 1),
            "pool": worker.pool,
            "concurrency": worker.concurrency,
            "processes": worker.copies,
            "reply": "fixed (--without-reply)" if without_reply else "offline engine",
        }
    finally:
        worker.stop()
        drop()
        # this run's leftovers: the unconsumed memory tasks and its stream
        get_redis().delete(settings.queue_cognition, settings.outbox_stream, noop_stream)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", choices=["postgresql", "sqlite"], default="postgresql")
    parser.add_argument("--burst", type=int, default=2000)
    parser.add_argument("--paced", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=100.0)
    parser.add_argument("--pool", help="override the compose command line's pool (to compare)")
    parser.add_argument("--concurrency", help="override the compose command line's concurrency")
    parser.add_argument("--replicas", type=int, help="override compose's deploy.replicas (worker processes)")
    parser.add_argument(
        "--without-reply", action="store_true",
        help="answer with one fixed reply (bench/fixed_reply.py): what a turn costs without guard, context, engine",
    )  # fmt: skip
    args = parser.parse_args()
    try:
        result = run(
            args.database, args.burst, args.paced, args.rate, args.pool, args.concurrency, args.replicas,
            args.without_reply,
        )  # fmt: skip
    finally:
        if not os.environ.get("BENCH_KEEP"):
            shutil.rmtree(VAR, ignore_errors=True)
    print(json.dumps(result))


if __name__ == "__main__":
    main()

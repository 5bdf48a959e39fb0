"""A worker's start-up CPU, phase by phase, with the sentence encoder's own load apart.

Each run is a fresh Python process (what a worker, a test's worker or a CLI command pays), timed with its own CPU
clock (``time.process_time``: what other work on a shared machine does not inflate):
- ``import``: ``import workers.app`` (Celery, SQLAlchemy, the tables, the tasks);
- ``rules``: the guard's rules loaded (``ella.guard.classifier.compiled_rules``);
- ``language``: the language identifier; ``ngram``: the n-gram model; ``head``: the learned stage's head;
- ``encoder``: the sentence encoder (reported apart: issue 37's budget of 2 s excludes it).

Then a whole worker, as ``ella worker`` and the tests' ``WorkerProcess`` start it: ``python -m celery -A
workers.app worker -c 2`` on a scratch SQLite database and this run's Redis, until it answers a ping; its CPU is
read from ``/proc`` (the worker and its two pool children: Celery's command, consumer and pool on top of the
phases above). ``worker_without_encoder`` subtracts the encoder's load measured in the probe.

    python bench/worker_startup.py [--runs 3] [--tree /path/to/another/checkout] [--no-bytecode]

``--no-bytecode``: every process compiles every module from source, as on a machine whose environment sets
PYTHONDONTWRITEBYTECODE before the Makefile stopped passing it on (an empty PYTHONPYCACHEPREFIX, nothing written).

``--tree`` also times another checkout (say, the commit before a change) in the same sitting, and prints the
ratio. The last line is JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BYTECODE: dict[str, str] = {}  # the environment's bytecode settings for the timed processes (--no-bytecode)
PROBE = r"""
import json, time
out = {}
t = time.process_time()
import workers.app  # noqa: F401
out["import"] = time.process_time() - t
t = time.process_time()
from ella.guard.classifier import compiled_rules
compiled_rules()
out["rules"] = time.process_time() - t
t = time.process_time()
from ella.guard.language import warm_up
warm_up()
out["language"] = time.process_time() - t
t = time.process_time()
from ella.guard.model import load_model
load_model()
out["ngram"] = time.process_time() - t
try:
    from ella import sentence
    from ella.guard import semantic
    t = time.process_time()
    semantic.head()
    out["head"] = time.process_time() - t
    t = time.process_time()
    sentence.encoder()
    out["encoder"] = time.process_time() - t
except (ImportError, AttributeError):  # a checkout from before the encoder (issue 33)
    out["head"] = out["encoder"] = 0.0
print(json.dumps(out))
"""


def probe(tree: Path) -> dict[str, float]:
    env = {**os.environ, **BYTECODE, "PYTHONPATH": str(tree), "ELLA_LLM_PROVIDER": "offline"}
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=tree, env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def cpu_seconds(pid: int) -> float:
    """User and system CPU of ``pid`` and its live children, from /proc."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    pids = [pid, *(int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split())]
    for p in pids:
        fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / ticks
    return total


def whole_worker(tree: Path) -> float:
    """CPU seconds of one real worker's start, to its first answered ping."""
    import tempfile
    import time
    import uuid

    from adapters.redis_conn import redis_url
    from adapters.settings import get_settings
    from workers.app import app
    from workers.procs import WorkerProcess

    scratch = Path(tempfile.mkdtemp(prefix="ella-bench-start-"))
    env = {
        **os.environ,
        **BYTECODE,
        "PYTHONPATH": str(tree),
        "ELLA_LLM_PROVIDER": "offline",
        "ELLA_REDIS_URL": redis_url(),
        "ELLA_DATABASE_URL": f"sqlite:///{scratch / 'start.db'}",
    }
    migrate = "from adapters import db; from adapters.settings import get_settings; db.upgrade(get_settings())"
    subprocess.run([sys.executable, "-c", migrate], cwd=tree, env=env, check=True, capture_output=True)
    tag = f"bench-start-{uuid.uuid4().hex[:6]}"  # queues of its own: it takes nobody's tasks
    queues = {f"ELLA_QUEUE_{kind.upper()}": f"{tag}-{kind}" for kind in ("inbound", "cognition", "batch")}
    env.update(queues)
    worker = WorkerProcess(queues=list(queues.values()), env={}, log_path=scratch / "worker.log", concurrency=2)
    with open(worker.log_path, "ab") as log:
        worker.proc = subprocess.Popen(
            [sys.executable, "-m", "celery", *worker.celery_args()],
            cwd=tree,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        worker.wait_ready(app, timeout=get_settings().wait_ceiling_s)
        time.sleep(0.3)  # the pool's children finish their own start
        return cpu_seconds(worker.proc.pid)
    finally:
        worker.kill()


def median_of(tree: Path, runs: int) -> dict[str, float]:
    samples = [probe(tree) for _ in range(runs)]
    phases = samples[0].keys()
    out = {phase: round(statistics.median(s[phase] for s in samples), 3) for phase in phases}
    out["total_without_encoder"] = round(sum(v for k, v in out.items() if k != "encoder"), 3)
    out["worker"] = round(statistics.median(whole_worker(tree) for _ in range(runs)), 3)
    out["worker_without_encoder"] = round(out["worker"] - out["encoder"], 3)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--tree", type=Path, default=None, help="another checkout to time beside this one")
    parser.add_argument("--no-bytecode", action="store_true", help="compile every module from source each time")
    args = parser.parse_args()
    if args.no_bytecode:
        import tempfile

        BYTECODE.update(PYTHONDONTWRITEBYTECODE="1", PYTHONPYCACHEPREFIX=tempfile.mkdtemp(prefix="ella-no-pyc-"))
    else:
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    result: dict[str, object] = {
        "runs": args.runs,
        "bytecode": not args.no_bytecode,
        "this": median_of(ROOT, args.runs),
    }
    print(f"this checkout (CPU seconds, median of {args.runs}): {result['this']}")
    if args.tree is not None:
        other = median_of(args.tree.resolve(), args.runs)
        result["other"] = other
        this = result["this"]
        assert isinstance(this, dict)
        result["ratio_without_encoder"] = round(this["total_without_encoder"] / other["total_without_encoder"], 3)
        result["worker_ratio_without_encoder"] = round(
            this["worker_without_encoder"] / other["worker_without_encoder"], 3
        )
        print(f"{args.tree} (CPU seconds, median of {args.runs}): {other}")
        print(f"start-up without the encoder: {result['ratio_without_encoder']} of the other checkout's")
    print(json.dumps(result))


if __name__ == "__main__":
    main()

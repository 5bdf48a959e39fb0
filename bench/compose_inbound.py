"""The compose inbound worker and the outbox stream, as the benchmarks that send through the broker use them.

Why shared: ``bench/ingest_throughput.py`` and ``bench/model_latency.py`` both run docker-compose.yml's
``worker-inbound`` command line (its pool and concurrency, one process per ``deploy.replicas``; only the queue
names are the run's) with compose's connection-pool size for it, and time the replies on the outbox stream.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path

from chaos.harness import option, replicas, service_spec, worker_argv

ROOT = Path(__file__).resolve().parents[1]
# What compose sets for the inbound worker's process beyond its command line that a bench must run with too: the
# size of its connection pool (its threads share it). Not the rest of its environment: URLs, paths and the
# production switches are the run's own.
POOL_VARIABLES = ("ELLA_DATABASE_POOL_SIZE", "ELLA_DATABASE_MAX_OVERFLOW")


def pool_env(service: str) -> dict[str, str]:
    """``service``'s connection-pool variables as compose sets them."""
    environment = service_spec(service).get("environment") or {}
    return {key: str(environment[key]) for key in POOL_VARIABLES if key in environment}


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


class ComposeInbound:
    """The compose inbound worker (one process per ``deploy.replicas``) on this run's queues; ``extra_args``
    are appended (a log level, a module to include). Its output goes to ``log_path``."""

    def __init__(  # type: ignore[no-untyped-def]
        self,
        settings,
        name: str,
        log_path: Path,
        pool: str | None = None,
        concurrency: str | None = None,
        copies: int | None = None,
        extra_args: tuple[str, ...] = (),
    ) -> None:
        self.name, self.log_path = name, log_path
        argv = worker_argv("worker-inbound", settings, self.name)
        for flag, value in (("--pool", pool), ("--concurrency", concurrency)):
            if value is not None:
                argv += [flag, value]
        self.argv = [*argv, *extra_args]
        self.pool = option(self.argv, "--pool", "-P") or "prefork"
        self.concurrency = option(self.argv, "--concurrency", "-c")
        self.copies = copies or replicas("worker-inbound")
        self.procs: list[subprocess.Popen[bytes]] = []

    def start(self, env: dict[str, str], app) -> None:  # type: ignore[no-untyped-def]
        nodes = [f"{self.name}-{k}" for k in range(self.copies)]
        with open(self.log_path, "ab") as log:
            for node in nodes:
                argv = [a.replace(f"{self.name}@", f"{node}@") for a in self.argv]
                self.procs.append(
                    subprocess.Popen(
                        # compose's pool settings unless this run sets its own (to compare)
                        argv, env={**pool_env("worker-inbound"), **os.environ, **env, "PYTHONPATH": str(ROOT)},
                        stdout=log,
                        stderr=subprocess.STDOUT, cwd=ROOT,
                    )
                )  # fmt: skip
        hosts = [f"{node}@{socket.gethostname()}" for node in nodes]
        deadline = time.monotonic() + 120
        while len(app.control.ping(destination=hosts, timeout=1.0)) < self.copies:
            if any(p.poll() is not None for p in self.procs) or time.monotonic() > deadline:
                raise RuntimeError(f"worker did not start: see {self.log_path}")

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()

"""Starting and stopping real Celery worker processes (for ``ella demo``, ``ella chat`` and the tests).

Why a subprocess and not an in-process thread: the demo must show the same path production takes,
a prefork worker consuming from the broker, and the tests must be able to ``kill -9`` it.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from celery import Celery


@dataclass
class WorkerProcess:
    """A ``celery worker`` child in its own process group (so a kill reaches its pool children too)."""

    queues: list[str]
    env: dict[str, str]
    log_path: Path
    concurrency: int = 2
    name: str = field(default_factory=lambda: f"ella-{uuid.uuid4().hex[:8]}")
    extra_args: list[str] = field(default_factory=list)
    proc: subprocess.Popen[bytes] | None = None

    @property
    def hostname(self) -> str:
        return f"{self.name}@{socket.gethostname()}"

    def celery_args(self) -> list[str]:
        """The ``celery`` command's arguments for this worker (after ``python -m celery``)."""
        return [
            "-A",
            "workers.app",
            "worker",
            "-P",
            "prefork",
            "-c",
            str(self.concurrency),
            "-Q",
            ",".join(self.queues),
            "-n",
            self.hostname,
            "--without-gossip",
            "--without-mingle",
            "-l",
            "INFO",
            *self.extra_args,
        ]

    def start(self) -> WorkerProcess:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        argv = [sys.executable, "-m", "celery", *self.celery_args()]
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(
                argv, env={**os.environ, **self.env}, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        return self

    def wait_ready(self, app: Celery, timeout: float | None = None) -> None:
        """Block until the worker answers a ping; fail with its log tail if it exits or never answers.

        The wait is on the worker's own answer, with a generous ceiling (``ELLA_WAIT_CEILING_S``, 300 s by
        default): a start takes 3-5 s on an idle 2-core machine and 5-13 s while a test run loads it, and a fixed
        60 s failed tests and the demo on a machine at load 9-12."""
        if timeout is None:
            from adapters.settings import get_settings

            timeout = get_settings().wait_ceiling_s
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc is None or self.proc.poll() is not None:
                raise RuntimeError(f"worker exited with {self.proc and self.proc.returncode}:\n{self.log_tail()}")
            if app.control.ping(destination=[self.hostname], timeout=0.5):
                return
        raise TimeoutError(f"worker did not answer within {timeout}s:\n{self.log_tail()}")

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def stop(self, timeout: float = 30.0) -> int | None:
        """Warm shutdown (SIGTERM: finish running tasks), then SIGKILL the group if it hangs."""
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else None
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            return self.proc.returncode

    def kill(self) -> None:
        """``kill -9`` the whole process group: the worker and its pool children, as a crash would."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

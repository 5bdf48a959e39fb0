"""A warmed parent that forks the tests' Celery workers: what a worker imports and loads is paid once per test
process, not once per test.

Why: most integration tests start a real ``celery worker``, and each start from a fresh interpreter cost 3-6 s of
CPU (importing Celery, SQLAlchemy, the tables and the tasks; the guard's rules, language identifier and sentence
encoder) on a two-core machine, a few hundred times a run. Here one process per pytest process imports the app and
its task modules and loads the guard once, freezes that heap (``gc.freeze``) and then, for each request, forks a
child that becomes a worker by running the real ``celery worker`` command (``EllaCelery.start``) with the test's
environment: its own process group, its own log, the same consumer, pool, signals and tasks as ``ella worker``.

What the parent does before a fork is only what does not depend on the environment: imports (the app's settings,
broker URL and queues are resolved lazily, in the child) and the guard's models. The exceptions are the variables
a module reads at its import (``IMPORT_TIME_VARIABLES``: the metrics directory, which ``adapters.metrics`` and
prometheus_client choose once): a worker whose environment differs from the zygote's in one of them is started
the old way (``WorkerProcess.start``, a fresh interpreter), and so is every test worker under
``ELLA_TEST_FORK_WORKERS=0``.

Protocol (one JSON object a line): the zygote first writes ``{"ready": true}`` on stdout once warm (or
``{"error": text}`` and exits); then for each request on stdin, ``{"argv": [...], "env": {...}, "log": path}``, it
answers ``{"pid": n}``. A child's exit code is written to ``<status dir>/<pid>`` when the parent reaps it (a
forked worker is not the test process's child, so ``ForkedProc`` reads it there). EOF on stdin ends the parent.

    python -m tests.support.worker_zygote STATUS_DIR
"""

from __future__ import annotations

import gc
import json
import os
import signal
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from workers.procs import WorkerProcess

# Read when a module is imported, not when a worker starts: a fork would keep the zygote's values (found by
# recording every settings read during ``_warm``, and by a search of the project's modules for environment reads).
IMPORT_TIME_VARIABLES = ("ELLA_METRICS_DIR", "PROMETHEUS_MULTIPROC_DIR")


def _warm() -> None:
    """Import the app and every task module, and load the guard: the start-up work that reads no setting."""
    import importlib

    from workers.app import TASK_MODULES

    for name in TASK_MODULES:
        importlib.import_module(name)
    import celery.bin.celery  # noqa: F401  (the command and its plugins: 0.2 s)
    from celery.worker import WorkController  # noqa: F401

    from ella.guard.classifier import prepare

    prepare()
    gc.freeze()


def _reaper(status_dir: Path) -> Any:
    def reap(signum: int, frame: object) -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            tmp = status_dir / f".{pid}"
            tmp.write_text(str(os.waitstatus_to_exitcode(status)))
            tmp.rename(status_dir / str(pid))

    return reap


def _become_worker(request: dict[str, Any]) -> int:
    """In the forked child: the test's environment, stdio on the worker's log, then the real worker command."""
    os.setsid()
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the pool reaps its own children
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    log = os.open(request["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(devnull)
    os.close(log)
    os.environ.clear()
    os.environ.update(request["env"])
    from adapters.settings import get_settings

    get_settings.cache_clear()
    sys.argv = ["celery", *request["argv"]]
    from workers.app import app

    try:
        app.start(request["argv"])
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 1
    except BaseException:  # noqa: BLE001  (a forked child must never return into the zygote's loop)
        traceback.print_exc()
        return 1
    return 0


def main(status_dir: Path) -> None:
    status_dir.mkdir(parents=True, exist_ok=True)
    out = sys.stdout
    try:
        _warm()
        out.write(json.dumps({"ready": True}) + "\n")
    except BaseException:
        out.write(json.dumps({"error": traceback.format_exc()}) + "\n")
        raise
    finally:
        out.flush()
    signal.signal(signal.SIGCHLD, _reaper(status_dir))
    for line in sys.stdin:
        request = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                code = _become_worker(request)
            finally:
                try:
                    sys.stdout.flush()
                    sys.stderr.flush()
                finally:
                    os._exit(code)
        out.write(json.dumps({"pid": pid}) + "\n")
        out.flush()


class ForkedProc:
    """What the tests read of a worker process (``subprocess.Popen``'s ``pid``, ``poll``, ``wait``,
    ``send_signal``, ``returncode``) for a worker the zygote forked: it is the zygote's child, not ours, so its
    exit code is read from the file the zygote writes when it reaps it."""

    def __init__(self, pid: int, status_dir: Path) -> None:
        self.pid = pid
        self._status = status_dir / str(pid)
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None and self._status.exists():
            self.returncode = int(self._status.read_text())
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(f"worker {self.pid}", timeout or 0)
            time.sleep(0.02)
        assert self.returncode is not None
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                pass

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


class Zygote:
    """The test process's handle on its zygote: started on first use, ended with the test process."""

    def __init__(self, status_dir: Path, log_path: Path) -> None:
        self.status_dir = status_dir
        self.log_path = log_path
        self._proc: subprocess.Popen[str] | None = None
        self._lock = threading.Lock()

    def serves(self, env: dict[str, str]) -> bool:
        """Whether a worker with environment ``env`` may be forked from the zygote (started with this process's
        environment): not when it differs in a variable read at import (``IMPORT_TIME_VARIABLES``)."""
        return all(env.get(name) == os.environ.get(name) for name in IMPORT_TIME_VARIABLES)

    def _started(self) -> subprocess.Popen[str]:
        if self._proc is None or self._proc.poll() is not None:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.log_path, "ab") as log:
                self._proc = subprocess.Popen(
                    [sys.executable, "-m", "tests.support.worker_zygote", str(self.status_dir)],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=log,
                    text=True,
                    bufsize=1,
                )
            answer = self._read(self._proc.stdout)
            if "error" in answer:
                raise RuntimeError(f"the worker zygote did not start:\n{answer['error']}")
        return self._proc

    @staticmethod
    def _read(stream: IO[str] | None) -> dict[str, Any]:
        assert stream is not None
        line = stream.readline()
        if not line:
            raise RuntimeError("the worker zygote exited (see its log)")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def start(self, worker: WorkerProcess, env: dict[str, str] | None = None) -> WorkerProcess:
        """``worker.start()``, forked from the zygote: its ``celery`` arguments and log, with ``env`` (by default
        this process's environment and the worker's own, as ``WorkerProcess.start`` gives it)."""
        worker.log_path.parent.mkdir(parents=True, exist_ok=True)
        full_env = {**os.environ, **worker.env} if env is None else env
        worker.proc = self.fork(worker.celery_args(), full_env, worker.log_path)  # type: ignore[assignment]
        return worker

    def fork(self, argv: list[str], env: dict[str, str], log: Path) -> ForkedProc:
        with self._lock:
            proc = self._started()
            assert proc.stdin is not None
            proc.stdin.write(json.dumps({"argv": argv, "env": env, "log": str(log)}) + "\n")
            proc.stdin.flush()
            answer = self._read(proc.stdout)
        return ForkedProc(int(answer["pid"]), self.status_dir)

    def close(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            assert self._proc.stdin is not None
            self._proc.stdin.close()
            try:
                self._proc.wait(10)
            except subprocess.TimeoutExpired:
                self._proc.kill()


if __name__ == "__main__":
    main(Path(sys.argv[1]))

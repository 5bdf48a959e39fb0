"""The shared harness: private servers, the compose stack's own command lines, the gateway, the outbox.

Why the compose command lines verbatim: the faults must hit what is deployed (the inbound pool, its
concurrency, beat's re-send sweep), not a test fixture's idea of a worker. Only ``celery``/``ella`` is
resolved to this virtualenv's script. Timeouts are short (visibility 10 s, re-send sweep every 2 s), as in
the tests, so a lost task is redelivered within a fault's time bound instead of an hour later.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import redis
import yaml

from chaos.counting import first_landing, recovery_seconds, tally
from chaos.model_faults import FaultyAnthropic
from chaos.services import PostgresCluster, RedisServer, wait_until

ROOT = Path(__file__).resolve().parents[1]
COMPOSE_FILE = ROOT / "docker-compose.yml"
WORKERS = ("worker-inbound", "worker-cognition", "worker-batch")
# Short timeouts (nested as settings require): redelivery and re-sends within a fault's bound.
FAST_ENV = {
    "ELLA_VISIBILITY_TIMEOUT_S": "10",
    "ELLA_TASK_TIME_LIMIT_S": "8",
    "ELLA_TASK_SOFT_TIME_LIMIT_S": "7",
    "ELLA_LLM_TIMEOUT_S": "5",
    "ELLA_LLM_RETRY_BASE_S": "0.5",
    "ELLA_LLM_RETRY_MAX_S": "4",
    "ELLA_UNACKED_RESTORE_INTERVAL_S": "1",
    "ELLA_UNACKED_RESTORE_THROTTLE": "1",
    "ELLA_UNACKED_MUTEX_EXPIRE_S": "5",
    "ELLA_INBOX_RESEND_GRACE_S": "2",
    "ELLA_INBOX_SWEEP_INTERVAL_S": "2",
    "ELLA_LOG_JSON": "true",
    "ELLA_NOTIFICATION_PAGE": "100",  # notification_kill9: a commit per 100 sends, so kills strike mid-send
}


def service_spec(service: str, compose_file: Path = COMPOSE_FILE) -> dict[str, Any]:
    """A compose service's definition, its anchors merged by the YAML loader."""
    spec: dict[str, Any] = yaml.safe_load(compose_file.read_text())["services"][service]
    return spec


def compose_argv(service: str, compose_file: Path = COMPOSE_FILE) -> list[str]:
    """A compose service's command, with its entry point resolved to this virtualenv's script."""
    command = service_spec(service, compose_file)["command"]
    args = command.split() if isinstance(command, str) else [str(a) for a in command]
    script = Path(sys.executable).parent / args[0]
    return [str(script) if script.exists() else args[0], *args[1:]]


def replicas(service: str, compose_file: Path = COMPOSE_FILE) -> int:
    """How many containers compose runs of ``service`` (``deploy.replicas``, default 1)."""
    return int((service_spec(service, compose_file).get("deploy") or {}).get("replicas", 1))


def instances(service: str) -> list[str]:
    """``service`` once per replica: ``worker-inbound``, ``worker-inbound.2``, ..."""
    return [service, *(f"{service}.{k}" for k in range(2, replicas(service) + 1))]


def instance_argv(instance: str) -> list[str]:
    """A replica's command line: on one host its Celery node name gets the replica number (``inbound2@%h``)."""
    service, _, number = instance.partition(".")
    args = compose_argv(service)
    for i, arg in enumerate(args[:-1]):
        if number and arg in ("--hostname", "-n"):
            node, _, host = args[i + 1].partition("@")
            args[i + 1] = f"{node}{number}@{host}"
    return args


def worker_argv(service: str, settings: Any, name: str) -> list[str]:
    """A compose worker's command line on ``settings``' queue names (a bench's isolated run), as ``name``."""
    from workers.routing import Queue

    args = compose_argv(service)
    out = list(args)
    for i, arg in enumerate(args[:-1]):
        if arg in ("-Q", "--queues"):
            out[i + 1] = ",".join(Queue(role).name_in(settings) for role in args[i + 1].split(","))
        elif arg in ("--hostname", "-n"):
            out[i + 1] = f"{name}@%h"
    return out


def option(args: list[str], *names: str) -> str | None:
    """The value of a command-line option (``--pool threads`` or ``--pool=threads``), the last one given."""
    found = None
    for i, arg in enumerate(args):
        for name in names:
            if arg == name and i + 1 < len(args):
                found = args[i + 1]
            elif arg.startswith(name + "="):
                found = arg.split("=", 1)[1]
    return found


def celery_hostname(args: list[str]) -> str | None:
    for i, arg in enumerate(args[:-1]):
        if arg in ("--hostname", "-n"):
            return args[i + 1].replace("%h", socket.gethostname())
    return None


@dataclass
class ComposeProcess:
    """One compose service as a process group of ours (so kill -9 reaches its pool children)."""

    service: str
    env: dict[str, str]
    log_path: Path
    proc: subprocess.Popen[bytes] | None = None

    @property
    def argv(self) -> list[str]:
        return instance_argv(self.service)

    @property
    def hostname(self) -> str | None:
        return celery_hostname(self.argv)

    def start(self) -> ComposeProcess:
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(
                self.argv, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, cwd=ROOT
            )
        return self

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill9(self) -> None:
        if self.alive:
            assert self.proc is not None
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def kill9_pool_child(self) -> bool:
        """kill -9 of the prefork pool's child processes only (what runs the task: the OOM killer's choice); the
        worker's main process stays and forks new ones. False when it has none (not running, or a thread pool)."""
        if not self.alive:
            return False
        assert self.proc is not None
        children = children_of(self.proc.pid)
        for pid in children:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        return bool(children)

    def stop(self, timeout: float = 30) -> None:
        if not self.alive:
            return
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill9()


def children_of(pid: int) -> list[int]:
    """The direct children of ``pid``, from ``/proc/*/stat`` (its 4th field is the parent's pid)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields and int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


@dataclass
class Window:
    """When a fault started and when it was cleared (time.time(), this host's clock = Redis' clock)."""

    fault_at: float = 0.0
    cleared_at: float = 0.0
    done: threading.Event = field(default_factory=threading.Event)


class Chaos:
    """One stack for the whole suite: each fault uses its own users (``<fault>-u<k>``), so counts separate."""

    def __init__(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="ella-chaos-"))
        self.redis = RedisServer(self.tmp / "redis")
        self.pg = PostgresCluster(self.tmp / "pg")
        self.model = FaultyAnthropic()
        self.procs: dict[str, ComposeProcess] = {}
        self.env: dict[str, str] = {}
        self.db_url = ""
        self.restarts: Counter[str] = Counter()  # service -> restarts after it died on its own
        self._last_start: dict[str, float] = {}

    # -- the stack ---------------------------------------------------------------------------------------------

    def up(self) -> None:
        self.redis.start()
        self.pg.init().start()
        self.model.start()
        self.model.latency = 0.05
        import psycopg

        with psycopg.connect(f"postgresql://postgres@127.0.0.1:{self.pg.port}/postgres", autocommit=True) as c:
            c.execute('CREATE DATABASE "ella"')
        self.db_url = f"postgresql+psycopg://postgres@127.0.0.1:{self.pg.port}/ella"
        (self.tmp / "var").mkdir()
        (self.tmp / "log").mkdir()
        clean = {k: v for k, v in os.environ.items() if not k.startswith(("ELLA_", "ANTHROPIC_"))}
        self.env = {
            **clean,
            **FAST_ENV,
            "ELLA_VAR_DIR": str(self.tmp / "var"),
            "ELLA_REDIS_URL": self.redis.url,
            "ELLA_DATABASE_URL": self.db_url,
            "ELLA_LLM_PROVIDER": "anthropic",
            "ANTHROPIC_API_KEY": "chaos-key",
            "ANTHROPIC_BASE_URL": self.model.base_url,
            # As compose runs it: production, so the erasures and exports go through signed requests
            "ELLA_ENV": "production",
            "ELLA_GATEWAY_SIGNING_KEY": "chaos-signing-" + os.urandom(8).hex(),
            "PYTHONPATH": str(ROOT),
        }
        os.environ.clear()
        os.environ.update(self.env)  # the gateway client in this process reads the same settings
        subprocess.run(compose_argv("migrate"), env=self.env, cwd=ROOT, check=True, capture_output=True)
        for service in (*WORKERS, "beat"):
            for instance in instances(service):
                self.start(instance)
        for service in WORKERS:
            for instance in instances(service):
                self.wait_ready(instance)

    def start(self, service: str) -> ComposeProcess:
        proc = ComposeProcess(service, self.env, self.tmp / "log" / f"{service}.log").start()
        self.procs[service] = proc
        self._last_start[service] = time.monotonic()
        return proc

    def wait_ready(self, service: str, timeout: float = 90) -> None:
        from kombu.exceptions import OperationalError

        from workers.app import app

        proc = self.procs[service]

        def ready() -> bool:
            try:
                return not proc.alive or bool(app.control.ping(destination=[proc.hostname], timeout=0.5))
            except (redis.RedisError, OSError, OperationalError):  # a pooled connection from before a Redis fault
                return False

        wait_until(ready, timeout, f"{service} answers a ping")
        if not proc.alive:
            raise RuntimeError(f"{service} exited; see {proc.log_path}")

    def revive(self, wait: bool = True) -> list[str]:
        """Compose's ``restart: unless-stopped``: start what died (counted in ``restarts``); return their names.

        A process that dies again at once (a poison message, say) is restarted at most every 2 s, as Docker
        backs off, and the suite goes on either way.
        """
        now = time.monotonic()
        died = [
            name for name, proc in self.procs.items() if not proc.alive and now - self._last_start.get(name, 0.0) > 2.0
        ]
        for name in died:
            self.restarts[name] += 1
            self.start(name)
        for name in died if wait else ():
            if name.partition(".")[0] in WORKERS:
                try:
                    self.wait_ready(name)
                except (RuntimeError, TimeoutError) as exc:
                    log(f"{name} did not come back: {exc}")
        return died

    def down(self) -> None:
        for proc in self.procs.values():
            proc.stop(20)
        self.model.stop()
        self.redis.stop()
        self.pg.stop()
        if not os.environ.get("CHAOS_KEEP"):
            import shutil

            shutil.rmtree(self.tmp, ignore_errors=True)

    # -- traffic -----------------------------------------------------------------------------------------------

    def send(self, message_id: str, user_id: str, text: str, bound: float = 60) -> None:
        """``gateway.client.enqueue_message`` as a gateway calls it: retried while the broker is away."""
        from gateway.client import enqueue_message

        deadline = time.monotonic() + bound
        while True:
            try:
                enqueue_message(message_id=message_id, user_id=user_id, text=text, sent_at=datetime.now(UTC))
                return
            except Exception:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.25)

    def traffic(
        self,
        prefix: str,
        n: int,
        *,
        rate: float = 8.0,
        text: Callable[[int], str] = lambda i: f"Today I walked by the river and thought about my sister, {i}",
        fault_at_index: int | None = None,
        fault: Callable[[Window], None] | None = None,
        user: Callable[[int], str] | None = None,
    ) -> tuple[dict[str, float], Window]:
        """Send ``n`` messages at ``rate``; start ``fault`` in a thread before message ``fault_at_index``.

        ``user``: who sends message ``i`` (default five users, ``<prefix>-u<i % 5>``)."""
        user_of = user or (lambda i: f"{prefix}-u{i % 5}")
        window = Window()
        sent: dict[str, float] = {}
        t0 = time.monotonic()
        for i in range(n):
            if fault is not None and i == (fault_at_index or 0):
                threading.Thread(target=self._run_fault, args=(fault, window), daemon=True).start()
            delay = t0 + i / rate - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            mid = f"{prefix}-m{i}-{uuid.uuid4().hex[:4]}"
            sent[mid] = time.time()
            self.send(mid, user_of(i), text(i))
        if fault is None:
            window.fault_at = window.cleared_at = min(sent.values(), default=time.time())
            window.done.set()
        window.done.wait(120)
        return sent, window

    @staticmethod
    def _run_fault(fault: Callable[[Window], None], window: Window) -> None:
        window.fault_at = time.time()
        try:
            fault(window)
        finally:
            window.cleared_at = window.cleared_at or time.time()
            window.done.set()

    def stream(self) -> list[tuple[str, dict[str, str]]]:
        from adapters.settings import get_settings

        client = self.redis.client()
        entries: list[tuple[str, dict[str, str]]] = []
        last = "-"
        while True:
            batch = client.xrange(get_settings().outbox_stream, min=last, count=5000)
            batch = [e for e in batch if e[0] != last]
            if not batch:
                return entries
            entries.extend(batch)
            last = batch[-1][0]

    def replied(self, ids: set[str]) -> set[str]:
        try:
            return {f.get("in_reply_to", "") for _, f in self.stream()} & ids
        except redis.RedisError:  # Redis away for a moment: nothing known yet
            return set()

    def wait_answered(self, ids: set[str], bound: float, settle: float, drain_bound: float = 30) -> float:
        """Wait until every id has a reply (at most ``bound`` s), then ``settle`` s more for duplicates, and
        for the cognition queue to drain (memories and facts are what garbage is looked for in)."""
        t0 = time.monotonic()
        while time.monotonic() - t0 < bound and self.replied(ids) != ids:
            self.revive(wait=False)
            time.sleep(0.5)
        settled = time.monotonic() + settle
        while time.monotonic() < settled:
            self.revive(wait=False)
            time.sleep(0.5)
        from adapters.settings import get_settings

        cognition = get_settings().queue_cognition
        drain_until = time.monotonic() + drain_bound
        while time.monotonic() < drain_until:
            try:
                if not self.redis.client().llen(cognition):
                    break
            except redis.RedisError:
                log("Redis away while waiting for the cognition queue to drain")
            time.sleep(0.5)
        time.sleep(1)
        return time.monotonic() - t0

    # -- the verdict -------------------------------------------------------------------------------------------

    def restarts_line(self) -> dict[str, Any]:
        """``{"restarts": {...}}`` for a fault's line (what died on its own during it), taken: it is counted once."""
        died = dict(self.restarts)
        self.restarts.clear()
        return {"restarts": died} if died else {}

    def verdict(self, name: str, sent: dict[str, float], window: Window, **extra: Any) -> dict[str, Any]:
        from sqlalchemy import create_engine

        from chaos.garbage import garbage_of

        entries = self.stream()
        mine = [(sid, f) for sid, f in entries if f.get("in_reply_to") in sent or f.get("user_id", "").startswith(name)]
        counts = tally(sent, [f.get("in_reply_to", "") for _, f in mine])
        landed = first_landing((sid, f.get("in_reply_to", "")) for sid, f in mine)
        engine = create_engine(self.db_url)
        try:
            garbage = garbage_of(engine, f"{name}-")
        finally:
            engine.dispose()
        line: dict[str, Any] = {
            "fault": name,
            **counts.as_dict(),
            "recover_s": recovery_seconds(window.fault_at, sent, landed, window.cleared_at),
            "garbage_stored": garbage.total,
            "garbage": {"facts": garbage.facts, "selflog": garbage.selflog, "memory": garbage.memory},
            "routes": dict(Counter(f.get("route", "") for _, f in mine if f.get("in_reply_to") in sent)),
            **extra,
        }
        if garbage.ella_user_claims:
            line["ella_user_claims"] = garbage.ella_user_claims
        line.update(self.restarts_line())  # died on their own during this fault, restarted
        return line


def dumps(line: dict[str, Any]) -> str:
    return json.dumps(line, separators=(", ", ": "))


def run_bounded(fn: Callable[[], dict[str, Any]], name: str, bound: float) -> dict[str, Any]:
    """Run one fault with a time bound: a hung fault is reported (``timed_out``), the suite goes on."""
    result: dict[str, Any] = {}
    error: list[BaseException] = []

    def target() -> None:
        try:
            result.update(fn())
        except Exception as exc:  # noqa: BLE001  (reported on the fault's line; the suite goes on)
            error.append(exc)

    thread = threading.Thread(target=target, name=f"chaos-{name}", daemon=True)
    thread.start()
    thread.join(bound)
    if thread.is_alive():
        return {"fault": name, "timed_out": bound}
    if error:
        return {"fault": name, "error": f"{type(error[0]).__name__}: {error[0]}"}
    return result


def log(message: str) -> None:
    print(f"chaos: {message}", file=sys.stderr, flush=True)

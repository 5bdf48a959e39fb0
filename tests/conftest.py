"""Test wiring: real Redis, real SQLite and PostgreSQL databases, real worker subprocesses.

The environment is set before any project module reads settings: this run gets its own queue names and
outbox stream (so it cannot eat another run's messages), short timeouts (so redelivery after a kill takes
seconds, not an hour), and a scratch ``var`` directory.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.support.schedule import longest_files_first
from tests.support.scratch import BackgroundDrops, create_database, scratch_run
from tests.support.worker_zygote import Zygote

if TYPE_CHECKING:
    import redis

    from workers.procs import WorkerProcess

RUN, VAR = scratch_run("test")
# Short timeouts, so that redelivery after a kill, restores and re-sends take seconds, not an hour.
os.environ.update(
    {
        "ELLA_VISIBILITY_TIMEOUT_S": "8",
        "ELLA_TASK_TIME_LIMIT_S": "6",
        "ELLA_TASK_SOFT_TIME_LIMIT_S": "5",
        "ELLA_LLM_TIMEOUT_S": "4",
        "ELLA_UNACKED_RESTORE_INTERVAL_S": "1",
        "ELLA_UNACKED_RESTORE_THROTTLE": "1",
        "ELLA_UNACKED_MUTEX_EXPIRE_S": "5",
        "ELLA_INBOX_RESEND_GRACE_S": "2",
        "ELLA_INBOX_SWEEP_INTERVAL_S": "2",
        "ELLA_LOG_JSON": "true",
        # Memory retrieval on the hashing embedder unless a test names the encoder (ELLA_EMBEDDER=multilingual):
        # the ranking tests were written against its exact, model-free scores. The guard's learned stage and the
        # readers still read the multilingual encoder's vectors (ella.sentence), as in production.
        "ELLA_EMBEDDER": os.environ.get("ELLA_TEST_EMBEDDER", "hashing"),
    }
)

BACKENDS = [b.strip() for b in os.environ.get("ELLA_TEST_DATABASES", "sqlite,postgresql").split(",") if b.strip()]

from adapters.settings import get_settings  # noqa: E402  (after the environment is set)


def on_one_backend() -> pytest.MarkDecorator:
    """Run a test on the first configured back end only, for a test whose outcome no SQL can change (what it
    tests is Redis or the broker): ``database_url`` parametrized directly, which overrides its ``params``. Each
    such test says why in its docstring."""
    return pytest.mark.parametrize("database_url", BACKENDS[:1], indirect=True)


def only_on(backend: str) -> pytest.MarkDecorator:
    """Run a test on ``backend`` only (the files of SQLite, of PostgreSQL), skipped when it is not configured:
    no database of the other back end is created and migrated first for a test that would then skip."""
    param = pytest.param(backend, marks=pytest.mark.skipif(backend not in BACKENDS, reason=f"{backend} not configured"))
    return pytest.mark.parametrize("database_url", [param], indirect=True)


def pytest_configure(config: pytest.Config) -> None:
    """Under ``--dist loadfile``, hand files out in collection order (longest first, below), not xdist's order
    by number of tests, which left the few long worker files for last (tests/support/schedule.py)."""
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items[:] = longest_files_first(items)


def wait_for(predicate: Callable[[], object], timeout: float, interval: float = 0.1, what: str = "") -> object:
    """Poll until ``predicate()`` is truthy; fail the test with ``what`` if it never is."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout}s waiting for {what or predicate}")
        time.sleep(interval)


def _create_database(backend: str, name: str, template: str | None = None) -> tuple[str, Callable[[], None]]:
    return create_database(backend, name, VAR, template)


@pytest.fixture(scope="session")
def migrated_templates() -> Iterator[dict[str, str]]:
    """One database per back end migrated to head once per test process, named by back end as it is first
    asked for; each ``migrated_db`` is a copy of it. Dropped at the end of the session."""
    drops: list[Callable[[], None]] = []

    class Templates(dict[str, str]):
        def __missing__(self, backend: str) -> str:
            from adapters import db

            name = f"ella_t{RUN}_head"
            url, drop = _create_database(backend, name)
            db.upgrade(get_settings().model_copy(update={"database_url": url}))
            db.forget_engine(url)  # nobody may be connected to a template while it is copied
            drops.append(drop)
            self[backend] = name
            return name

    templates = Templates()
    yield templates
    for drop in drops:
        _DROPS.soon(drop)  # with the copies' drops: at the end of the run, concurrently


# Databases of finished tests are dropped in the background (tests/support/scratch.py, BackgroundDrops).
_DROPS = BackgroundDrops()


def drop_soon(url: str, drop: Callable[[], None]) -> None:
    """Close this process's engine on ``url`` now, and drop the database in the background."""
    from adapters import db

    db.forget_engine(url)
    _DROPS.soon(drop)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Every drop handed to the background thread is done before the run ends, and the worker zygote ends."""
    _DROPS.finish()
    if _ZYGOTE is not None:
        _ZYGOTE.close()


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A fresh database on each configured back end, made the configured one for this test: empty, or, for a
    test that asks for ``migrated_db``, a copy of this process's database already migrated to head."""
    name = f"ella_t{RUN}_{uuid.uuid4().hex[:6]}"
    template = None
    if "migrated_db" in request.fixturenames:
        template = request.getfixturevalue("migrated_templates")[request.param]
    url, drop = _create_database(request.param, name, template)
    monkeypatch.setenv("ELLA_DATABASE_URL", url)
    get_settings.cache_clear()
    yield url
    get_settings.cache_clear()
    drop_soon(url, drop)


@pytest.fixture
def migrated_db(database_url: str) -> str:
    """``database_url`` at head: a copy of the run's migrated template (``migrated_templates``)."""
    return database_url


@pytest.fixture
def redis_client():
    from adapters.redis_conn import get_redis

    return get_redis()


# Test workers are forked from a warmed parent (tests/support/worker_zygote.py) unless ELLA_TEST_FORK_WORKERS=0.
FORK_WORKERS = os.environ.get("ELLA_TEST_FORK_WORKERS", "1") != "0"
_ZYGOTE: Zygote | None = None


def zygote() -> Zygote:
    """This test process's worker zygote, started on first use and ended with the session."""
    global _ZYGOTE
    if _ZYGOTE is None:
        _ZYGOTE = Zygote(VAR / "zygote", VAR / "log" / "zygote.log")
    return _ZYGOTE


@pytest.fixture
def start_worker(migrated_db: str) -> Iterator[Callable[..., object]]:
    """Start real prefork worker subprocesses on this run's queues; all are stopped after the test.

    The queues are emptied before and after: a task an earlier test emitted and never ran (a perceive, say)
    must not run against this test's fresh database. So are the model-slot leases: a worker stopped mid-call
    leaves its lease for the whole call budget (minutes), which would starve a later test's low cap.
    """
    from adapters.redis_conn import get_redis, redis_url
    from workers.app import app
    from workers.procs import WorkerProcess

    slots = f"{get_settings().redis_key_prefix}:llm:slots"  # adapters.llm.make_port
    get_redis().delete(*get_settings().queues, slots)
    started: list[WorkerProcess] = []

    def start(
        concurrency: int = 2, extra_args: list[str] | None = None, wait: bool = True, env: dict[str, str] | None = None
    ) -> WorkerProcess:
        worker = WorkerProcess(
            queues=list(get_settings().queues),
            concurrency=concurrency,
            log_path=VAR / "log" / f"worker-{uuid.uuid4().hex[:6]}.log",
            env={"ELLA_REDIS_URL": redis_url(), "ELLA_DATABASE_URL": migrated_db, **(env or {})},
            extra_args=extra_args or [],
        )
        if FORK_WORKERS and zygote().serves({**os.environ, **worker.env}):
            zygote().start(worker)
        else:
            worker.start()
        started.append(worker)
        if wait:
            worker.wait_ready(app)
        return worker

    yield start
    kill_together(started)
    forget_deliveries(get_redis(), get_settings().queues)
    get_redis().delete(*get_settings().queues, slots)


def kill_together(workers: list[WorkerProcess]) -> None:
    """End a finished test's workers: ``kill -9`` each group (``WorkerProcess.kill``). Why not a warm shutdown: the
    test is over and its database is dropped next, and a warm shutdown of even an idle worker took 2-4 s (a task
    still running waited out the 20 s ceiling), on every worker test of the run. What a kill leaves behind (the
    deliveries it held) is forgotten next (``forget_deliveries``)."""
    for worker in workers:
        worker.kill()


def forget_deliveries(client: redis.Redis, queues: tuple[str, ...] | list[str]) -> int:
    """Drop from kombu's ``unacked`` hash (and its index) the deliveries of this run's queues that a killed worker
    held, so no later worker on these queues is handed a task of a finished test (kombu restores an unacked
    delivery to its queue once the visibility timeout passes, whichever worker of the Redis database notices).
    Other runs' deliveries, on their own queues, are left alone. Returns how many were dropped."""
    import json

    ours = set(queues)
    dropped = 0
    for tag, raw in client.hscan_iter("unacked"):
        try:
            _payload, exchange, routing_key = json.loads(raw)
        except (ValueError, TypeError):
            continue
        if exchange in ours or routing_key in ours:
            client.hdel("unacked", tag)
            client.zrem("unacked_index", tag)
            dropped += 1
    return dropped


@pytest.fixture(scope="session")
def node_package() -> Path:
    """``clients/node`` with its dependencies installed (tests/support/node_client.py)."""
    from tests.support.node_client import installed_node_package

    return installed_node_package()


@pytest.fixture
def outbox(redis_client):
    """Read the whole outbox stream of this run: a list of OutboxEntry, oldest first."""
    from ella.contract import OutboxEntry

    stream = get_settings().outbox_stream

    def read() -> list[OutboxEntry]:
        return [OutboxEntry.from_fields(sid, fields) for sid, fields in redis_client.xrange(stream)]

    return read


@pytest.fixture
def planner(monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    """The stand-in planner of tests/support/job_planner.py as the digest's, with a handler that applies nothing
    and chunks of 7 users (tests/test_jobs.py, tests/test_cli_jobs.py)."""
    from cli.jobs import register_job_modules
    from ella import jobs
    from ella.jobs import Job
    from ella.llm import batches as batch_rules
    from tests.support.job_planner import Planner

    register_job_modules()  # the real planners register first, so a later import of theirs changes nothing
    fake = Planner()
    monkeypatch.setitem(jobs._PLANNERS, Job.DIGEST, fake)
    monkeypatch.setitem(batch_rules._HANDLERS, Job.DIGEST.value, lambda session, item, result: None)
    monkeypatch.setenv("ELLA_JOB_CHUNK_SIZE", "7")
    get_settings.cache_clear()
    yield fake
    get_settings.cache_clear()

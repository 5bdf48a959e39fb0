"""The right to be forgotten reaches the disk: after ``ella.forget_user`` the erased user's words and id are in
no file a store keeps, not only gone from what its clients read.

Redis: a server of the test's own, run as compose runs it (AOF, Redis 7's multi-part ``appendonlydir/``) plus
an RDB save rule and a snapshot already on disk; the erasure runs against it, then every file of its directory
is read byte by byte. SQLite: the database file and its ``-wal``. PostgreSQL: the heap, index and TOAST files of
every table the erasure deletes from, after the operator's part the README names (``VACUUM FULL``): the
erasure itself cannot zero a dead tuple there (``adapters.disk_erasure`` says why).
"""

from __future__ import annotations

import base64
import json
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import make_url, text

from adapters.settings import get_settings
from tests.conftest import on_one_backend, only_on, wait_for
from tests.test_broker_faults import OwnRedis, free_port
from tests.test_forget_user import NOW, plant_rows


class PersistentRedis(OwnRedis):
    """AOF as compose runs it, and a save rule: the two files an erasure must rewrite."""

    def start(self) -> None:
        subprocess.run(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "3600 1",
             "--appendonly", "yes", "--appendfsync", "always", "--dir", str(self.directory), "--daemonize", "yes",
             "--logfile", str(self.directory / "redis.log"), "--pidfile", str(self.directory / "redis.pid")],
            check=True,
        )  # fmt: skip
        wait_for(self._answers, 20, what=f"redis-server on port {self.port}")


@pytest.fixture
def persistent_redis(migrated_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[PersistentRedis]:
    """This process's redis-py client on the test's own server (the broker stays on the shared one)."""
    from adapters import redis_conn
    from workers.app import app

    # The app reads its configuration on first use: read it now, on the shared Redis, or a task this test runs
    # would bind this process's broker and result backend to the server below for every later test of the file
    assert app.conf.broker_url and app.conf.result_backend

    folder = tmp_path / "redis"
    folder.mkdir()
    server = PersistentRedis(free_port(), folder)
    server.start()
    monkeypatch.setenv("ELLA_REDIS_URL", server.url)
    get_settings.cache_clear()
    monkeypatch.setattr(redis_conn, "_client", None)
    yield server
    server.stop()
    get_settings.cache_clear()


def files_holding(folder: Path, *needles: str) -> list[str]:
    """Files under ``folder`` whose bytes contain any of ``needles`` (UTF-8)."""
    wanted = [n.encode() for n in needles]
    files = [p for p in folder.rglob("*") if p.is_file()]
    return sorted(str(p.relative_to(folder)) for p in files if any(w in p.read_bytes() for w in wanted))


def plant_redis_keys(user: str, canary: str) -> None:
    """The user in every kind of key the erasure clears: an inbox entry, a reply on the outbox stream with its
    publish marker, a task waiting in a queue, the reflection lock and the canary's cached vector."""
    from adapters import inbox
    from adapters.embedding_cache import CachedEmbedder
    from adapters.outbox_stream import published_marker
    from adapters.redis_conn import get_redis
    from ella.embeddings import HashingEmbedder

    settings, client = get_settings(), get_redis()
    inbox.remember(client, {"message_id": f"in-{uuid.uuid4().hex}", "user_id": user, "text": canary,
                            "sent_at": NOW.isoformat()})  # fmt: skip
    client.xadd(settings.outbox_stream, {"kind": "reply", "user_id": user, "text": f"about {canary}"})
    client.set(published_marker(f"o-{uuid.uuid4().hex}"), "1-0")
    body = json.dumps([[], {"user_id": user, "description": canary}, {}]).encode()
    task = {"body": base64.b64encode(body).decode(), "headers": {"task": "ella.perceive"},
            "properties": {"body_encoding": "base64"}}  # fmt: skip
    client.lpush(settings.queue_cognition, json.dumps(task))
    client.set(f"{settings.redis_key_prefix}:reflect:{user}", "held")
    CachedEmbedder(HashingEmbedder(), client).embed([canary])


def erase(user: str) -> dict[str, int]:
    from tasks.privacy import forget_user

    return forget_user.apply(kwargs={"user": user, "again": True}).get()


@on_one_backend()
@pytest.mark.parametrize("connects_as", ["unrestricted", "worker"])
def test_an_erased_users_words_and_id_are_in_no_file_of_redis_neither_aof_nor_snapshot(
    persistent_redis, connects_as, tmp_path, monkeypatch
):
    """Also as the worker's ACL user (deploy/redis/users.acl.template), which compose gives the workers.

    On one back end: what is read here is Redis's files, which no SQL back end writes (the database's own
    files are the two tests below)."""
    from adapters import redis_conn

    if connects_as == "worker":
        from tests.test_least_privilege import KINDS, acl_rules, render_acl

        rules = acl_rules(render_acl(tmp_path / "users.acl", dict.fromkeys(KINDS, "pw"), get_settings()))["worker"]
        persistent_redis.client().execute_command("ACL", "SETUSER", "worker", "reset", *rules)
        monkeypatch.setenv("ELLA_REDIS_URL", persistent_redis.url.replace("redis://", "redis://worker:pw@"))
        get_settings.cache_clear()
        monkeypatch.setattr(redis_conn, "_client", None)
    user, canary = f"disk-{uuid.uuid4().hex[:8]}", f"canary-{uuid.uuid4().hex}"
    other, other_canary = f"keep-{uuid.uuid4().hex[:8]}", f"canary-{uuid.uuid4().hex}"
    for who, what in ((user, canary), (other, other_canary)):
        plant_rows(who, what)
        plant_redis_keys(who, what)
    persistent_redis.client().save()  # a snapshot on disk that holds them, as a save rule would have written
    folder = persistent_redis.directory
    assert {"dump.rdb"} < set(files_holding(folder, canary, user))
    assert any(name.startswith("appendonlydir/") for name in files_holding(folder, canary, user))

    erase(user)

    assert files_holding(folder, canary, user) == []
    # The other user's data is still there, in the files a restart loads it from.
    held = files_holding(folder, other_canary, other)
    assert "dump.rdb" in held and any(name.startswith("appendonlydir/") for name in held)


@on_one_backend()
def test_after_a_redis_restart_the_snapshot_is_rewritten_too(persistent_redis, monkeypatch):
    """The outside probe: after a Redis restart ``dump.rdb`` still held the erased user's id, her keys and Ella's
    replies to her, because the rewrite only re-saved when Redis had saved since it started (a restarted server
    has not, and with AOF on it loads the AOF, not the snapshot). Now the snapshot is rewritten whatever Redis
    did before."""
    from adapters import redis_conn

    user, canary = f"disk-{uuid.uuid4().hex[:8]}", f"canary-{uuid.uuid4().hex}"
    plant_rows(user, canary)
    plant_redis_keys(user, canary)
    persistent_redis.client().save()
    persistent_redis.stop()  # no save on the way down: the snapshot on disk is the one above
    persistent_redis.start()
    monkeypatch.setattr(redis_conn, "_client", None)
    info = persistent_redis.client().info("persistence")
    assert info["rdb_saves"] == 0 and info["aof_enabled"] == 1, info  # what the old rule missed
    assert "dump.rdb" in files_holding(persistent_redis.directory, canary, user)

    erase(user)

    assert files_holding(persistent_redis.directory, canary, user) == []


@on_one_backend()
def test_a_late_message_of_an_erased_user_owes_the_same_rewrite_and_the_sweep_runs_it(persistent_redis):
    """A message of an erased user that comes after the erasure (a gateway's re-send) is refused, but its words
    went through Redis (the inbox entry, the queue): they were in the AOF until the next rewrite. The refusal now
    owes the rewrite (one marker) and ``ella.forget_users_again`` (sent a few seconds later, and run by beat every
    minute) takes it and rewrites the files."""
    from adapters import inbox
    from adapters.disk_erasure import owe_rewrite
    from adapters.redis_conn import get_redis
    from tasks.ingest import ingest_message
    from tasks.privacy import forget_users_again

    user, canary = f"disk-{uuid.uuid4().hex[:8]}", f"canary-{uuid.uuid4().hex}"
    plant_rows(user, canary)
    erase(user)
    late = {"message_id": f"late-{uuid.uuid4().hex}", "user_id": user, "text": f"still here {canary}",
            "sent_at": NOW.isoformat()}  # fmt: skip
    inbox.remember(get_redis(), late)  # what the gateway writes before it sends
    persistent_redis.client().save()
    assert files_holding(persistent_redis.directory, canary)

    ingest_message.apply(kwargs=late)  # refused: the user was erased

    assert not owe_rewrite(get_redis()), "the refusal did not owe a rewrite"
    forget_users_again.apply().get()
    assert files_holding(persistent_redis.directory, canary, user) == []
    assert owe_rewrite(get_redis())  # taken by the sweep: the next late message owes a new one
    get_redis().delete(f"{get_settings().redis_key_prefix}:erasure:rewrite-owed")


@only_on("sqlite")
def test_an_erased_users_words_and_id_leave_the_sqlite_file_and_its_wal(migrated_db):
    """The SQLite files: run on SQLite only (it used to create and migrate a PostgreSQL database, then skip)."""
    path = Path(make_url(migrated_db).database or "")
    user, canary = f"disk-{uuid.uuid4().hex[:8]}", f"canary-{uuid.uuid4().hex}"
    plant_rows(user, canary)
    files = (path, path.with_name(path.name + "-wal"))
    assert [p for p in files if p.exists() and canary.encode() in p.read_bytes()]

    erase(user)

    for needle in (canary, user):
        assert [p.name for p in files if p.exists() and needle.encode() in p.read_bytes()] == [], needle


def _postgres_files_holding(needle: str) -> list[str]:
    """Heap, TOAST and index files (every 1 GB segment) of our tables whose bytes hold ``needle``; needs a
    superuser (``pg_read_binary_file``), as the tests' role is, and a CHECKPOINT first (it reads the files, not
    the shared buffers)."""
    from adapters.db import autocommit_scope

    with autocommit_scope() as s:
        s.execute(text("CHECKPOINT"))
        paths = s.scalars(
            text(
                "SELECT pg_relation_filepath(c.oid) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                " WHERE n.nspname IN ('public', 'pg_toast') AND c.relkind IN ('r', 't', 'i')"
                " AND pg_relation_filepath(c.oid) IS NOT NULL"
            )
        ).all()
        held = []
        for base in paths:
            for segment in [base] + [f"{base}.{n}" for n in range(1, 64)]:
                if s.scalar(text("SELECT (pg_stat_file(:p, true)).size"), {"p": segment}) is None:
                    break
                data = s.scalar(text("SELECT pg_read_binary_file(:p)"), {"p": segment})
                if needle.encode() in bytes(data):
                    held.append(segment)
    return held


@only_on("postgresql")
def test_after_the_operators_vacuum_full_an_erased_user_is_in_no_postgresql_table_file(migrated_db):
    """What the README asks of the operator is enough: VACUUM FULL of the tables the erasure deletes from.
    (PostgreSQL only: skipped where it is not configured.)"""
    from adapters.db import autocommit_scope

    user, canary = f"disk-{uuid.uuid4().hex[:8]}", f"canary-{uuid.uuid4().hex}"
    plant_rows(user, canary)
    assert _postgres_files_holding(canary)

    erase(user)

    def vacuumed_away() -> bool:
        # Repeated because VACUUM FULL keeps a dead row that a snapshot still open anywhere on the server might
        # see (another test's transaction, CREATE DATABASE): it is gone once no snapshot predates the erasure.
        with autocommit_scope() as s:
            s.execute(text("VACUUM FULL"))  # as the README has the operator run it: every table
        return _postgres_files_holding(canary) == [] and _postgres_files_holding(user) == []

    wait_for(vacuumed_away, 120, interval=2, what="no file holding the canary or the id after VACUUM FULL")


def test_compacting_the_stream_keeps_every_entry_group_pending_entry_and_the_last_id(redis_client):
    """The copy that drops XDEL'd bytes changes nothing a consumer sees: entries with their ids, each group's
    last delivered id, its consumers and their pending entries (delivery counts), and the stream's last id (an
    id handed out before is never handed out again)."""
    from adapters.disk_erasure import compact_stream

    stream, scratch = (
        f"{get_settings().redis_key_prefix}:compact-{uuid.uuid4().hex[:6]}",
        f"{get_settings().redis_key_prefix}:scratch",
    )
    client = redis_client
    ids = [client.xadd(stream, {"n": str(n), "text": f"words {n}"}) for n in range(250)]
    client.xgroup_create(stream, "gateway", id="0")
    client.xreadgroup("gateway", "a", {stream: ">"}, count=100)
    client.xreadgroup("gateway", "b", {stream: ">"}, count=50)
    client.xack(stream, "gateway", *ids[:80])
    client.xclaim(stream, "gateway", "a", 0, [ids[120]])  # a second delivery
    client.xgroup_create(stream, "idle", id="$")
    client.xgroup_createconsumer(stream, "idle", "nobody")
    client.xdel(stream, ids[5], ids[249])  # the last one: its id must not come back
    before = (
        client.xrange(stream),
        client.xinfo_groups(stream),
        client.xpending_range(stream, "gateway", "-", "+", 1000),
        client.xinfo_stream(stream)["last-generated-id"],
        [c["name"] for c in client.xinfo_consumers(stream, "idle")],
    )

    assert compact_stream(client, stream, scratch) == 248

    pending = client.xpending_range(stream, "gateway", "-", "+", 1000)
    assert client.xrange(stream) == before[0]
    assert [(g["name"], g["last-delivered-id"], g["pending"]) for g in client.xinfo_groups(stream)] == [
        (g["name"], g["last-delivered-id"], g["pending"]) for g in before[1]
    ]
    assert [(p["message_id"], p["consumer"], p["times_delivered"]) for p in pending] == [
        (p["message_id"], p["consumer"], p["times_delivered"]) for p in before[2]
    ]
    assert client.xinfo_stream(stream)["last-generated-id"] == before[3]
    assert [c["name"] for c in client.xinfo_consumers(stream, "idle")] == before[4]
    new = client.xadd(stream, {"n": "new"})
    delivered = client.xreadgroup("gateway", "a", {stream: ">"})[0][1]
    assert [sid for sid, _ in delivered] == ids[150:249] + [new]  # what was not yet delivered, then the new one
    assert not client.exists(scratch)
    client.delete(stream)

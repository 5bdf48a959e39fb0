"""The ingest path after faults (issue 11): a reply committed while Redis is down, an outbox entry Redis lost,
a message_id two users sent, and the inbox sweep that answers what an outage left behind.

Why: after Redis or PostgreSQL returns, every message must be answered within seconds, once: a committed
reply is published by the worker that stored it, a repeat delivery publishes again what Redis lost (and
nothing the stream still holds), and the sweep publishes or re-sends what no worker holds.

The Redis outage runs against a ``redis-server`` of this test's own (started on a free port in a temp dir), so
stopping it disturbs no one else's tests.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import redis
from sqlalchemy import select, update

from adapters import inbox
from adapters.db import autocommit_scope, session_scope
from adapters.outbox_stream import published_marker
from adapters.settings import get_settings
from models import OutboxRecord
from tests.conftest import wait_for


def kwargs_for(user_id: str, message_id: str | None = None) -> dict[str, str]:
    return {
        "message_id": message_id or f"r-{uuid.uuid4().hex[:10]}",
        "user_id": user_id,
        "text": "are you still there?",
        "sent_at": (datetime.now(UTC) - timedelta(minutes=1)).isoformat(),
    }


def replies_on_stream(client: redis.Redis, message_id: str) -> list[str]:
    """Stream ids of this message's replies on this run's outbox stream."""
    return [sid for sid, fields in client.xrange(get_settings().outbox_stream) if fields["in_reply_to"] == message_id]


def reply_row(message_id: str) -> OutboxRecord:
    with autocommit_scope() as s:
        return s.scalars(select(OutboxRecord).where(OutboxRecord.in_reply_to == message_id)).one()


@pytest.fixture
def isolated_inbox(redis_client, monkeypatch: pytest.MonkeyPatch) -> Iterator[inbox.InboxKeys]:
    """A Redis key prefix of this test's own, so the inbox holds only what the test put there."""
    monkeypatch.setenv("ELLA_REDIS_KEY_PREFIX", f"{get_settings().redis_key_prefix}-{uuid.uuid4().hex[:8]}")
    get_settings.cache_clear()
    keys = inbox.InboxKeys.of()
    yield keys
    redis_client.delete(*keys.all())
    get_settings.cache_clear()


# --- item 9: a repeat delivery trusts Redis, not the row's published_at ---------------------------------


def test_a_repeat_delivery_publishes_again_a_reply_redis_lost_and_never_twice(migrated_db, redis_client) -> None:
    from tasks.ingest import ingest_message

    kwargs = kwargs_for(f"u-{uuid.uuid4().hex[:8]}")
    assert ingest_message.apply(kwargs=kwargs).successful()
    [first] = replies_on_stream(redis_client, kwargs["message_id"])
    row = reply_row(kwargs["message_id"])
    assert row.published_at is not None and row.stream_id == first
    # Redis loses the entry and its marker (an OS crash inside the fsync second, a failover); the row still
    # says "published"; the gateway sends the message again
    redis_client.xdel(get_settings().outbox_stream, first)
    redis_client.delete(published_marker(row.uid))
    assert ingest_message.apply(kwargs=kwargs).successful()
    [again] = replies_on_stream(redis_client, kwargs["message_id"])
    assert again != first and reply_row(kwargs["message_id"]).stream_id == again
    assert ingest_message.apply(kwargs=kwargs).successful()  # and a third delivery adds nothing
    assert replies_on_stream(redis_client, kwargs["message_id"]) == [again]


# --- item 10: the inbox is keyed by (user, message_id) ---------------------------------------------------


def test_another_users_reuse_of_a_message_id_leaves_the_first_users_message_pending(
    migrated_db, redis_client, isolated_inbox
) -> None:
    from tasks.ingest import ingest_message

    message_id = f"shared-{uuid.uuid4().hex[:8]}"
    first, second = kwargs_for("alice-" + message_id, message_id), kwargs_for("bob-" + message_id, message_id)
    inbox.remember(redis_client, first)  # the broker lost alice's task
    inbox.remember(redis_client, second)  # bob's gateway reuses the id; bob's task runs
    assert ingest_message.apply(kwargs=second).successful()
    assert [kwargs for _, kwargs, _ in inbox.overdue(redis_client, older_than_s=0)] == [first]


# --- item 3: a reply committed while Redis is down ---------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class OwnRedis:
    """A redis-server of this test's own (AOF on, as in production), to stop and start at will."""

    def __init__(self, directory: Path) -> None:
        self.port = free_port()
        self.dir = directory
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, wait: bool = True) -> None:
        exe = shutil.which("redis-server") or "/usr/bin/redis-server"
        args = ["--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.dir), "--save", ""]
        self.proc = subprocess.Popen([exe, *args, "--appendonly", "yes"], stdout=subprocess.DEVNULL)
        if wait:
            wait_for(self.answers, 10, interval=0.05, what="the test's redis-server")

    def answers(self) -> bool:
        try:
            return bool(redis.Redis(port=self.port, socket_connect_timeout=0.2).ping())
        except redis.ConnectionError:
            return False

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()  # SIGTERM: Redis flushes the AOF and exits
            self.proc.wait(10)


@pytest.fixture
def own_redis(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[OwnRedis]:
    """This process's redis-py client on the test's own server (the broker stays where it is)."""
    from adapters import redis_conn

    server = OwnRedis(tmp_path)
    server.start()
    monkeypatch.setenv("ELLA_REDIS_URL", server.url)
    get_settings.cache_clear()
    monkeypatch.setattr(redis_conn, "_client", None)
    yield server
    server.stop()
    get_settings.cache_clear()


def redis_drops_at_first(monkeypatch: pytest.MonkeyPatch, server: OwnRedis, for_s: float) -> Callable[[], int]:
    """Stop ``server`` just as the first publish starts (after the commit) and start it ``for_s`` later; the
    number of publish attempts so far."""
    import adapters.publishing

    real = adapters.publishing.publish_once
    calls = [0]

    def publish_once(*args: Any, **kwargs: Any) -> str:
        calls[0] += 1
        if calls[0] == 1:
            server.stop()
            # No wait in the timer's thread: the test may end and stop the server before that thread sees it
            # answer (a 10 s timeout in a thread, reported as a warning on a loaded CI run).
            threading.Timer(for_s, server.start, kwargs={"wait": False}).start()
        return real(*args, **kwargs)

    monkeypatch.setattr(adapters.publishing, "publish_once", publish_once)
    return lambda: calls[0]


def test_a_reply_committed_while_redis_is_down_is_published_by_the_same_worker_when_redis_returns(
    migrated_db, own_redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tasks.ingest import ingest_message

    attempts = redis_drops_at_first(monkeypatch, own_redis, for_s=2.0)
    kwargs = kwargs_for(f"u-{uuid.uuid4().hex[:8]}")
    result = ingest_message.apply(kwargs=kwargs)
    assert result.successful(), result.traceback
    assert attempts() > 1  # the publish was retried, not the task
    client = redis.Redis.from_url(own_redis.url, decode_responses=True)
    [stream_id] = replies_on_stream(client, kwargs["message_id"])
    assert result.result == stream_id
    row = reply_row(kwargs["message_id"])
    assert row.published_at is not None and row.stream_id == stream_id


# --- the sweep: publish what was committed, re-send early what no worker holds ------------------------------


def test_the_sweep_publishes_a_committed_reply_that_was_never_published(
    migrated_db, redis_client, isolated_inbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tasks.inbox import resend_unanswered_messages
    from tasks.ingest import ingest_message

    monkeypatch.setenv("ELLA_INBOX_RECHECK_AFTER_S", "0.1")
    get_settings.cache_clear()
    kwargs = kwargs_for(f"u-{uuid.uuid4().hex[:8]}")
    assert ingest_message.apply(kwargs=kwargs).successful()
    # what a task that died after its commit, with Redis down, leaves behind: the row, no entry, the inbox entry
    row = reply_row(kwargs["message_id"])
    redis_client.xdel(get_settings().outbox_stream, row.stream_id)
    redis_client.delete(published_marker(row.uid))
    with session_scope() as s:
        s.execute(update(OutboxRecord).where(OutboxRecord.id == row.id).values(published_at=None, stream_id=None))
    inbox.remember(redis_client, kwargs)
    time.sleep(0.2)
    assert resend_unanswered_messages.apply().successful()
    [stream_id] = replies_on_stream(redis_client, kwargs["message_id"])
    assert reply_row(kwargs["message_id"]).stream_id == stream_id
    assert inbox.due_checks(redis_client) == [] and inbox.overdue(redis_client, older_than_s=0) == []


def inbound_queue_length(client: redis.Redis) -> int:
    return int(client.llen(get_settings().queue_inbound))


def test_the_sweep_resends_early_a_message_no_worker_holds_but_not_one_a_worker_holds(
    migrated_db, redis_client, isolated_inbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tasks.inbox import resend_unanswered_messages

    monkeypatch.setenv("ELLA_INBOX_RECHECK_AFTER_S", "0.1")
    get_settings.cache_clear()
    redis_client.delete(get_settings().queue_inbound)
    user = f"u-{uuid.uuid4().hex[:8]}"
    waiting, being_answered = kwargs_for(user), kwargs_for(user)
    inbox.remember(redis_client, waiting)  # its task waits out a retry countdown after a PostgreSQL outage
    inbox.remember(redis_client, being_answered)
    inbox.hold(redis_client, user, being_answered["message_id"], seconds=60)
    time.sleep(0.2)
    try:
        assert resend_unanswered_messages.apply().get() == 1
        assert inbound_queue_length(redis_client) == 1
        assert resend_unanswered_messages.apply().get() == 0  # the next look waits twice as long
    finally:
        redis_client.delete(get_settings().queue_inbound)


def test_the_sweep_does_not_resend_early_while_the_inbound_queue_is_backed_up(
    migrated_db, redis_client, isolated_inbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tasks.inbox import resend_unanswered_messages

    monkeypatch.setenv("ELLA_INBOX_RECHECK_AFTER_S", "0.1")
    get_settings.cache_clear()
    queue = get_settings().queue_inbound
    redis_client.delete(queue)
    redis_client.rpush(queue, "a message still waiting for a worker")
    inbox.remember(redis_client, kwargs_for(f"u-{uuid.uuid4().hex[:8]}"))
    time.sleep(0.2)
    try:
        assert resend_unanswered_messages.apply().get() == 0
        assert inbound_queue_length(redis_client) == 1
    finally:
        redis_client.delete(queue)


# --- issue 36.2: the inbox key in any JSON spelling ------------------------------------------------------------


def remember_as(client: redis.Redis, kwargs: dict[str, str], key: str) -> None:
    """What a gateway in another language writes (docs/gateway.md section 4), under the key it spelled."""
    keys, now = inbox.InboxKeys.of(), time.time()
    pipe = client.pipeline(transaction=True)
    pipe.hset(keys.payloads, key, json.dumps(kwargs))
    pipe.zadd(keys.due, {key: now})
    pipe.zadd(keys.checks, {key: now + get_settings().inbox_recheck_after_s})
    pipe.execute()


def inbox_members(client: redis.Redis, keys: inbox.InboxKeys) -> set[str]:
    return {*client.hkeys(keys.payloads), *client.zrange(keys.due, 0, -1), *client.zrange(keys.checks, 0, -1)}


def test_an_inbox_entry_keyed_by_a_compact_json_writer_is_removed_when_its_reply_is_published(
    migrated_db, redis_client, isolated_inbox
) -> None:
    """Issue 36.2: only the byte-exact ``["u", "m"]`` was removed on publish; a Node or Go gateway writes
    ``["u","m"]``, and its answered message stayed to be re-sent an hour later, then dead-lettered."""
    from tasks.ingest import ingest_message

    kwargs = kwargs_for(f"u-{uuid.uuid4().hex[:8]}")
    compact = json.dumps([kwargs["user_id"], kwargs["message_id"]], separators=(",", ":"))
    remember_as(redis_client, kwargs, compact)
    assert inbox_members(redis_client, isolated_inbox) == {compact}
    assert ingest_message.apply(kwargs=kwargs).successful()
    assert len(replies_on_stream(redis_client, kwargs["message_id"])) == 1
    assert inbox_members(redis_client, isolated_inbox) == set()


def test_the_sweep_reads_an_inbox_key_in_any_json_spelling_under_its_canonical_form(
    migrated_db, redis_client, isolated_inbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A spelling no common writer makes (spaces inside the brackets, escaped letters) is still the same pair:
    the sweep's read moves it under the canonical key, and the publish that follows removes it."""
    from tasks.inbox import resend_unanswered_messages
    from tasks.ingest import ingest_message

    monkeypatch.setenv("ELLA_INBOX_RECHECK_AFTER_S", "0.1")
    get_settings.cache_clear()
    kwargs = kwargs_for(f"u-{uuid.uuid4().hex[:8]}")
    user_id, rest = kwargs["user_id"], kwargs["message_id"][1:]
    odd = f'[ "{user_id}" ,\n "\\u0072{rest}" ]'  # "\u0072" is "r": the message id's first letter
    assert json.loads(odd) == [kwargs["user_id"], kwargs["message_id"]]
    remember_as(redis_client, kwargs, odd)
    time.sleep(0.2)
    [(key, read, looks)] = inbox.due_checks(redis_client)
    assert (key, read, looks) == (inbox.entry_key(kwargs["user_id"], kwargs["message_id"]), kwargs, 0)
    assert inbox_members(redis_client, isolated_inbox) == {key}  # moved, not copied
    assert ingest_message.apply(kwargs=kwargs).successful()
    assert inbox_members(redis_client, isolated_inbox) == set()
    assert resend_unanswered_messages.apply().get() == 0  # nothing left to publish or re-send

"""Least privilege on the broker and the database: the Redis ACL users and the PostgreSQL roles of deploy/.

Why against the real servers: an ACL or a GRANT is only right if the real client works under it and the real
server refuses the rest. The rules are not copied here: the ACL is rendered by deploy/redis/render-acl.sh from
deploy/redis/users.acl.template (what the redis container loads) with this run's key names, and the roles come
from deploy/postgres/init/ella-roles.psql (what the postgres container runs) with this run's role names.

The Redis server is shared with other test runs, so the users made here have unique names and are deleted after,
and destructive commands (FLUSHALL, FLUSHDB) are checked with ``ACL DRYRUN``, never sent. The file as a whole
(``default`` off, the healthcheck user) is loaded into a scratch ``redis-server`` of its own.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psycopg
import pytest
import redis
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

from adapters.settings import Settings, get_settings
from tests.conftest import RUN, wait_for
from tests.support.scratch import pg_admin_url

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"
ACL_TEMPLATE = DEPLOY / "redis" / "users.acl.template"
RENDER_ACL = DEPLOY / "redis" / "render-acl.sh"
PG_ROLES = DEPLOY / "postgres" / "init" / "ella-roles.psql"
KINDS = ("gateway", "worker", "beat", "flower", "metrics")


# --- Redis --------------------------------------------------------------------------------------------------


def redis_db(url: str) -> str:
    return (urlsplit(url).path.lstrip("/") or "0").split("/")[0]


def render_acl(out: Path, passwords: dict[str, str], settings: Settings) -> list[str]:
    """The ACL file's lines as deploy/redis/render-acl.sh writes them for ``settings``' key names."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "ELLA_REDIS_KEY_PREFIX": settings.redis_key_prefix,
        "ELLA_QUEUE_INBOUND": settings.queue_inbound,
        "ELLA_QUEUE_COGNITION": settings.queue_cognition,
        "ELLA_QUEUE_BATCH": settings.queue_batch,
        "ELLA_OUTBOX_STREAM": settings.outbox_stream,
        "ELLA_REDIS_DB": redis_db(settings.redis_url or "redis://127.0.0.1:6379/0"),
        **{f"ELLA_REDIS_{kind.upper()}_PASSWORD": password for kind, password in passwords.items()},
    }
    subprocess.run(["sh", str(RENDER_ACL), str(ACL_TEMPLATE), str(out)], env=env, check=True, capture_output=True)
    return out.read_text().splitlines()


def acl_rules(lines: list[str]) -> dict[str, list[str]]:
    """User -> its rules as ACL SETUSER arguments (a selector ``( ... )`` is one argument)."""
    users = {}
    for line in lines:
        keyword, name, rest = line.split(" ", 2)
        assert keyword == "user"
        users[name] = re.findall(r"\([^)]*\)|\S+", rest)
    return users


@pytest.fixture
def acl_users(redis_client: redis.Redis, tmp_path: Path) -> Iterator[dict[str, tuple[str, str]]]:
    """kind -> (user name, password): the rendered users of this run, created under unique names, deleted after."""
    passwords = {kind: uuid.uuid4().hex for kind in KINDS}
    rules = acl_rules(render_acl(tmp_path / "users.acl", passwords, get_settings()))
    names = {kind: f"t{RUN}-{uuid.uuid4().hex[:6]}-{kind}" for kind in KINDS}
    try:
        for kind, name in names.items():
            redis_client.execute_command("ACL", "SETUSER", name, "reset", *rules[kind])
        yield {kind: (names[kind], passwords[kind]) for kind in KINDS}
    finally:
        redis_client.execute_command("ACL", "DELUSER", *names.values())


def url_as(user: str, password: str) -> str:
    parts = urlsplit(get_settings().redis_url or "")
    return f"redis://{user}:{password}@{parts.hostname}:{parts.port or 6379}{parts.path or '/0'}"


def client_as(user: str, password: str) -> redis.Redis:
    return redis.Redis.from_url(url_as(user, password), decode_responses=True)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def once(**kwargs: object) -> redis.Redis:
    """A client that tries once: redis-py retries a refused login (an AuthenticationError is a ConnectionError)
    with backoff, which made each refusal below cost seconds of sleep (32 s for this test)."""
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    return redis.Redis(retry=Retry(NoBackoff(), 0), **kwargs)  # type: ignore[arg-type]


def test_the_rendered_file_loads_into_redis_7_with_the_default_user_off(tmp_path: Path):
    """The whole file, as the container loads it: it parses (selectors and all), the hashed passwords work, an
    unauthenticated client can do nothing, and the healthcheck user can PING (only)."""
    server = shutil.which("redis-server")
    assert server, "redis-server is needed to load the ACL file"
    passwords = {kind: uuid.uuid4().hex for kind in KINDS}
    acl = tmp_path / "users.acl"
    settings = Settings(_env_file=None, redis_url="redis://127.0.0.1:6379/0")
    lines = render_acl(acl, passwords, settings)
    assert not any(password in line for line in lines for password in passwords.values()), "a plain password"
    port = free_port()
    proc = subprocess.Popen(
        [server, "--port", str(port), "--save", "", "--appendonly", "no", "--aclfile", str(acl)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        anonymous = once(port=port, decode_responses=True)
        wait_for(lambda: _answers(anonymous), 10, what="the scratch redis-server")
        with pytest.raises(redis.AuthenticationError):
            anonymous.get("anything")
        health = once(port=port, username="healthcheck", password="anything", decode_responses=True)
        assert health.ping()
        with pytest.raises(redis.exceptions.NoPermissionError):
            health.get("anything")
        for kind, password in passwords.items():
            # metrics may not PING (its collector sends none): it proves its login with what it may run
            logged_in = once(port=port, username=kind, password=password)
            if kind == "metrics":
                assert logged_in.llen(settings.queue_inbound) == 0, kind
            else:
                assert logged_in.ping(), kind
            with pytest.raises(redis.AuthenticationError):
                once(port=port, username=kind, password=password + "x").ping()
        with pytest.raises(redis.AuthenticationError):
            once(port=port, username="default", password="").ping()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _answers(client: redis.Redis) -> bool:
    try:
        client.ping()
    except redis.AuthenticationError:
        return True  # up, and refusing the default user
    except redis.ConnectionError:
        return False
    return True


def test_the_gateway_may_enqueue_inbound_remember_messages_and_read_and_ack_the_outbox(
    acl_users: dict[str, tuple[str, str]], redis_client: redis.Redis
):
    from adapters import inbox
    from adapters.outbox_stream import OutboxReader, ensure_groups

    settings = get_settings()
    gateway = client_as(*acl_users["gateway"])
    group, task, message_id = f"gw-{uuid.uuid4().hex[:6]}", f"a task {uuid.uuid4().hex}", f"m-{uuid.uuid4().hex}"
    stream_id = None
    # the workers make the gateways' groups (ELLA_OUTBOX_GROUPS; workers.app): the gateway user may not
    ensure_groups(redis_client, settings.outbox_stream, group)
    redis_client.xgroup_setid(settings.outbox_stream, group, "$")
    try:  # the run's queues and stream are shared with this process's other tests: only what is added here counts
        before = redis_client.llen(settings.queue_inbound)
        assert gateway.lpush(settings.queue_inbound, task) == before + 1
        assert gateway.llen(f"{settings.queue_inbound}\x06\x163") == redis_client.llen(
            f"{settings.queue_inbound}\x06\x163"
        )
        inbox.remember(gateway, {"message_id": message_id, "user_id": "u-acl", "text": "hi"})
        reader = OutboxReader(gateway, group, "c1", start_id="$")  # its XGROUP CREATE is refused: it reads on
        stream_id = redis_client.xadd(settings.outbox_stream, {"v": "1", "kind": "reply", "user_id": "u-acl"})
        got = gateway.xreadgroup(group, "c1", {settings.outbox_stream: ">"}, count=10)
        assert [entry_id for _, entries in got for entry_id, _ in entries] == [stream_id]
        assert gateway.xpending(settings.outbox_stream, group)["pending"] == 1
        assert gateway.xautoclaim(settings.outbox_stream, group, "c2", 0, start_id="0-0")[1][0][0] == stream_id
        assert gateway.xack(settings.outbox_stream, group, stream_id) == 1
        assert gateway.xinfo_groups(settings.outbox_stream)
        assert reader.read(block_ms=10) == []
    finally:
        redis_client.lrem(settings.queue_inbound, 0, task)
        inbox.forget(redis_client, "u-acl", message_id)
        if stream_id is not None:
            redis_client.xgroup_destroy(settings.outbox_stream, group)
            redis_client.xdel(settings.outbox_stream, stream_id)


# Commands the gateway must be refused, each with the reason it matters. Sent for real (they change nothing when
# refused), as the gateway user.
GATEWAY_REFUSED = {
    "read an embedding cache entry": lambda s: ["GET", f"{s.redis_key_prefix}:emb:hashing-ngram-v1-512:abc"],
    "write an embedding cache entry": lambda s: ["SET", f"{s.redis_key_prefix}:emb:hashing-ngram-v1-512:abc", "x"],
    "read other users' pending messages": lambda s: ["HGETALL", f"{s.redis_key_prefix}:inbox:payloads"],
    "drop an inbox entry": lambda s: ["HDEL", f"{s.redis_key_prefix}:inbox:payloads", "x"],
    "enqueue onto the cognition queue": lambda s: ["LPUSH", s.queue_cognition, "x"],
    "enqueue onto the batch queue": lambda s: ["LPUSH", s.queue_batch, "x"],
    "take a task off the inbound queue": lambda s: ["RPOP", s.queue_inbound],
    "write a reply into the outbox": lambda s: ["XADD", s.outbox_stream, "*", "kind", "reply"],
    "read the whole outbox outside a group": lambda s: ["XRANGE", s.outbox_stream, "-", "+"],
    "delete the outbox": lambda s: ["DEL", s.outbox_stream],
    "drop another gateway's group": lambda s: ["XGROUP", "DESTROY", s.outbox_stream, "g"],
    # The outside probe read every user's replies through a group of its own made from id 0.
    "make a group of its own from id 0": lambda s: ["XGROUP", "CREATE", s.outbox_stream, "mine", "0", "MKSTREAM"],
    "rewind a group to re-read the stream": lambda s: ["XGROUP", "SETID", s.outbox_stream, "gateway", "0"],
    "drop a consumer and its pending entries": lambda s: ["XGROUP", "DELCONSUMER", s.outbox_stream, "gateway", "c"],
    "list every key": lambda s: ["KEYS", "*"],
    "scan every key": lambda s: ["SCAN", "0"],
    "take redbeat's lock": lambda s: ["SET", f"{s.redis_key_prefix}:redbeat::lock", "x"],
    "read kombu's unacked deliveries": lambda s: ["HGETALL", "unacked"],
    "take the publish-once marker": lambda s: ["GET", f"{s.redis_key_prefix}:published:{s.outbox_stream}:x"],
    "publish a fake event": lambda s: ["PUBLISH", "/0.celeryev/task.multi", "x"],
    "run a script": lambda s: ["EVAL", "return 1", "0"],
    "read the configuration": lambda s: ["CONFIG", "GET", "*"],
    "read the ACL": lambda s: ["ACL", "LIST"],
}


@pytest.mark.parametrize("what", sorted(GATEWAY_REFUSED))
def test_the_gateway_is_refused(what: str, acl_users: dict[str, tuple[str, str]]):
    gateway = client_as(*acl_users["gateway"])
    with pytest.raises(redis.exceptions.NoPermissionError):
        gateway.execute_command(*GATEWAY_REFUSED[what](get_settings()))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("command", [["FLUSHALL"], ["FLUSHDB"], ["KEYS", "*"], ["CONFIG", "SET", "save", ""]])
def test_no_process_kind_may_flush_list_keys_or_reconfigure(
    kind: str, command: list[str], acl_users: dict[str, tuple[str, str]], redis_client: redis.Redis
):
    """ACL DRYRUN: the shared server is asked whether the user may, and nothing is run."""
    name, _password = acl_users[kind]
    answer = redis_client.execute_command("ACL", "DRYRUN", name, *command)
    answer = answer.decode() if isinstance(answer, bytes) else str(answer)
    assert answer != "OK" and "no permissions" in answer, f"{kind} may {command}: {answer}"


def test_beat_may_push_onto_every_queue_and_use_redbeats_keys_but_not_read_a_queue_or_our_data(
    acl_users: dict[str, tuple[str, str]], redis_client: redis.Redis
):
    settings = get_settings()
    beat = client_as(*acl_users["beat"])
    lock, task = f"{settings.redis_key_prefix}:redbeat::lock", f"x {uuid.uuid4().hex}"
    try:
        for queue in settings.queues:
            before = redis_client.llen(queue)  # shared with this process's other tests
            assert beat.lpush(queue, task) == before + 1
        assert beat.set(lock, "me", nx=True, px=5000)
        for command in (
            ["RPOP", settings.queue_inbound],
            ["GET", f"{settings.redis_key_prefix}:emb:x"],
            ["HGETALL", f"{settings.redis_key_prefix}:inbox:payloads"],
            ["XRANGE", settings.outbox_stream, "-", "+"],
        ):
            with pytest.raises(redis.exceptions.NoPermissionError):
                beat.execute_command(*command)
    finally:
        for queue in settings.queues:
            redis_client.lrem(queue, 0, task)
        redis_client.delete(lock)


def test_flower_may_count_the_queues_but_not_send_a_task_or_read_our_data(
    acl_users: dict[str, tuple[str, str]], redis_client: redis.Redis
):
    settings = get_settings()
    flower = client_as(*acl_users["flower"])
    # the run's queues are shared with this process's other tests: Flower counts what is there, as we do
    assert [flower.llen(queue) for queue in settings.queues] == [redis_client.llen(q) for q in settings.queues]
    db = redis_db(settings.redis_url or "")
    for command in (
        ["LPUSH", settings.queue_inbound, "x"],
        ["GET", f"{settings.redis_key_prefix}:emb:x"],
        ["XRANGE", settings.outbox_stream, "-", "+"],
        ["HGETALL", "unacked"],
        # remote control (the outside probe shut a worker down with this user's password alone)
        ["PUBLISH", f"/{db}.celery.pidbox", "x"],
        ["SADD", "_kombu.binding.celery.pidbox", "x"],
        ["LPUSH", "x.reply.celery.pidbox", "x"],
    ):
        with pytest.raises(redis.exceptions.NoPermissionError):
            flower.execute_command(*command)


def _scrape_as(user: str, password: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """One scrape of the queue depths by the real collector, connecting itself (its own ``_client()``) to the
    run's Redis as ``user``."""
    from operator_page import metrics_endpoint

    settings = get_settings().model_copy(update={"redis_url": url_as(user, password)})
    monkeypatch.setattr(metrics_endpoint, "get_settings", lambda: settings)
    collector = metrics_endpoint.QueueDepthCollector()
    return metrics_endpoint.scrape(None, collector).decode()


def _sample(text: str, name: str, **labels: str) -> float | None:
    wanted = "{" + ",".join(f'{k}="{v}"' for k, v in labels.items()) + "}" if labels else ""
    for line in text.splitlines():
        if line.startswith(f"{name}{wanted} "):
            return float(line.rsplit(" ", 1)[1])
    return None


def test_the_metrics_endpoint_scrapes_the_queue_depths_as_its_own_user_and_may_do_nothing_else(
    acl_users: dict[str, tuple[str, str]], redis_client: redis.Redis, monkeypatch: pytest.MonkeyPatch
):
    """The real QueueDepthCollector (operator_page/metrics_endpoint.py) as the metrics user: the broker is up and
    the depths are the true ones, counting kombu's priority lists too, and Redis refused none of what it sent (ACL
    LOG). The same scrape as a user with too few rights (the gateway's: LLEN of the inbound queue only) is down, so
    the scrape does go through the URL's user. The metrics user cannot send or take a task, read our keys, use a
    channel, or list or read the server's keys and configuration."""
    from operator_page.metrics_endpoint import _queue_keys

    settings = get_settings()
    name, password = acl_users["metrics"]
    task = f"x {uuid.uuid4().hex}"
    # each queue's own list and one of its priority lists ("<queue>\x06\x16<3|6|9>"), a different one each
    added = [key for i, q in enumerate(settings.queues) for key in (_queue_keys(q)[0], _queue_keys(q)[i + 1])]
    try:  # the run's queues are shared with this process's other tests: count what is there, plus ours
        for key in added:
            redis_client.lpush(key, task, task)
        expected = {q: sum(redis_client.llen(k) for k in _queue_keys(q)) for q in settings.queues}
        assert all(depth >= 4 for depth in expected.values()), expected
        text = _scrape_as(name, password, monkeypatch)
        assert _sample(text, "ella_broker_up") == 1, text
        assert {q: _sample(text, "ella_queue_depth", queue=q) for q in settings.queues} == expected, text
        # The user is new: every ACL LOG entry under its name is a refusal of this scrape. Except CLIENT SETINFO,
        # which redis-py sends on connecting to Redis >= 7.2, and whose refusal it ignores by design.
        refused = [
            entry["object"]
            for entry in redis_client.acl_log()
            if entry["username"] in (name, name.encode())
            and entry["object"] not in ("client|setinfo", b"client|setinfo")
        ]
        assert refused == [], f"the collector sent what the metrics user may not run: {refused}"
        assert _sample(_scrape_as(*acl_users["gateway"], monkeypatch), "ella_broker_up") == 0
    finally:
        for key in added:
            redis_client.lrem(key, 0, task)

    metrics, db = client_as(name, password), redis_db(settings.redis_url or "")
    for command in (
        ["LPUSH", settings.queue_inbound, "x"],
        ["RPUSH", settings.queue_batch, "x"],
        ["RPOP", settings.queue_inbound],
        ["BRPOP", settings.queue_cognition, "0.01"],
        ["LRANGE", settings.queue_inbound, "0", "-1"],
        ["DEL", settings.queue_batch],
        ["LLEN", f"{settings.redis_key_prefix}:inbox:held"],
        ["LLEN", "x.reply.celery.pidbox"],
        ["HGETALL", f"{settings.redis_key_prefix}:inbox:payloads"],
        ["ZRANGE", f"{settings.redis_key_prefix}:inbox:due", "0", "-1"],
        ["GET", f"{settings.redis_key_prefix}:emb:x"],
        ["XRANGE", settings.outbox_stream, "-", "+"],
        ["XLEN", settings.outbox_stream],
        ["HGETALL", "unacked"],
        ["PUBLISH", f"/{db}.celery.pidbox", "x"],
        ["SUBSCRIBE", f"/{db}.celeryev/task.succeeded"],
        ["PSUBSCRIBE", f"/{db}.celeryev/*"],
        ["PING"],
        ["INFO"],
        ["KEYS", "*"],
        ["SCAN", "0"],
        ["DBSIZE"],
        ["CONFIG", "GET", "*"],
        ["EVAL", "return 1", "0"],
        ["ACL", "WHOAMI"],
        ["MONITOR"],
    ):
        with pytest.raises(redis.exceptions.NoPermissionError):
            metrics.execute_command(*command)


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)  # the database plays no part in the ACL
@pytest.mark.parametrize("worker_connects_as", ["unrestricted", "worker"])
def test_the_gateway_client_as_the_gateway_user_gets_its_reply_from_a_real_worker(
    worker_connects_as: str,
    acl_users: dict[str, tuple[str, str]],
    start_worker,
    redis_client: redis.Redis,
    monkeypatch: pytest.MonkeyPatch,
):
    """The gateway's own client (gateway/client.py: inbox entry, send_task, consumer-group reader) under the
    gateway user, a real worker on the usual connection or as the worker user: the message is answered, an export
    is answered, and the gateway reads and acknowledges both through its group."""
    from celery import Celery

    from adapters.outbox_stream import OutboxReader, ensure_groups
    from gateway import client as gateway
    from workers.app import celery_config

    env = {"ELLA_REDIS_URL": url_as(*acl_users["worker"])} if worker_connects_as == "worker" else None
    start_worker(env=env)
    settings = get_settings().model_copy(update={"redis_url": url_as(*acl_users["gateway"])})
    gateway_redis = client_as(*acl_users["gateway"])
    gateway_app = Celery("ella-gateway-under-acl", set_as_current=False)
    gateway_app.conf.update(celery_config(settings))
    monkeypatch.setattr(gateway, "get_redis", lambda: gateway_redis)
    group = f"gw-{uuid.uuid4().hex[:6]}"
    ensure_groups(redis_client, settings.outbox_stream, group)  # as the workers do (ELLA_OUTBOX_GROUPS)
    reader = OutboxReader(gateway_redis, group, "c1")
    message_id, request_id, user = f"m-{uuid.uuid4().hex}", f"r-{uuid.uuid4().hex}", f"u-{uuid.uuid4().hex[:8]}"
    try:
        gateway.enqueue_message(
            message_id=message_id,
            user_id=user,
            text="Hi Ella, how are you?",
            sent_at=datetime.now(UTC),
            app=gateway_app,
        )
        gateway.export_user(request_id=request_id, user_id=user, app=gateway_app)
        seen: dict[str, str] = {}
        deadline = time.monotonic() + 60
        while len(seen) < 2 and time.monotonic() < deadline:
            entries = reader.read(block_ms=500)
            for entry in entries:
                if entry.user_id == user and entry.kind != "memory_changed":  # a notice of what she remembered
                    seen[entry.in_reply_to] = entry.kind
            assert reader.ack(*entries) == len(entries)
        assert seen == {message_id: "reply", request_id: "answer"}
        assert redis_client.xpending(settings.outbox_stream, reader.group)["pending"] == 0
    finally:
        gateway_app.close()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_the_standalone_gateway_package_as_the_gateway_user_gets_its_reply_from_a_real_worker(
    acl_users: dict[str, tuple[str, str]], start_worker, redis_client: redis.Redis
):
    """clients/python's ``ella_gateway`` (celery and redis only, no result backend, its own queue routing) under
    the same gateway user: what a gateway deploys must work under the ACL too."""
    from ella_gateway import Gateway, GatewayConfig

    start_worker()
    settings = get_settings()
    client = Gateway(
        GatewayConfig(
            redis_url=url_as(*acl_users["gateway"]),
            queue=settings.queue_inbound,
            outbox_stream=settings.outbox_stream,
            key_prefix=settings.redis_key_prefix,
        )
    )
    from adapters.outbox_stream import ensure_groups

    group = f"gw-{uuid.uuid4().hex[:6]}"
    ensure_groups(redis_client, settings.outbox_stream, group)  # as the workers do (ELLA_OUTBOX_GROUPS)
    reader = client.outbox_reader(group, "c1")
    message_id, request_id, user = f"m-{uuid.uuid4().hex}", f"r-{uuid.uuid4().hex}", f"u-{uuid.uuid4().hex[:8]}"
    try:
        client.enqueue_message(message_id=message_id, user_id=user, text="Hello there", sent_at=datetime.now(UTC))
        client.export_user(request_id=request_id, user_id=user)
        seen: dict[str, str] = {}
        deadline = time.monotonic() + 60
        while len(seen) < 2 and time.monotonic() < deadline:
            entries = reader.read(block_ms=500)
            seen |= {e["in_reply_to"]: e["kind"] for e in entries if e.get("user_id") == user}
            assert reader.ack(*entries) == len(entries)
        assert seen == {message_id: "reply", request_id: "answer"}
        assert redis_client.xpending(settings.outbox_stream, reader.group)["pending"] == 0
    finally:
        client.celery.close()


def _as_user(kind: str, acl_users: dict[str, tuple[str, str]]) -> Any:
    """A Celery app of our configuration connecting as ``kind`` (what an outside probe with its password runs)."""
    from celery import Celery

    from workers.app import celery_config

    settings = get_settings().model_copy(update={"redis_url": url_as(*acl_users[kind])})
    probe = Celery(f"probe-as-{kind}", set_as_current=False)
    probe.conf.update(celery_config(settings))
    return probe


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_the_gateway_user_cannot_erase_or_export_a_user_without_the_signing_key(
    acl_users: dict[str, tuple[str, str]], start_worker, redis_client: redis.Redis, outbox
):
    """The outside probe pushed ``ella.forget_user`` as the gateway user and a worker erased the user in 1.1 s.
    Now, with the workers holding a signing key (ELLA_GATEWAY_SIGNING_KEY): unsigned, or signed with another key,
    a forget and an export are refused (``rejected``, ``unsigned`` / ``bad_signature``) and the user is still
    there; signed with the key, the forget runs. The worker runs as the worker user, and made the gateways'
    group at start (the gateway user may not)."""
    from adapters.db import session_scope
    from ella import signing
    from gateway import client as gateway
    from models.user import User

    key = uuid.uuid4().hex
    start_worker(env={"ELLA_REDIS_URL": url_as(*acl_users["worker"]), "ELLA_GATEWAY_SIGNING_KEY": key})
    settings = get_settings()
    assert "gateway" in {g["name"] for g in redis_client.xinfo_groups(settings.outbox_stream)}
    user, message_id, request_id = f"u-{uuid.uuid4().hex[:8]}", f"m-{uuid.uuid4().hex}", f"r-{uuid.uuid4().hex}"
    gateway.enqueue_message(message_id=message_id, user_id=user, text="Hi, I'm Sam", sent_at=datetime.now(UTC))
    wait_for(lambda: [e for e in outbox() if e.in_reply_to == message_id], 60, what="the reply")

    probe = _as_user("gateway", acl_users)
    try:
        sent = {
            probe.send_task("ella.forget_user", kwargs={"user": user}, queue=settings.queue_inbound).id: "unsigned",
            probe.send_task(
                "ella.forget_user",
                kwargs=signing.signed("a guessed key", "ella.forget_user", {"user": user}),
                queue=settings.queue_inbound,
            ).id: "bad_signature",
            probe.send_task(
                "ella.export_user", kwargs={"request_id": request_id, "user_id": user}, queue=settings.queue_inbound
            ).id: "unsigned",
        }

        def refused() -> dict[str, str]:
            return {e.task_id: e.code for e in outbox() if e.kind == "rejected" and e.task_id in sent}

        wait_for(lambda: len(refused()) == len(sent), 60, what="the three refusals")
        assert refused() == sent
        assert not [e for e in outbox() if e.kind == "answer" and e.in_reply_to == request_id]
        with session_scope() as session:
            assert session.get(User, user) is not None, "erased with the broker password alone"

        signed = probe.send_task(
            "ella.forget_user",
            kwargs=signing.signed(key, "ella.forget_user", {"user": user}),
            queue=settings.queue_inbound,
        ).id
        wait_for(
            lambda: [e for e in outbox() if e.outbox_id == f"ack:ella.forget_user:{signed}:erased"], 60, what="erasure"
        )
        with session_scope() as session:
            assert session.get(User, user) is None
    finally:
        probe.close()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_the_flower_user_cannot_broadcast_remote_control_and_the_worker_lives(
    acl_users: dict[str, tuple[str, str]], start_worker
):
    """The outside probe shut a live worker down with a remote-control broadcast, with the flower user's
    password alone (around Flower's basic auth). Now the broadcast is refused by Redis (NOPERM) and the worker
    still answers a ping (sent as the worker user)."""
    from workers.app import app

    worker = start_worker(env={"ELLA_REDIS_URL": url_as(*acl_users["worker"])})
    flower = _as_user("flower", acl_users)
    try:
        for command in ("shutdown", "pool_restart", "pool_shrink", "revoke"):
            with pytest.raises(Exception, match="NOPERM|no permissions"):
                if command == "revoke":
                    flower.control.revoke(str(uuid.uuid4()), terminate=True)
                else:
                    flower.control.broadcast(command, reply=False)
        time.sleep(2)
        assert worker.proc is not None and worker.proc.poll() is None, worker.log_tail()
        assert app.control.ping(timeout=5), "the worker no longer answers"
    finally:
        flower.close()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_flower_as_the_flower_user_still_monitors_read_only_and_is_refused_nothing(
    acl_users: dict[str, tuple[str, str]], start_worker, redis_client: redis.Redis, tmp_path: Path
):
    """The real Flower (``celery -A workers.app flower``, as compose starts it) as the flower user: the task list
    shows a task a worker ran (from the events the workers send themselves), the broker page answers, its
    control API is off (read-only: 403), and Redis refused nothing it sent (ACL LOG)."""
    import base64
    import http.client
    import sys

    from gateway import client as gateway
    from tests.test_flower_auth import CREDENTIALS, flower_env, free_port, start, wait_listening

    start_worker(env={"ELLA_REDIS_URL": url_as(*acl_users["worker"])})
    port = free_port()
    celery_bin = str(Path(sys.executable).parent / "celery")
    env = flower_env(ELLA_REDIS_URL=url_as(*acl_users["flower"]), FLOWER_BASIC_AUTH=CREDENTIALS)
    proc, log = start([celery_bin, "-A", "workers.app", "flower", f"--port={port}"], env, tmp_path / "flower")

    def call(method: str, path: str) -> tuple[int, str]:
        auth = "Basic " + base64.b64encode(CREDENTIALS.encode()).decode()
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        try:
            conn.request(method, path, headers={"Authorization": auth}, body=b"" if method == "POST" else None)
            answer = conn.getresponse()
            return answer.status, answer.read().decode(errors="replace")
        finally:
            conn.close()

    try:
        wait_listening(proc, log, port)
        time.sleep(2)  # its event receiver subscribes
        task_id = gateway.enqueue_message(
            message_id=f"m-{uuid.uuid4().hex}",
            user_id=f"u-{uuid.uuid4().hex[:8]}",
            text="Hello",
            sent_at=datetime.now(UTC),
        )
        wait_for(lambda: task_id in call("GET", "/api/tasks")[1], 60, what="the task in Flower's task list")
        assert call("GET", "/broker")[0] == 200
        assert call("GET", "/workers")[0] == 200
        status, _ = call("POST", f"/api/worker/shutdown/celery@{socket.gethostname()}")
        assert status == 403, status
        name = acl_users["flower"][0]
        refused = [
            entry["object"]
            for entry in redis_client.acl_log()
            if entry["username"] in (name, name.encode())
            and entry["object"] not in ("client|setinfo", b"client|setinfo")
        ]
        assert refused == [], f"Flower sent what the flower user may not run: {refused}\n{log.read_text()[-3000:]}"
    finally:
        proc.kill()
        proc.wait()


# --- PostgreSQL ---------------------------------------------------------------------------------------------


@pytest.fixture
def pg_roles(tmp_path: Path) -> Iterator[dict[str, str]]:
    """kind -> role: ella-roles.psql run on a scratch database with this test's role names; all dropped after."""
    psql = shutil.which("psql")
    assert psql, "psql is needed to run the init script"
    admin = make_url(pg_admin_url())
    database = f"ella_t{RUN}_roles_{uuid.uuid4().hex[:6]}"
    roles = {kind: f"t{RUN}_{uuid.uuid4().hex[:4]}_{kind}" for kind in ("owner", "worker", "beat", "inspect")}
    admin_dsn = admin.set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{database}"')
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PGHOST": admin.host or "127.0.0.1",
        "PGPORT": str(admin.port or 5432),
        "PGUSER": admin.username or "postgres",
        "PGPASSWORD": admin.password or "",
        **{f"ELLA_PG_{kind.upper()}_ROLE": role for kind, role in roles.items()},
        **{f"ELLA_PG_{kind.upper()}_PASSWORD": uuid.uuid4().hex for kind in roles},
    }
    try:
        subprocess.run(
            [psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", database, "-f", str(PG_ROLES)],
            env=env,
            check=True,
            capture_output=True,
        )
        yield {"database": database, **roles}
    finally:
        from adapters import db

        db.forget_engine(_url_of(database, roles["owner"]))
        with psycopg.connect(admin_dsn, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
            for role in roles.values():
                conn.execute(f'DROP ROLE IF EXISTS "{role}"')


def _url_of(database: str, role: str) -> str:
    admin = make_url(pg_admin_url())
    return admin.set(username=role, password=None, database=database).render_as_string(hide_password=False)


def _connect(database: str, role: str) -> psycopg.Connection:
    dsn = make_url(_url_of(database, role)).set(drivername="postgresql").render_as_string(hide_password=False)
    return psycopg.connect(dsn, autocommit=True)


def test_migrations_run_as_the_owner_and_each_role_gets_exactly_its_grants(pg_roles: dict[str, str]):
    """The owner migrates (and owns every table); the worker reads and writes rows but cannot create, drop,
    alter or truncate a table; the operator page's role reads only; beat's role reads nothing; a role the script
    did not name cannot even connect. The grants reach the tables a migration creates after the script ran."""
    from adapters import db
    from models import User

    database = pg_roles["database"]
    db.upgrade(Settings(_env_file=None, database_url=_url_of(database, pg_roles["owner"])))

    with _connect(database, pg_roles["owner"]) as conn:
        owners = {row[0] for row in conn.execute("SELECT tableowner FROM pg_tables WHERE schemaname = 'public'")}
        assert owners == {pg_roles["owner"]}

    user_id = f"u-{uuid.uuid4().hex[:8]}"
    worker_url = _url_of(database, pg_roles["worker"])
    try:
        with db.get_engine_for(worker_url).begin() as sa_conn, Session(sa_conn) as session:
            session.add(User(id=user_id))  # the ORM's insert, as a task writes it
            session.flush()
            session.get_one(User, user_id).locale = "en_GB"
            session.flush()
    finally:
        db.forget_engine(worker_url)
    with _connect(database, pg_roles["worker"]) as conn:
        assert conn.execute("SELECT locale FROM users WHERE id = %s", (user_id,)).fetchone() == ("en_GB",)
        sequences = [
            row[0] for row in conn.execute("SELECT sequencename FROM pg_sequences WHERE schemaname = 'public'")
        ]
        assert sequences, "no sequence to check"
        for sequence in sequences:  # every autoincrement id a worker inserts draws from one
            conn.execute("SELECT nextval(%s)", (f'public."{sequence}"',))
        for statement in (
            "DROP TABLE users",
            "CREATE TABLE worker_made (id int)",
            "ALTER TABLE users ADD COLUMN extra int",
            "TRUNCATE users",
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)

    with _connect(database, pg_roles["inspect"]) as conn:
        assert conn.execute("SELECT count(*) FROM users WHERE id = %s", (user_id,)).fetchone() == (1,)
        for statement, args in (
            ("INSERT INTO users (id) VALUES (%s)", ("u-inspect",)),
            ("DELETE FROM users WHERE id = %s", (user_id,)),
            ("UPDATE users SET locale = 'de_DE' WHERE id = %s", (user_id,)),
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement, args)
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("CREATE TABLE inspect_made (id int)")

    with _connect(database, pg_roles["beat"]) as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT count(*) FROM users WHERE id = %s", (user_id,))

    with _connect(database, pg_roles["worker"]) as conn:
        conn.execute("DELETE FROM users WHERE id = %s", (user_id,))

    admin_dsn = make_url(pg_admin_url()).set(drivername="postgresql").render_as_string(hide_password=False)
    stranger = f"t{RUN}_{uuid.uuid4().hex[:4]}_stranger"
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        conn.execute(f'CREATE ROLE "{stranger}" LOGIN')
    try:
        with pytest.raises(psycopg.OperationalError, match="permission denied for database"):
            _connect(database, stranger).close()
    finally:
        with psycopg.connect(admin_dsn, autocommit=True) as conn:
            conn.execute(f'DROP ROLE IF EXISTS "{stranger}"')


def test_a_real_worker_as_the_worker_role_answers_exports_and_forgets_on_the_owners_schema(
    pg_roles: dict[str, str], redis_client: redis.Redis
):
    """A worker with only the worker role's grants does its real work: the schema check at start-up, a reply, an
    export, a right-to-be-forgotten erasure (every table it clears), with no "permission denied" in its log."""
    from adapters import db
    from adapters.redis_conn import redis_url
    from gateway import client as gateway
    from tests.conftest import VAR
    from workers.app import app
    from workers.procs import WorkerProcess

    settings = get_settings()
    database = pg_roles["database"]
    db.upgrade(Settings(_env_file=None, database_url=_url_of(database, pg_roles["owner"])))
    redis_client.delete(*settings.queues, f"{settings.redis_key_prefix}:llm:slots")
    worker = WorkerProcess(
        queues=list(settings.queues),
        env={"ELLA_REDIS_URL": redis_url(), "ELLA_DATABASE_URL": _url_of(database, pg_roles["worker"])},
        log_path=VAR / "log" / f"worker-roles-{uuid.uuid4().hex[:6]}.log",
    ).start()
    user, message_id, request_id = f"u-{uuid.uuid4().hex[:8]}", f"m-{uuid.uuid4().hex}", f"r-{uuid.uuid4().hex}"

    def answered() -> dict[str, str]:
        entries = redis_client.xrange(settings.outbox_stream)
        return {f.get("in_reply_to", ""): f.get("kind", "") for _, f in entries if f.get("user_id") == user}

    try:
        worker.wait_ready(app)
        gateway.enqueue_message(message_id=message_id, user_id=user, text="Hi, I'm Sam", sent_at=datetime.now(UTC))
        wait_for(lambda: answered().get(message_id) == "reply", 60, what="the reply")
        gateway.export_user(request_id=request_id, user_id=user)
        wait_for(lambda: answered().get(request_id) == "answer", 60, what="the export")
        gateway.forget_user(user_id=user)
        with _connect(database, pg_roles["owner"]) as conn:
            wait_for(
                lambda: conn.execute("SELECT count(*) FROM users WHERE id = %s", (user,)).fetchone() == (0,),
                60,
                what="the erasure",
            )
        log = worker.log_path.read_text(errors="replace")
        assert "permission denied" not in log and "InsufficientPrivilege" not in log, worker.log_tail()
    finally:
        worker.stop(timeout=20)
        redis_client.delete(*settings.queues)


@pytest.mark.parametrize(
    "command, worker_may",
    [
        (["BGREWRITEAOF"], True),
        (["BGSAVE", "SCHEDULE"], True),
        (["INFO", "persistence"], True),
        (["INFO"], False),
        (["INFO", "clients"], False),
        (["CONFIG", "GET", "save"], False),
    ],
)
def test_only_the_worker_may_rewrite_redis_files_for_an_erasure_and_read_only_their_progress(
    command: list[str], worker_may: bool, acl_users: dict[str, tuple[str, str]], redis_client: redis.Redis
):
    """The erasure's last step (adapters/disk_erasure.py) runs as the worker user: BGREWRITEAOF, BGSAVE and INFO's
    persistence section, and no other section of INFO nor CONFIG. No other kind may (ACL DRYRUN: nothing runs)."""
    for kind in KINDS:
        answer = redis_client.execute_command("ACL", "DRYRUN", acl_users[kind][0], *command)
        answer = answer.decode() if isinstance(answer, bytes) else str(answer)
        assert (answer == "OK") == (worker_may and kind == "worker"), f"{kind} {command}: {answer}"

"""A gateway written in Node drives a real worker: the package in ``clients/node`` (its own envelope over ioredis),
a stock celery-node client, and a hand-built envelope pushed with no Celery client at all, on SQLite and
PostgreSQL.

Why from pytest: ``make test`` is the one test command (CI runs it), so the Node side runs where the workers,
the scratch databases and the run's own queue and stream names (tests/conftest.py) already are. The Node
dependencies are installed once per run with ``npm ci`` from the committed lock (under a file lock: two xdist
processes must not both rebuild ``node_modules``). Without ``node`` or ``npm`` these tests fail under CI=true,
like a missing service, and elsewhere skip saying what is missing.
"""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import uuid
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from sqlalchemy import func, select

from adapters.db import autocommit_scope
from adapters.settings import get_settings
from ella.contract import TASK_SCHEMA_FILES, IngestPayload, MemoryRequest, ProfilePayload
from models import Base, DeadLetter, InboundMessage, OutboxRecord, User
from tests.conftest import wait_for
from tests.support.node_client import NODE_DIR
from tests.test_least_privilege import acl_users as acl_users  # a fixture: the ACL users, made and removed per test
from workers.events import FORGOTTEN_REASON

pytestmark = pytest.mark.integration


KWARGS_SCHEMAS = TASK_SCHEMA_FILES  # each task's own schema (docs/gateway.md, section 1)


def spec(name: str) -> Draft202012Validator:
    """A validator of the wire spec's JSON Schema ``docs/schemas/<name>``."""
    return Draft202012Validator(json.loads((NODE_DIR.parent.parent / "docs" / "schemas" / name).read_text()))


def node_env() -> dict[str, str]:
    """This run's environment, with the Redis URL the workers use (the embedded server's socket, if any)."""
    from adapters.redis_conn import redis_url

    return {**os.environ, "ELLA_REDIS_URL": redis_url()}


def run_node(package: Path, *args: str, timeout: float = 120) -> Any:
    """Run a Node script of the package; its last stdout line is JSON. Fails the test with stderr otherwise."""
    run = subprocess.run(
        ["node", *args], cwd=package, env=node_env(), capture_output=True, text=True, timeout=timeout, check=False
    )
    assert run.returncode == 0, f"node {args[0]} exited {run.returncode}:\n{run.stdout}\n{run.stderr}"
    return json.loads(run.stdout.strip().splitlines()[-1])


def user_rows(user: str) -> dict[str, int]:
    """Rows per table that belong to the user (every table with a user id, and the user row)."""
    found: dict[str, int] = {}
    with autocommit_scope() as s:
        for table in Base.metadata.sorted_tables:
            column = table.c.user_id if "user_id" in table.c else table.c.id if table.name == "users" else None
            if column is None:
                continue
            count = s.scalar(select(func.count()).select_from(table).where(column == user))
            if count:
                found[table.name] = int(count)
    return found


def test_the_node_clients_own_tests_pass_against_redis(node_package: Path) -> None:
    """What the client pushes and writes to the inbox, kwargsrepr without words, and the reader's pending rules
    (test/unit/client.test.js, on scratch keys of its own)."""
    run = subprocess.run(
        ["node", "--test", "test/unit"], cwd=node_package, env=node_env(), capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stdout + run.stderr
    counts = dict(re.findall(r"^# (pass|fail|skipped) (\d+)$", run.stdout, re.MULTILINE))
    assert counts == {"pass": "8", "fail": "0", "skipped": "0"}, run.stdout  # none lost to a missing file


def test_every_envelope_the_node_client_sends_passes_the_workers_check_and_schemas(node_package: Path) -> None:
    from workers.envelopes import envelope_problem
    from workers.routing import TaskName

    queue = get_settings().queue_inbound
    calls = [
        ("enqueueMessage", {"messageId": "m-1", "userId": "u-1", "text": "Hi", "sentAt": "2026-12-01T10:00:00Z"}),
        (
            "updateProfile",
            {
                "userId": "u-1",
                "updatedAt": "2026-12-01T10:00:00+00:00",
                "timezone": "Europe/London",
                "locale": "en_GB",
                "isMinor": False,
                "doNotDisturb": "22:00-07:00",
                "activeHours": "09:00-21:00",
                "notifications": True,
            },
        ),
        ("forgetUser", {"userId": "u-1"}),
        ("exportUser", {"requestId": "r-1", "userId": "u-1"}),
        ("forgetMemory", {"requestId": "r-2", "userId": "u-1", "item": "memory:3"}),
        ("correctFact", {"requestId": "r-3", "userId": "u-1", "item": "fact:7", "value": "Maya"}),
    ]
    raw = run_node(node_package, "test/send.js", "--envelopes", json.dumps([{"call": c, "args": a} for c, a in calls]))
    assert len(raw) == len(calls)
    models = {
        "ella.ingest_message": IngestPayload,
        "ella.update_profile": ProfilePayload,
        "ella.export_user": MemoryRequest,
        "ella.forget_memory": MemoryRequest,
        "ella.correct_fact": MemoryRequest,
    }
    for item in raw:
        envelope = json.loads(item)
        assert envelope_problem(envelope, queue, lambda name: name in set(TaskName)) is None, envelope["headers"]
        spec("envelope.schema.json").validate(envelope)
        args, kwargs, _embed = json.loads(base64.b64decode(envelope["body"]))
        task = envelope["headers"]["task"]
        assert args == []
        spec(KWARGS_SCHEMAS[task]).validate(kwargs)
        if task in models:
            models[task].model_validate(kwargs)
        else:
            assert kwargs == {"user": "u-1"}
    assert [json.loads(item)["headers"]["task"] for item in raw] == [
        "ella.ingest_message",
        "ella.update_profile",
        "ella.forget_user",
        "ella.export_user",
        "ella.forget_memory",
        "ella.correct_fact",
    ]


def test_a_stock_celery_node_message_passes_the_workers_check_and_the_spec(node_package: Path, redis_client) -> None:
    """What celery-node 0.5.9 really pushes (onto a queue no worker reads), judged as the inbound queue's."""
    from workers.envelopes import envelope_problem
    from workers.routing import TaskName

    scratch = f"{get_settings().queue_inbound}-look-{uuid.uuid4().hex[:6]}"
    options = {"userId": "u-1", "messageIds": ["m-1"], "queue": scratch}
    try:
        sent = run_node(node_package, "test/stock_celery_node.js", json.dumps(options))
        [raw] = redis_client.lrange(scratch, 0, -1)
    finally:
        redis_client.delete(scratch)
    envelope = json.loads(raw)
    assert envelope["headers"] == {"lang": "js", "task": "ella.ingest_message", "id": sent["sent"][0]}
    assert envelope["properties"]["body_encoding"] == "base64"
    inbound = get_settings().queue_inbound
    assert envelope_problem(envelope, inbound, lambda name: name in set(TaskName)) is None
    spec("envelope.schema.json").validate(envelope)
    args, kwargs, embed = json.loads(base64.b64decode(envelope["body"]))
    assert (args, embed) == ([], {})
    spec("ingest_message.kwargs.schema.json").validate(kwargs)


def test_a_node_gateway_gets_each_message_answered_once_and_its_acks_leave_nothing_pending(
    node_package: Path, start_worker, redis_client, outbox
) -> None:
    start_worker()
    tag = f"n{uuid.uuid4().hex[:8]}"
    first, second = f"{tag}-ana", f"{tag}-ben"
    group = f"gw-{tag}"
    options = {"users": [first, second], "tag": tag, "group": group, "consumer": "node-1"}
    summary = run_node(
        node_package, "test/contract.js", json.dumps({**options, "timeoutMs": 90_000, "settleMs": 3_000}), timeout=150
    )
    assert summary["complete"], summary
    sent = [s for s in summary["sent"] if not s["repeat"]]
    repeat = next(s for s in summary["sent"] if s["repeat"])
    ids = {s["messageId"]: s["userId"] for s in sent}
    assert len(ids) == 20 and repeat["messageId"] in ids and repeat["taskId"] != sent[0]["taskId"]

    # each message answered exactly once, to its own user: on the stream Node read, on the stream, in the database
    assert {m: r["count"] for m, r in summary["replies"].items()} == dict.fromkeys(ids, 1)
    assert {m: r["users"] for m, r in summary["replies"].items()} == {m: [u] for m, u in ids.items()}
    on_stream = [e.in_reply_to for e in outbox() if e.kind == "reply" and e.in_reply_to in ids]
    assert sorted(on_stream) == sorted(ids)
    with autocommit_scope() as s:
        for user in (first, second):
            records = s.scalars(
                select(OutboxRecord.in_reply_to).where(OutboxRecord.user_id == user, OutboxRecord.kind == "reply")
            ).all()
            assert sorted(records) == sorted(m for m, u in ids.items() if u == user)
            stored = s.scalars(select(InboundMessage).where(InboundMessage.user_id == user)).all()
            assert sorted(m.message_id for m in stored) == sorted(m for m, u in ids.items() if u == user)
        # the repeat changed nothing: one row, stored by the first send's task
        again = s.scalars(select(InboundMessage).where(InboundMessage.message_id == repeat["messageId"])).one()
        assert again.task_id == sent[0]["taskId"] and again.text == "Hello Ella, this is message 0 of mine."

        # the profile applied
        profile = s.scalars(select(User).where(User.id == first)).one()
        assert (profile.timezone, profile.locale, profile.notifications_enabled) == ("Europe/Berlin", "de_DE", False)
        assert (profile.dnd_start_minute, profile.dnd_end_minute) == (23 * 60, 7 * 60)
        assert (profile.active_start_minute, profile.active_end_minute) == (10 * 60, 20 * 60)

    answers = summary["answers"]
    assert answers[f"{tag}-export"] == {
        "count": 1,
        "user_id": first,
        "category": "done",
        "route": "export",
        "status": "done",
        "error": None,
        "export_user_id": first,
    }
    refused = answers[f"{tag}-forget"]
    assert (refused["count"], refused["status"], refused["error"], refused["category"]) == (
        1,
        "refused",
        "unknown_item",
        "refused",
    )

    # the profile update was acknowledged on the stream, named by the snapshot's time as sent
    ack = {"kind": "ack", "task": "ella.update_profile", "code": "applied", "in_reply_to": summary["profileUpdatedAt"]}
    # (and the memory_changed notices of what Ella remembered of the messages meanwhile: ids only)
    assert [o for o in summary["others"] if o["kind"] != "memory_changed"] == [ack]

    # every entry Node read was acknowledged: the group has nothing pending, by Node's count and by Redis's
    stream = get_settings().outbox_stream
    assert summary["pendingAfter"] == 0 and redis_client.xpending(stream, group)["pending"] == 0
    assert summary["acked"] == sum(summary["kinds"].values())
    # and the inbox let go of every answered message (the worker removes the entry the Node client wrote)
    payloads = f"{get_settings().redis_key_prefix}:inbox:payloads"
    wait_for(lambda: not [k for k in redis_client.hkeys(payloads) if tag in k], 30, what="the inbox emptied")
    assert not [k for k in redis_client.hkeys("ella:inbox:payloads") if tag in k]  # written under the run's prefix


def test_a_stock_celery_node_client_is_answered(node_package: Path, start_worker, outbox) -> None:
    start_worker()
    user = f"cn-{uuid.uuid4().hex[:8]}"
    message_ids = [f"{user}-m{i}" for i in range(3)]
    sent = run_node(node_package, "test/stock_celery_node.js", json.dumps({"userId": user, "messageIds": message_ids}))
    assert len(sent["sent"]) == 3
    replies = wait_for(
        lambda: (
            (found := [e for e in outbox() if e.kind == "reply" and e.user_id == user]) and len(found) >= 3 and found
        ),
        60,
        what="the replies to the celery-node client",
    )
    assert sorted(e.in_reply_to for e in replies) == sorted(message_ids)
    with autocommit_scope() as s:
        stored = s.scalars(select(InboundMessage).where(InboundMessage.user_id == user)).all()
        assert {m.message_id: m.task_id for m in stored} == dict(zip(message_ids, sent["sent"], strict=True))


def test_no_log_line_names_a_stock_celery_node_clients_user_or_words(node_package: Path, start_worker, outbox) -> None:
    """celery-node sends no argsrepr/kwargsrepr: the workers' own lines must still print neither the text nor the
    user id (the server sets the representations, ``workers.envelopes``; the log filter, ``workers.logs``)."""
    start_worker()
    user, canary = f"cn-log-{uuid.uuid4().hex}", f"nodecanary {uuid.uuid4().hex}"
    message_ids = [f"m-log-{uuid.uuid4().hex[:10]}" for _ in range(2)]  # ids that do not spell the user
    payload = json.dumps({"userId": user, "messageIds": message_ids, "text": canary})
    assert len(run_node(node_package, "test/stock_celery_node.js", payload)["sent"]) == 2
    wait_for(lambda: len([e for e in outbox() if e.kind == "reply" and e.user_id == user]) == 2, 60, what="replies")
    folder, settings = get_settings().var_path / "log", get_settings()

    def settled() -> bool:  # the turns' memory and ledger tasks ran and logged too
        from adapters.redis_conn import get_redis

        text = "".join(path.read_text(errors="replace") for path in folder.glob("*.log*"))
        return text.count("ella.perceive[") >= 2 and not any(get_redis().llen(q) for q in settings.queues)

    wait_for(settled, 60, what="the turns' follow-up tasks")
    lines = [line for path in sorted(folder.glob("*.log*")) for line in path.read_text(errors="replace").splitlines()]
    assert any("ella.ingest_message" in line for line in lines)
    assert [line for line in lines if canary in line or user in line] == []


def test_a_hand_built_envelope_pushed_with_no_celery_client_is_answered(start_worker, redis_client, outbox) -> None:
    """The least a client in any language must send: this JSON, LPUSHed onto the queue's Redis list."""
    start_worker()
    user, message_id, task_id = f"raw-{uuid.uuid4().hex[:8]}", f"m-{uuid.uuid4().hex[:8]}", str(uuid.uuid4())
    queue = get_settings().queue_inbound
    kwargs = {
        "message_id": message_id,
        "user_id": user,
        "text": "Hello from a shell script",
        "sent_at": "2026-12-01T09:00:00+00:00",
    }
    item = {
        "body": base64.b64encode(json.dumps([[], kwargs, {}]).encode()).decode(),
        "content-type": "application/json",
        "content-encoding": "utf-8",
        "headers": {"lang": "sh", "task": "ella.ingest_message", "id": task_id},
        "properties": {
            "body_encoding": "base64",
            "delivery_tag": str(uuid.uuid4()),
            "delivery_info": {"exchange": "", "routing_key": queue},
        },
    }
    redis_client.execute_command("LPUSH", queue, json.dumps(item))
    reply = wait_for(
        lambda: next((e for e in outbox() if e.kind == "reply" and e.in_reply_to == message_id), None),
        60,
        what="the reply to the hand-built envelope",
    )
    assert reply.user_id == user
    with autocommit_scope() as s:
        assert s.scalars(select(InboundMessage.task_id).where(InboundMessage.message_id == message_id)).one() == task_id


def test_forget_user_from_node_erases_the_user_and_a_late_message_gets_no_reply(
    node_package: Path, start_worker, redis_client, outbox
) -> None:
    start_worker()
    user = f"nf-{uuid.uuid4().hex[:8]}"

    def message(n: int) -> dict[str, Any]:
        args = {
            "messageId": f"{user}-m{n}",
            "userId": user,
            "text": f"Remember my cat, number {n}.",
            "sentAt": "2026-12-01T09:00:00Z",
        }
        return {"call": "enqueueMessage", "args": args}

    run_node(node_package, "test/send.js", json.dumps([message(1), message(2)]))
    wait_for(lambda: len([e for e in outbox() if e.kind == "reply" and e.user_id == user]) == 2, 60, what="2 replies")
    assert user_rows(user).get("users") == 1

    run_node(node_package, "test/send.js", json.dumps([{"call": "forgetUser", "args": {"userId": user}}]))
    wait_for(lambda: user_rows(user) == {}, 60, what="the user's rows erased")
    wait_for(lambda: not [e for e in outbox() if e.user_id == user], 60, what="their replies erased from the stream")

    run_node(node_package, "test/send.js", json.dumps([message(3)]))

    def refused() -> bool:
        with autocommit_scope() as s:
            return bool(s.scalar(select(func.count()).where(DeadLetter.reason == FORGOTTEN_REASON)))

    wait_for(refused, 60, what="the late message refused")
    late = f"{user}-m3"
    rejected = wait_for(
        lambda: [e for e in outbox() if e.kind == "rejected" and e.in_reply_to == late], 60, what="its rejection"
    )
    # the gateway is told, without the user's id (a trace of them), and never answered
    assert [(e.task, e.code, e.user_id) for e in rejected] == [("ella.ingest_message", "user_erased", "")]
    assert not [e for e in outbox() if e.kind == "reply" and e.in_reply_to == late]
    assert user_rows(user) == {}  # not created again
    payloads = f"{get_settings().redis_key_prefix}:inbox:payloads"
    wait_for(lambda: not [k for k in redis_client.hkeys(payloads) if user in k], 30, what="its inbox entry gone")


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)  # the database plays no part in the ACL
def test_the_node_client_as_the_gateways_redis_user_sends_and_reads_its_reply(node_package, start_worker, acl_users):
    """Under the gateway's ACL user (docs/deployment-security.md) the Node client's connection must log in with the
    URL's user name and skip ioredis's INFO ready check, which that user may not run."""
    from adapters.outbox_stream import ensure_groups
    from adapters.redis_conn import get_redis
    from tests.test_least_privilege import url_as

    start_worker()
    message_id, user = f"acl-{uuid.uuid4().hex[:8]}", f"acl-{uuid.uuid4().hex[:8]}"
    env = {**node_env(), "ELLA_REDIS_URL": url_as(*acl_users["gateway"])}
    group = f"gw-{uuid.uuid4().hex[:6]}"
    # the workers make the gateways' groups (ELLA_OUTBOX_GROUPS): the gateway user's XGROUP CREATE is refused
    ensure_groups(get_redis(), get_settings().outbox_stream, group)
    run = subprocess.run(["node", "test/as_gateway_user.js", message_id, user, group],
                         cwd=node_package, env=env, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert run.returncode == 0, run.stderr
    summary = json.loads(run.stdout.strip().splitlines()[-1])
    assert summary == {"reply": message_id, "pending": 0, "probe": "refused"}  # refused: not the default user

"""Issue 24, items 8 and 10, through real workers.

Item 8: whoever produced a message (a raw ``LPUSH`` with or without ``argsrepr``/``kwargsrepr``, base64 or plain
UTF-8 bodies, a protocol 1 body, a plain ``app.send_task``, positional arguments, unknown keys, values a
validator quotes back), no line of the worker's log spells the user's words or id: not Celery's "received" and
trace lines, not a dead letter's reason, not an exception's repr (``workers.logs``). Nor does an erased user's
late message, whose "received" line is printed before any task code looks at the tombstone.

Item 10: a user whose message the broker lost, and whose ``message_id`` another user then took, is still
answered: the inbox sweep's re-send is refused with a ``rejected`` entry, code ``message_id_taken``, for her.
(A stock celery-node client's lines are checked in tests/test_node_gateway.py.)
"""

from __future__ import annotations

import base64
import json
import logging
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from adapters.settings import get_settings
from tests.conftest import wait_for
from tests.test_node_gateway import run_node
from workers.routing import TaskName

EMBED = {"callbacks": None, "errbacks": None, "chain": None, "chord": None}


def hex8() -> str:
    return uuid.uuid4().hex[:8]


def now() -> str:
    return datetime.now(UTC).isoformat()


def raw_item(
    task: str,
    kwargs: Any,
    queue: str,
    *,
    encoding: str | None = "base64",
    headers: dict[str, Any] | None = None,
    protocol1: bool = False,
) -> str:
    """A queue item as a non-Python producer LPUSHes it: protocol 2 (celery-node's shape: ``lang`` "js", no
    representations unless ``headers`` gives some) or a protocol 1 body (task and kwargs in the body)."""
    task_id = str(uuid.uuid4())
    if protocol1:
        body: Any = {"task": task, "id": task_id, "args": [], "kwargs": kwargs, "retries": 0, "eta": None}
        shown_headers: dict[str, Any] = dict(headers or {})
    else:
        body = [[], kwargs, EMBED]
        shown_headers = {"lang": "js", "task": task, "id": task_id, "root_id": task_id, "parent_id": None,
                         "group": None, **(headers or {})}  # fmt: skip
    text = json.dumps(body)
    properties: dict[str, Any] = {"correlation_id": task_id, "delivery_mode": 2, "priority": 0,
                                  "delivery_info": {"exchange": "", "routing_key": queue},
                                  "delivery_tag": str(uuid.uuid4())}  # fmt: skip
    if encoding:
        properties["body_encoding"] = encoding
    return json.dumps(
        {
            "body": base64.b64encode(text.encode()).decode() if encoding == "base64" else text,
            "content-encoding": "utf-8",
            "content-type": "application/json",
            "headers": shown_headers,
            "properties": properties,
        }
    )


def log_lines(path: Path) -> list[str]:
    return path.read_text(errors="replace").splitlines()


def settled(redis_client: Any, path: Path, perceived: int) -> bool:
    """Every queue drained and the answered turns' memory tasks logged (the last lines a message causes)."""
    queues = get_settings().queues
    return (
        not any(redis_client.llen(q) for q in queues)
        and path.read_text(errors="replace").count("ella.perceive[") >= perceived
    )


# --- without a worker -------------------------------------------------------------------------------------------


def test_a_line_inside_a_task_spells_none_of_its_arguments_whatever_the_key_or_the_quoting():
    """What a validator quotes back (a value in a reason, an unknown key), in a repr or in JSON, is hidden; the
    ids the operator greps by stay."""
    from workers.logs import ContextFilter, pseudonym, remember_task

    task_id, user, words = str(uuid.uuid4()), f"u-{hex8()}", f'it\'s my "secret"\nplan {hex8()}'
    kwargs = {"message_id": "m-42", "user_id": user, "text": words, "sent_at": f"zebra{hex8()}", f"key{hex8()}": 1}
    remember_task(task_id, TaskName.INGEST_MESSAGE, [], kwargs)
    secret_key = next(k for k in kwargs if k.startswith("key"))
    message = (
        f"DeadLettered({('sent_at: got ' + repr(kwargs['sent_at']))!r}) {secret_key}: extra; {words!r} "
        f"{json.dumps(words)} m-42 {user}"
    )

    class Request:
        id, args, kwargs = task_id, [], {}  # cleared by the task (an erased user's late message)

    class Task:
        name, request = TaskName.INGEST_MESSAGE, Request()

    import celery

    record = logging.LogRecord("celery.app.trace", logging.INFO, __file__, 1, "%s", (message,), None)
    celery._state._task_stack.push(Task())
    try:
        assert ContextFilter().filter(record)
    finally:
        celery._state._task_stack.pop()
    shown = record.getMessage()
    for secret in (user, words, repr(words)[1:-1], json.dumps(words)[1:-1], kwargs["sent_at"], secret_key):
        assert secret not in shown
    assert "m-42" in shown and pseudonym(user) in shown


def test_a_long_text_cut_short_by_a_repr_is_hidden_by_its_first_characters():
    from celery.utils.saferepr import saferepr

    from workers.logs import task_secrets

    words = f"the beginning of a long confession {hex8()} " + "and then it goes on " * 3000
    secrets = task_secrets([], {"text": words, "user_id": "u-1"}, TaskName.INGEST_MESSAGE)
    line = f"payload: {saferepr({'text': words}, maxlen=200)}"
    for secret, replacement in sorted(secrets.items(), key=lambda item: -len(item[0])):
        line = line.replace(secret, replacement)
    assert words[:40] not in line and "<text>" in line


# --- through a real worker --------------------------------------------------------------------------------------


@pytest.mark.integration
def test_no_worker_log_line_spells_the_users_words_or_id_whatever_the_producer(start_worker, redis_client):
    from workers.app import app

    inbound = get_settings().queue_inbound
    worker = start_worker()
    user, canary = f"leak-{uuid.uuid4().hex}", f"zebracanary{hex8()}"
    words = f'my {canary} is here, it\'s "quoted"\nand on two lines'
    forged = {"argsrepr": repr([user, canary]), "kwargsrepr": repr({"user_id": user, "text": canary})}

    def ingest(name: str, **extra: Any) -> dict[str, Any]:
        return {"message_id": f"m-{name}-{hex8()}", "user_id": user, "text": words, "sent_at": now(), **extra}

    profile = {"user_id": user, "updated_at": now(), "timezone": canary, "locale": "en_GB", "is_minor": False,
               "do_not_disturb": None, "active_hours": "09:00-21:00", "notifications": True}  # fmt: skip
    items = [
        raw_item(TaskName.INGEST_MESSAGE, ingest("b64"), inbound),
        raw_item(TaskName.INGEST_MESSAGE, ingest("utf8"), inbound, encoding="utf-8"),
        raw_item(TaskName.INGEST_MESSAGE, ingest("forged"), inbound, headers=forged),
        raw_item(TaskName.INGEST_MESSAGE, ingest("p1"), inbound, protocol1=True),
        raw_item(TaskName.INGEST_MESSAGE, ingest("p1u"), inbound, protocol1=True, encoding="utf-8", headers=forged),
        raw_item(TaskName.INGEST_MESSAGE, {**ingest("when"), "sent_at": canary}, inbound),  # quoted in the reason
        raw_item(TaskName.INGEST_MESSAGE, ingest("key", **{canary: user}), inbound),  # a key the reason names
        raw_item(TaskName.INGEST_MESSAGE, ingest("conv", conversation_id=f"{user} {canary}"), inbound),
        raw_item(TaskName.UPDATE_PROFILE, profile, inbound),  # "unknown IANA time zone '<canary>'"
        raw_item(
            TaskName.FORGET_MEMORY,
            {"request_id": f"r-{hex8()}", "user_id": user, "item": canary, "reason": words},
            inbound,
        ),
        raw_item(
            TaskName.CORRECT_FACT,
            {"request_id": f"r-{hex8()}", "user_id": user, "item": "fact:999", "value": words, "reason": canary},
            inbound,
        ),
        raw_item(TaskName.EXPORT_USER, {"request_id": f"r-{hex8()}", "user_id": user, canary: canary}, inbound),
        raw_item(f"ella.{canary}", {"user_id": user, "text": words}, inbound),  # a task name no worker runs
    ]
    for item in items:
        redis_client.lpush(inbound, item)
    app.send_task(TaskName.INGEST_MESSAGE, kwargs=ingest("plain"), queue=inbound)  # Celery's own kwargsrepr
    app.send_task(TaskName.INGEST_MESSAGE, args=[user, words], queue=inbound)
    app.send_task(TaskName.UPDATE_PROFILE, kwargs={"user_id": user, "timezone": canary}, queue=inbound)

    wait_for(lambda: settled(redis_client, worker.log_path, perceived=4), 90, what="every message handled")
    lines = log_lines(worker.log_path)
    assert any("raised expected: DeadLettered" in line for line in lines)  # the refusals were logged
    assert (
        len([line for line in lines if "ella.ingest_message[" in line and " received" in line]) >= 8
    )  # protocol 1 is refused before
    assert [line for line in lines if canary in line or user in line] == []


@pytest.mark.integration
def test_an_erased_users_late_messages_from_a_raw_producer_leave_neither_her_id_nor_her_words_in_the_log(
    start_worker, redis_client, outbox
):
    from gateway.client import enqueue_message, forget_user

    inbound = get_settings().queue_inbound
    worker = start_worker()
    user, canary = f"erased-{uuid.uuid4().hex}", f"quokkacanary{hex8()}"
    first = f"m-first-{hex8()}"
    enqueue_message(message_id=first, user_id=user, text=f"remember my {canary}", sent_at=now())
    wait_for(lambda: [e for e in outbox() if e.kind == "reply" and e.in_reply_to == first], 60, what="her reply")
    task_id = forget_user(user_id=user)
    wait_for(lambda: [e for e in outbox() if e.outbox_id == f"ack:ella.forget_user:{task_id}:erased"], 60,
             what="the erasure")  # fmt: skip
    mark = len(log_lines(worker.log_path))  # the erasure scrubbed the log up to here (tasks/privacy.py)

    late = [f"m-late-{name}-{hex8()}" for name in ("b64", "utf8", "forged", "bad", "p1")]
    kwargs = [{"message_id": mid, "user_id": user, "text": f"late {canary} words", "sent_at": now()} for mid in late]
    forged = {"kwargsrepr": repr(kwargs[2]), "argsrepr": repr([user])}
    for item in (
        raw_item(TaskName.INGEST_MESSAGE, kwargs[0], inbound),
        raw_item(TaskName.INGEST_MESSAGE, kwargs[1], inbound, encoding="utf-8"),
        raw_item(TaskName.INGEST_MESSAGE, kwargs[2], inbound, headers=forged),
        raw_item(TaskName.INGEST_MESSAGE, {**kwargs[3], "sent_at": f"{user} {canary}"}, inbound),
        raw_item(TaskName.INGEST_MESSAGE, kwargs[4], inbound, protocol1=True),
    ):
        redis_client.lpush(inbound, item)
    for mid in late[:4]:  # a protocol 1 body is a malformed envelope with no ids to answer (workers.envelopes)
        wait_for(lambda mid=mid: [e for e in outbox() if e.kind == "rejected" and e.in_reply_to == mid], 60,
                 what=f"the refusal of {mid}")  # fmt: skip
    wait_for(lambda: not redis_client.llen(inbound), 30, what="the queue drained")
    lines = log_lines(worker.log_path)[mark:]
    assert sum(" received" in line for line in lines) >= 4
    assert [line for line in lines if user in line or canary in line] == []


@pytest.mark.integration
def test_a_user_whose_lost_message_id_another_user_took_is_answered_message_id_taken(
    start_worker, redis_client, outbox, monkeypatch: pytest.MonkeyPatch
):
    """A sends M; the broker loses A's task; B sends M and is stored first; the inbox sweep's re-send of A's
    message is refused, and A is told so on the stream (``rejected``, ``message_id_taken``, her user id, in
    reply to M) instead of waiting on silence; her inbox entry is gone, B's reply is the one reply to M."""
    from adapters import inbox
    from gateway.client import enqueue_message
    from tasks.inbox import resend_unanswered_messages

    monkeypatch.setenv("ELLA_REDIS_KEY_PREFIX", f"{get_settings().redis_key_prefix}-{hex8()}")  # an inbox of its own
    monkeypatch.setenv("ELLA_INBOX_RECHECK_AFTER_S", "0.1")
    get_settings.cache_clear()
    inbound = get_settings().queue_inbound
    first, second, message_id = f"a-{hex8()}", f"b-{hex8()}", f"m-shared-{hex8()}"
    redis_client.delete(inbound)
    enqueue_message(message_id=message_id, user_id=first, text="Are you there?", sent_at=now())
    assert redis_client.delete(inbound) == 1  # the broker lost her task before any worker took it
    start_worker()
    enqueue_message(message_id=message_id, user_id=second, text="Hello from B", sent_at=now())
    wait_for(lambda: [e for e in outbox() if e.kind == "reply" and e.user_id == second], 60, what="B's reply")

    assert resend_unanswered_messages.apply().get() >= 1  # A's message (early look, and the late one if due)
    refused = wait_for(
        lambda: [e for e in outbox() if e.kind == "rejected" and e.in_reply_to == message_id], 60, what="A's answer"
    )
    assert isinstance(refused, list) and len(refused) == 1
    assert (refused[0].user_id, refused[0].code, refused[0].task) == (first, "message_id_taken", "ella.ingest_message")
    wait_for(lambda: not redis_client.hexists(inbox.InboxKeys.of().payloads, inbox.entry_key(first, message_id)), 30,
             what="A's inbox entry dropped")  # fmt: skip
    assert resend_unanswered_messages.apply().get() == 0  # nothing left to re-send: she is not asked twice
    answers = [e for e in outbox() if e.in_reply_to == message_id]
    assert sorted((e.kind, e.user_id) for e in answers) == sorted([("reply", second), ("rejected", first)])
    redis_client.delete(*inbox.InboxKeys.of().all())


@pytest.mark.integration
def test_an_erased_users_late_message_from_a_stock_celery_node_client_leaves_neither_her_id_nor_her_words(
    node_package: Path,
    start_worker,
    outbox,
):
    """celery-node 0.5.9 as it ships (clients/node's dev dependency): no representations, ``lang`` "js"."""
    from gateway.client import enqueue_message, forget_user

    worker = start_worker()
    user, canary = f"cn-erased-{uuid.uuid4().hex}", f"wombatcanary{hex8()}"
    first = f"m-first-{hex8()}"
    enqueue_message(message_id=first, user_id=user, text=f"remember my {canary}", sent_at=now())
    wait_for(lambda: [e for e in outbox() if e.kind == "reply" and e.in_reply_to == first], 60, what="her reply")
    task_id = forget_user(user_id=user)
    wait_for(lambda: [e for e in outbox() if e.outbox_id == f"ack:ella.forget_user:{task_id}:erased"], 60,
             what="the erasure")  # fmt: skip
    mark = len(log_lines(worker.log_path))
    late = [f"m-cn-late-{hex8()}" for _ in range(2)]
    payload = json.dumps({"userId": user, "messageIds": late, "text": f"late {canary} words"})
    assert len(run_node(node_package, "test/stock_celery_node.js", payload)["sent"]) == 2
    for mid in late:
        refused = wait_for(lambda mid=mid: [e for e in outbox() if e.kind == "rejected" and e.in_reply_to == mid], 60,
                           what=f"the refusal of {mid}")  # fmt: skip
        assert isinstance(refused, list) and (refused[0].code, refused[0].user_id) == ("user_erased", "")
    lines = log_lines(worker.log_path)[mark:]
    assert sum(" received" in line for line in lines) >= 2
    assert [line for line in lines if user in line or canary in line] == []

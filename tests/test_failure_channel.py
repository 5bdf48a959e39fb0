"""The gateway's failure channel and acks: every refusal is one ``rejected`` stream entry, profile updates and
erasures are acknowledged, any protocol 2 JSON client is accepted, and no log line names the user or their words.

Through real workers on both backends; raw envelopes are built by hand, as celery-node 0.5.9 sends them
(``lang`` "js", no ``argsrepr``/``kwargsrepr``), and pushed onto the queues' Redis lists.
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
import redis
from jsonschema import Draft202012Validator
from sqlalchemy import select

from adapters.db import session_scope
from adapters.settings import get_settings
from ella import rejections
from ella.contract import OutboxEntry
from models import DeadLetter
from models.erasure import tombstone_key
from tests.conftest import wait_for
from workers.envelopes import envelope_problem, tolerant_loads
from workers.routing import TaskName

EMBED = {"callbacks": None, "errbacks": None, "chain": None, "chord": None}


def hex8() -> str:
    return uuid.uuid4().hex[:8]


def message(user_id: str, message_id: str, text: str) -> dict[str, Any]:
    return {"message_id": message_id, "user_id": user_id, "text": text, "sent_at": datetime.now(UTC).isoformat()}


def raw_envelope(
    task: str,
    kwargs: Any,
    queue: str,
    *,
    body_encoding: str | None = "base64",
    headers: dict[str, Any] | None = None,
    body: Any = None,
) -> tuple[str, str]:
    """(task id, the raw queue item) of a protocol 2 JSON message as celery-node sends it: ``lang`` "js", no
    ``argsrepr``/``kwargsrepr``."""
    task_id = str(uuid.uuid4())
    text = json.dumps(body if body is not None else [[], kwargs, EMBED])
    properties: dict[str, Any] = {
        "correlation_id": task_id,
        "reply_to": "",
        "delivery_mode": 2,
        "delivery_info": {"exchange": "", "routing_key": queue},
        "priority": 0,
        "delivery_tag": str(uuid.uuid4()),
    }
    if body_encoding is not None:
        properties["body_encoding"] = body_encoding
    item = {
        "body": base64.b64encode(text.encode()).decode() if body_encoding == "base64" else text,
        "content-encoding": "utf-8",
        "content-type": "application/json",
        "headers": {
            "lang": "js",
            "task": task,
            "id": task_id,
            "root_id": task_id,
            "parent_id": None,
            "group": None,
            **(headers or {}),
        },  # fmt: skip
        "properties": properties,
    }
    return task_id, json.dumps(item)


def entries(outbox: Any, kind: str) -> list[OutboxEntry]:
    return [e for e in outbox() if e.kind == kind]


def one(outbox: Any, kind: str, what: str, **match: str) -> OutboxEntry:
    """The one entry of ``kind`` whose fields match, waited for; fails if there are two."""
    found = wait_for(
        lambda: [e for e in entries(outbox, kind) if all(getattr(e, k) == v for k, v in match.items())], 60, what=what
    )
    assert isinstance(found, list) and len(found) == 1, found
    return found[0]


# --- without a worker -------------------------------------------------------------------------------------------


def test_an_envelope_from_any_protocol_2_json_client_passes_whatever_its_lang():
    inbound = get_settings().queue_inbound
    kwargs = message("u-1", "m-1", "hello")
    for lang in ("js", "go", "rb", None):
        _, raw = raw_envelope(TaskName.INGEST_MESSAGE, kwargs, inbound, headers={"lang": lang})
        assert envelope_problem(tolerant_loads(raw), inbound, lambda _name: True) is None, lang
    for encoding in (None, "utf-8", "UTF-8"):
        _, raw = raw_envelope(TaskName.INGEST_MESSAGE, kwargs, inbound, body_encoding=encoding)
        assert envelope_problem(tolerant_loads(raw), inbound, lambda _name: True) is None, encoding


def test_an_envelope_kombu_could_not_decode_is_refused_with_its_reason():
    inbound = get_settings().queue_inbound
    kwargs = message("u-1", "m-1", "hello")
    _, raw = raw_envelope(TaskName.INGEST_MESSAGE, kwargs, inbound, body_encoding="gzip")
    assert "unknown body encoding 'gzip'" in (envelope_problem(tolerant_loads(raw), inbound, lambda _n: True) or "")
    item = json.loads(raw_envelope(TaskName.INGEST_MESSAGE, kwargs, inbound)[1])
    for change, reason in (
        ({"content-type": "application/x-python-serialize"}, "is not application/json"),
        ({"content-encoding": "latin-1"}, "content encoding 'latin-1' is not utf-8"),
        ({"body": "A" * 1_000_004}, "the limit is 1000000"),
    ):
        assert reason in (envelope_problem({**item, **change}, inbound, lambda _n: True) or ""), change


def test_every_dead_letter_reason_written_today_maps_to_a_documented_code():
    from adapters.dead_letters import ERASED_USER_REASON
    from workers.events import FORGOTTEN_REASON

    cases = {
        FORGOTTEN_REASON: "user_erased",
        ERASED_USER_REASON: "user_erased",
        "malformed envelope on queue 'q': unknown task 'x.y'": "unknown_task",
        "malformed envelope on queue 'q': task ella.reflect belongs on queue 'c', not 'q'": "wrong_queue",
        "malformed envelope on queue 'q': header 'retries' is not a non-negative integer": "malformed_envelope",
        "malformed payload: message_id 'm' was already used by another user": "message_id_taken",
        "malformed payload: request_id 'r' was already used by another request": "request_id_taken",
        "malformed payload: text: field required": "malformed_payload",
        "redelivery cap: delivered 4 times (cap 3) without finishing; its worker was lost each time": "worker_lost",
        "model unavailable after 2 retries: 529": "model_unavailable",
        "model refused the request (not retried): 400": "model_refused",
        "never answered after 3 re-sends; see earlier dead letters and worker logs": "gave_up",
        "failed: TimeLimitExceeded: TimeLimitExceeded(6,)": "time_limit",
        "failed: OperationalError: (psycopg.OperationalError) gone": "storage_unavailable",
        "failed: KeyError: 'x'": "failed",
    }
    assert {reason: rejections.code_for(reason) for reason in cases} == cases
    assert set(cases.values()) <= set(rejections.CODES)
    assert set(rejections.GATEWAY_TASKS) <= {str(t) for t in TaskName}
    # the fallback reply answered the message; a malformed memory request with readable ids has its answer
    fallback = "model refused the live reply (not retried; the fallback was sent): 400"
    assert rejections.answered_elsewhere(TaskName.INGEST_MESSAGE, fallback, {})
    ids = {"user_id": "u-1", "request_id": "r-1"}
    assert rejections.answered_elsewhere(TaskName.EXPORT_USER, "malformed payload: item: bad", ids)
    assert not rejections.answered_elsewhere(TaskName.EXPORT_USER, "malformed payload: item: bad", {})
    assert not rejections.answered_elsewhere(TaskName.EXPORT_USER, "redelivery cap: delivered 4 times", ids)


def test_a_dead_letter_is_published_once_and_its_text_never_quotes_the_payload(migrated_db, outbox):
    from adapters.dead_letters import record_dead_letter

    user, words = f"dl-{hex8()}", f"my secret {hex8()}"
    kwargs = {**message(user, f"m-{hex8()}", words), "sent_at": words}
    reason = f"malformed payload: sent_at: must be an ISO-8601 date and time with a zone offset, got {words!r}"
    for _delivery in range(2):  # a redelivery of the same task
        record_dead_letter(TaskName.INGEST_MESSAGE, "task-1", reason, [], kwargs)
    [entry] = [e for e in entries(outbox, "rejected") if e.user_id == user]
    assert (entry.task, entry.code, entry.user_id, entry.in_reply_to) == (
        TaskName.INGEST_MESSAGE, "malformed_payload", user, kwargs["message_id"])  # fmt: skip
    assert (entry.route, entry.category) == ("", "")
    assert words not in json.dumps(entry.to_fields())
    record_dead_letter(TaskName.PERCEIVE, "task-2", "failed: KeyError: 'x'", [], {"user_id": user})
    assert len([e for e in entries(outbox, "rejected") if e.user_id == user]) == 1  # an internal task answers nobody


def test_with_redis_down_the_dead_letter_is_still_recorded_and_the_log_says_so(migrated_db, monkeypatch, caplog):
    from adapters import dead_letters

    def down() -> Any:
        raise redis.ConnectionError("Redis is down")

    monkeypatch.setattr(dead_letters, "get_redis", down)
    with caplog.at_level(logging.WARNING, logger="adapters.dead_letters"):
        recorded = dead_letters.record_dead_letter(
            TaskName.UPDATE_PROFILE, "task-3", "malformed payload: timezone: unknown", [], {"user_id": "u-3"}
        )
    with session_scope() as session:
        assert session.get(DeadLetter, recorded.id) is not None
    assert "rejected entry of ella.update_profile (malformed_payload) was not published" in caplog.text


def refuse(raw: str, queue: str) -> str:
    """What a worker does with a raw queue item it cannot run (``workers.envelopes._checked_deliver``), called
    directly: the check's reason, after the item was dead-lettered and answered."""
    from workers.envelopes import dead_letter_envelope

    decoded = tolerant_loads(raw)
    problem = envelope_problem(decoded, queue, lambda name: name in set(TaskName))
    assert problem is not None, raw[:200]
    dead_letter_envelope(decoded, queue, problem)
    return problem


def test_every_item_a_worker_cannot_accept_is_on_the_stream_with_its_task_id_and_request_ids(migrated_db, outbox):
    """Issue 36.1: a refusal with an empty ``in_reply_to`` and no task id could not be traced to the send that
    caused it, and an item that is not JSON, or a JSON list, got only a dead letter. Now each refused item is
    one ``rejected`` entry: ``task_id`` whenever the headers can be read, ``in_reply_to`` and ``user_id``
    whenever the body names them, whatever else is broken in it."""
    inbound, cognition = get_settings().queue_inbound, get_settings().queue_cognition
    user = f"tr-{hex8()}"
    cases: dict[str, tuple[str, str, str, str]] = {}  # case -> (queue, task id, raw item, message id or "")

    def case(name: str, queue: str, change: Any = None, *, readable: bool = True, **options: Any) -> None:
        mid = f"m-{name}-{hex8()}"
        task_id, raw = raw_envelope(TaskName.INGEST_MESSAGE, message(user, mid, "words"), queue, **options)
        item = change(json.loads(raw)) if change else json.loads(raw)
        cases[name] = (queue, task_id, raw if name == "torn" else json.dumps(item), mid if readable else "")

    def marked_base64(item: dict[str, Any]) -> dict[str, Any]:
        return {**item, "properties": {**item["properties"], "body_encoding": "base64"}}

    case("content_type", inbound, lambda item: {**item, "content-type": "application/x-python-serialize"})
    case("not_base64", inbound, marked_base64, body_encoding="utf-8")  # plain JSON text marked base64
    case("not_json_body", inbound, lambda item: {**item, "body": base64.b64encode(b"\xff not json").decode()},
         readable=False)  # fmt: skip
    case("wrong_queue", cognition)
    case("torn", inbound)
    queue, task_id, raw, mid = cases["torn"]
    cases["torn"] = (queue, task_id, raw[:-40], mid)  # cut short: not JSON; its headers and body are scanned
    shape_mid = f"m-shape-{hex8()}"  # the kwargs object as the whole body: not [args, kwargs, embed]
    task_id, raw = raw_envelope(TaskName.INGEST_MESSAGE, None, inbound, body=message(user, shape_mid, "words"))
    cases["kwargs_as_body"] = (inbound, task_id, raw, shape_mid)

    seen: list[OutboxEntry] = []
    for name, (queue, task_id, raw, mid) in cases.items():
        refuse(raw, queue)
        entry = one(outbox, "rejected", f"the {name} entry", task_id=task_id)
        seen.append(entry)
        assert (entry.user_id, entry.in_reply_to) == ((user, mid) if mid else ("", "")), (name, entry)
        code = "wrong_queue" if name == "wrong_queue" else "malformed_envelope"
        assert (entry.task, entry.code) == (TaskName.INGEST_MESSAGE, code), (name, entry)

    # No headers to read: an item that is not JSON at all, and a body pushed as the whole item (a JSON list).
    def anonymous() -> list[OutboxEntry]:
        return [e for e in entries(outbox, "rejected") if e.in_reply_to == "" and e.task_id == ""]

    before = anonymous()
    refuse(f"this is not json {hex8()} {{", inbound)
    [new] = [e for e in anonymous() if e not in before]
    assert (new.code, new.user_id, new.task) == ("malformed_envelope", "", "")
    list_mid = f"m-list-{hex8()}"
    refuse(json.dumps([[], message(user, list_mid, "words"), None]), inbound)
    listed = one(outbox, "rejected", "the JSON list's entry", in_reply_to=list_mid)
    assert (listed.user_id, listed.task_id, listed.task, listed.code) == (user, "", "", "malformed_envelope")
    # (this test's own entries: the stream holds every earlier test's of this process too)
    assert "words" not in json.dumps([e.to_fields() for e in (*seen, new, listed)])
    schema = json.loads((Path(__file__).parents[1] / "docs" / "schemas" / "outbox_entry.schema.json").read_text())
    for entry in (*seen, new, listed):  # the spec's schema holds for them all, an empty task included
        Draft202012Validator(schema).validate(entry.to_fields())


def test_a_task_sent_with_positional_arguments_is_refused_with_its_task_id_and_the_ids_it_holds(migrated_db, outbox):
    """A client that passes the kwargs object as one positional argument (``applyAsync([payload])``) is refused,
    and told so on the stream under its task id and, read from that object, its message id and user."""
    from tasks.ingest import ingest_message

    user, mid, task_id = f"pa-{hex8()}", f"m-pa-{hex8()}", str(uuid.uuid4())
    ingest_message.apply(args=[message(user, mid, "words")], task_id=task_id)
    entry = one(outbox, "rejected", "the positional call's entry", task_id=task_id)
    assert (entry.code, entry.user_id, entry.in_reply_to) == ("malformed_payload", user, mid)
    other_id = str(uuid.uuid4())
    ingest_message.apply(args=["u", "m", "words"], task_id=other_id)  # nothing names the request: the task id does
    bare = one(outbox, "rejected", "the bare positional call's entry", task_id=other_id)
    assert (bare.code, bare.user_id, bare.in_reply_to) == ("malformed_payload", "", "")


# --- through a worker -------------------------------------------------------------------------------------------


@pytest.mark.integration
def test_each_refusal_a_gateway_can_cause_is_one_rejected_entry_on_the_stream(start_worker, outbox, redis_client):
    from gateway.client import enqueue_message, export_user
    from workers.app import app

    settings = get_settings()
    inbound, cognition = settings.queue_inbound, settings.queue_cognition
    start_worker()
    user, other, canary = f"fc-{hex8()}", f"fc-{hex8()}", f"canary words {hex8()}"
    ids = {name: f"m-{name}-{hex8()}" for name in ("envelope", "unknown", "queue", "payload", "first")}

    _, bad_header = raw_envelope(
        TaskName.INGEST_MESSAGE, message(user, ids["envelope"], canary), inbound, headers={"retries": "many"}
    )
    _, unknown = raw_envelope("ella.no_such_task", message(user, ids["unknown"], canary), inbound)
    _, wrong_queue = raw_envelope(TaskName.INGEST_MESSAGE, message(user, ids["queue"], canary), cognition)
    for queue, item in ((inbound, bad_header), (inbound, unknown), (cognition, wrong_queue)):
        redis_client.lpush(queue, item)
    no_text = {k: v for k, v in message(user, ids["payload"], canary).items() if k != "text"}
    app.send_task(TaskName.INGEST_MESSAGE, kwargs=no_text, queue=inbound, kwargsrepr="{}")
    enqueue_message(**message(user, ids["first"], canary))
    one(outbox, "reply", "the first message's reply", in_reply_to=ids["first"])
    enqueue_message(**message(other, ids["first"], canary))  # another user, the same message_id
    request_id = f"r-{hex8()}"
    export_user(request_id=request_id, user_id=user)  # answered: the user exists
    one(outbox, "answer", "the export's answer", in_reply_to=request_id)
    # then a malformed request under the same id (not concurrently: tasks/memory_requests.py races on the id)
    app.send_task(
        TaskName.EXPORT_USER,
        kwargs={"request_id": request_id, "user_id": user, "item": 7},
        queue=inbound,
        kwargsrepr="{}",
    )
    expected = {
        ids["envelope"]: (TaskName.INGEST_MESSAGE, "malformed_envelope", user),
        ids["unknown"]: ("ella.no_such_task", "unknown_task", user),
        ids["queue"]: (TaskName.INGEST_MESSAGE, "wrong_queue", user),
        ids["payload"]: (TaskName.INGEST_MESSAGE, "malformed_payload", user),
        ids["first"]: (TaskName.INGEST_MESSAGE, "message_id_taken", other),
    }
    for reply_to, (task, code, user_id) in expected.items():
        entry = one(outbox, "rejected", f"the {code} entry", in_reply_to=reply_to)
        assert (entry.task, entry.code, entry.user_id) == (task, code, user_id)
        assert (entry.text, entry.route, entry.category) == (rejections.text_for(code), "", "")

    def malformed_request_dead_lettered() -> bool:
        with session_scope() as session:  # its request_id is in the message_id column
            return session.scalar(select(DeadLetter.id).where(DeadLetter.message_id == request_id)) is not None

    wait_for(malformed_request_dead_lettered, 60, what="the malformed request's dead letter")
    answers = [e for e in outbox() if e.in_reply_to == request_id]
    assert [e.kind for e in answers] == ["answer"]  # its answer is its channel: no rejected entry besides
    with session_scope() as session:
        rows = {
            row.message_id: (row.user_id, row.reason)
            for row in session.scalars(select(DeadLetter).where(DeadLetter.message_id.in_(list(expected))))
        }
    assert rows[ids["envelope"]][0] == user  # the envelope's dead letter records the ids its body held
    assert "header 'retries'" in rows[ids["envelope"]][1]
    assert canary not in json.dumps([e.to_fields() for e in entries(outbox, "rejected")])


@pytest.mark.integration
def test_profile_and_erasure_acks_and_an_erased_users_late_message_rejected_without_their_id(
    start_worker, outbox, redis_client
):
    from gateway.client import enqueue_message, forget_user, update_profile

    start_worker()
    user = f"ack-{hex8()}"
    profile = {"user_id": user, "updated_at": "2026-11-30T12:00:00+00:00", "timezone": "Europe/London",
               "locale": "en_GB", "is_minor": False, "do_not_disturb": None, "active_hours": "09:00-21:00",
               "notifications": True}  # fmt: skip
    first = update_profile(**profile)
    applied = one(outbox, "ack", "the applied ack", outbox_id=f"ack:ella.update_profile:{first}")
    assert (applied.task, applied.code, applied.user_id, applied.in_reply_to) == (
        TaskName.UPDATE_PROFILE, "applied", user, profile["updated_at"])  # fmt: skip
    second = update_profile(**profile)
    stale = one(outbox, "ack", "the stale ack", outbox_id=f"ack:ella.update_profile:{second}")
    assert (stale.code, stale.in_reply_to) == ("stale", profile["updated_at"])

    task_id = forget_user(user_id=user)
    key = tombstone_key(user, get_settings().forget_hmac_key.get_secret_value())[:12]
    erased = one(outbox, "ack", "the erased ack", outbox_id=f"ack:ella.forget_user:{task_id}:erased")
    assert (erased.task, erased.code, erased.user_id, erased.in_reply_to) == (TaskName.FORGET_USER, "erased", "", key)
    wait_for(lambda: not [e for e in outbox() if e.user_id == user], 30, what="the profile acks erased")

    late = f"m-late-{hex8()}"
    enqueue_message(**message(user, late, f"late words {hex8()}"))
    refused = one(outbox, "rejected", "the late message's rejected entry", in_reply_to=late)
    assert (refused.code, refused.user_id, refused.task) == ("user_erased", "", TaskName.INGEST_MESSAGE)

    done = wait_for(  # the second pass runs ELLA_TASK_TIME_LIMIT_S (6 s here) after the first
        lambda: [
            e for e in entries(outbox, "ack") if e.outbox_id == f"ack:ella.forget_user:{task_id}:second_pass_done"
        ],
        60,
        what="the second pass's ack",
    )
    assert isinstance(done, list) and len(done) == 1
    assert (done[0].code, done[0].user_id, done[0].in_reply_to) == ("second_pass_done", "", key)
    assert len([e for e in entries(outbox, "ack") if e.in_reply_to == key]) == 2  # once each
    assert user not in json.dumps([e.to_fields() for e in outbox()])  # no entry names the erased user


@pytest.mark.integration
def test_a_js_clients_envelopes_are_answered_and_no_log_line_names_the_user_or_their_words(
    start_worker, outbox, redis_client
):
    settings = get_settings()
    inbound = settings.queue_inbound
    start_worker()
    user, canary = f"js-user-{uuid.uuid4().hex}", f"js canary {uuid.uuid4().hex}"
    plain, encoded, malformed = (f"m-js-{name}-{hex8()}" for name in ("plain", "b64", "bad"))
    _, base64_item = raw_envelope(TaskName.INGEST_MESSAGE, message(user, encoded, canary), inbound)
    _, plain_item = raw_envelope(TaskName.INGEST_MESSAGE, message(user, plain, canary), inbound, body_encoding="utf-8")
    bad = {**message(user, malformed, canary), "conversation_id": 12}
    _, bad_item = raw_envelope(TaskName.INGEST_MESSAGE, bad, inbound, body_encoding=None)
    for item in (base64_item, plain_item, bad_item):
        redis_client.lpush(inbound, item)

    for message_id in (encoded, plain):
        reply = one(outbox, "reply", f"the reply to {message_id}", in_reply_to=message_id)
        assert reply.user_id == user
    assert one(outbox, "rejected", "the malformed one", in_reply_to=malformed).code == "malformed_payload"

    folder = settings.var_path / "log"

    def finished() -> bool:  # the turns' perceive and extract_facts have run and logged
        text = "".join(path.read_text(errors="replace") for path in folder.glob("*.log*"))
        return text.count("ella.extract_facts[") >= 4 and not any(redis_client.llen(q) for q in settings.queues)

    wait_for(finished, 60, what="the turns' memory and ledger tasks")
    lines = [line for path in sorted(folder.glob("*.log*")) for line in path.read_text(errors="replace").splitlines()]
    assert any("ella.ingest_message" in line and "received" in line for line in lines)
    assert [line for line in lines if canary in line or user in line] == []


@pytest.mark.integration
def test_a_model_that_refuses_an_ingest_leaves_its_fallback_reply_as_the_one_entry(start_worker, outbox):
    """The model's refusal is dead-lettered for the operator, but the user got the fallback reply: that reply is
    the message's one entry, with no rejected entry after it (``ella.rejections``: answered elsewhere)."""
    from gateway.client import enqueue_message
    from tests.support.fake_anthropic import FakeAnthropic

    with FakeAnthropic() as fake:
        start_worker(env={"ELLA_LLM_PROVIDER": "anthropic", "ANTHROPIC_API_KEY": "test-key",
                          "ANTHROPIC_BASE_URL": fake.base_url, "ELLA_LLM_SDK_MAX_RETRIES": "0"})  # fmt: skip
        fake.enqueue(status=400)
        user, mid = f"mr-{hex8()}", f"m-mr-{hex8()}"
        enqueue_message(**message(user, mid, "I have a job interview on Thursday"))
        reply = one(outbox, "reply", "the fallback reply", in_reply_to=mid)
        assert reply.route == "fallback"

        def refused() -> bool:
            with session_scope() as session:
                rows = session.scalars(select(DeadLetter).where(DeadLetter.message_id == mid)).all()
            return any("model refused the live reply" in row.reason for row in rows)

        wait_for(refused, 30, what="the refusal's dead letter")
    assert [e for e in outbox() if e.in_reply_to == mid and e.kind != "reply"] == []


def test_a_message_the_inbox_gave_up_on_and_a_failed_erasure_are_rejected_without_naming_an_erased_user(
    migrated_db, outbox
):
    from adapters.dead_letters import record_dead_letter

    user, mid = f"gu-{hex8()}", f"m-gu-{hex8()}"
    reason = "never answered after 3 re-sends; see earlier dead letters and worker logs"  # tasks/inbox.py
    record_dead_letter(TaskName.INGEST_MESSAGE, None, reason, [], message(user, mid, "words"))
    gave_up = one(outbox, "rejected", "the gave_up entry", in_reply_to=mid)
    assert (gave_up.code, gave_up.user_id) == ("gave_up", user)

    task_id = str(uuid.uuid4())
    record_dead_letter(TaskName.FORGET_USER, task_id, "failed: KeyError: 'x'", [], {"user": user})
    failed = one(outbox, "rejected", "the failed erasure's entry", in_reply_to=task_id)
    assert (failed.code, failed.user_id, failed.task) == ("failed", "", TaskName.FORGET_USER)
    assert user not in json.dumps(failed.to_fields())

"""Raw messages a worker cannot run never crash it and are never lost: each is a dead letter with its reason.

The messages are pushed onto the queues as raw Redis list items, as a buggy client or a fuzzer would, past
Celery's client. Then a well-formed task must still run on the same worker.
"""

from __future__ import annotations

import base64
import json
import uuid
from typing import Any

import pytest
from sqlalchemy import select

from adapters.db import session_scope
from adapters.settings import get_settings
from models import DeadLetter
from tests.conftest import wait_for
from workers.envelopes import envelope_problem
from workers.routing import TaskName, queue_for


def headers(task: str, **changes: Any) -> dict[str, Any]:
    task_id = f"raw-{uuid.uuid4().hex[:10]}"
    base: dict[str, Any] = {
        "lang": "py",
        "task": task,
        "id": task_id,
        "shadow": None,
        "eta": None,
        "expires": None,
        "group": None,
        "group_index": None,
        "retries": 0,
        "timelimit": [None, None],
        "root_id": task_id,
        "parent_id": None,
        "argsrepr": "()",
        "kwargsrepr": "{}",
        "origin": "fuzzer",
        "ignore_result": True,
    }
    return {**base, **changes}


def envelope(
    queue: str,
    task: str = TaskName.CLOSE_DUE_CONVERSATIONS,
    body: Any = ([], {}, {"callbacks": None, "errbacks": None, "chain": None, "chord": None}),
    raw_body: str | None = None,
    header_changes: dict[str, Any] | None = None,
    whole_headers: Any = None,
    body_encoding: str = "base64",
    content_type: str = "application/json",
) -> str:
    encoded = raw_body if raw_body is not None else base64.b64encode(json.dumps(body).encode()).decode()
    return json.dumps(
        {
            "body": encoded,
            "content-encoding": "utf-8",
            "content-type": content_type,
            "headers": whole_headers if whole_headers is not None else headers(task, **(header_changes or {})),
            "properties": {
                "correlation_id": uuid.uuid4().hex,
                "reply_to": "",
                "delivery_mode": 2,
                "delivery_info": {"exchange": "", "routing_key": queue},
                "priority": 0,
                "body_encoding": body_encoding,
                "delivery_tag": uuid.uuid4().hex,
            },
        }
    )


def malformed(settings: Any) -> list[tuple[str, str, str]]:
    """(queue, raw item, expected reason) for every kind of malformed message the fault runs found."""
    cognition, inbound = settings.queue_cognition, settings.queue_inbound
    not_base64 = "!!! not base64 !!!"
    not_json = base64.b64encode(b"\xff\xfe not json").decode()
    return [
        (cognition, "this is not json {", "envelope is not JSON"),
        (cognition, "[1, 2, 3]", "envelope is a JSON list"),
        (cognition, envelope(cognition, raw_body=not_base64), "body is not valid base64"),
        (cognition, envelope(cognition, raw_body=not_json), "body is not JSON"),
        (cognition, envelope(cognition, body={"text": "hello"}), "not [args, kwargs, embed]"),
        (cognition, envelope(cognition, body=[1, 2]), "not [args, kwargs, embed]"),
        (cognition, envelope(cognition, body="just a string"), "not [args, kwargs, embed]"),
        (cognition, envelope(cognition, task="ella.no_such_task"), "unknown task 'ella.no_such_task'"),
        (inbound, envelope(inbound, task=TaskName.REFLECT), f"belongs on queue {cognition!r}"),
        (cognition, envelope(cognition, header_changes={"retries": "many"}), "header 'retries'"),
        (cognition, envelope(cognition, header_changes={"eta": "yesterday"}), "header 'eta'"),
        (cognition, envelope(cognition, header_changes={"timelimit": "soon"}), "header 'timelimit'"),
        (cognition, envelope(cognition, header_changes={"id": None}), "header 'id'"),
        (cognition, envelope(cognition, header_changes={"argsrepr": 7}), "header 'argsrepr'"),
        (cognition, envelope(cognition, whole_headers=["task"]), "no 'headers' object"),
        (cognition, envelope(cognition, body_encoding="gzip"), "unknown body encoding 'gzip'"),
        (cognition, envelope(cognition, content_type="application/x-yaml"), "is not application/json"),
    ]


def test_a_well_formed_envelope_passes_the_check():
    settings = get_settings()
    queue = queue_for(TaskName.CLOSE_DUE_CONVERSATIONS, settings)
    assert envelope_problem(json.loads(envelope(queue)), queue, lambda _name: True) is None


def test_an_envelope_passes_whatever_language_its_client_names():
    """celery-node sends ``lang`` "js"; other clients another value or none: the check does not read it."""
    settings = get_settings()
    queue = queue_for(TaskName.CLOSE_DUE_CONVERSATIONS, settings)
    for lang in ("js", "go", None):
        raw = json.loads(envelope(queue, header_changes={"lang": lang}))
        assert envelope_problem(raw, queue, lambda _name: True) is None, lang
    del raw["headers"]["lang"]
    assert envelope_problem(raw, queue, lambda _name: True) is None


@pytest.mark.parametrize("index", range(17))
def test_each_malformed_envelope_is_refused_with_a_precise_reason(index):
    from workers.envelopes import UndecodableEnvelope, tolerant_loads

    queue, raw, reason = malformed(get_settings())[index]
    decoded = tolerant_loads(raw)
    problem = envelope_problem(decoded, queue, lambda name: name.startswith("ella.") and name != "ella.no_such_task")
    assert problem is not None and reason in problem
    assert isinstance(decoded, UndecodableEnvelope) == (index == 0)


@pytest.mark.integration
def test_malformed_envelopes_become_dead_letters_and_the_worker_keeps_running(start_worker, redis_client):
    settings = get_settings()
    worker = start_worker(concurrency=1)
    cases = malformed(settings)
    for queue, raw, _reason in cases:
        redis_client.lpush(queue, raw)

    def rows() -> list[DeadLetter]:
        with session_scope() as session:
            return list(session.scalars(select(DeadLetter).order_by(DeadLetter.id)))

    wait_for(lambda: len(rows()) >= len(cases), 90, what=f"{len(cases)} dead letters")
    found = rows()
    assert len(found) == len(cases)
    reasons = [row.reason for row in found]
    for queue, _raw, reason in cases:
        assert any(reason in r and repr(queue) in r for r in reasons), f"no dead letter says {reason!r}: {reasons}"
    assert all("raw_envelope" in row.payload for row in found)
    assert worker.proc is not None and worker.proc.poll() is None, worker.log_tail()
    for queue in settings.queues:
        assert redis_client.llen(queue) == 0  # consumed, not requeued

    # The same worker still runs a well-formed task.
    from workers.app import app

    result = app.send_task(
        TaskName.CLOSE_DUE_CONVERSATIONS,
        queue=queue_for(TaskName.CLOSE_DUE_CONVERSATIONS, settings),
        ignore_result=False,
    )
    assert result.get(timeout=60) == 0
    assert worker.proc.poll() is None


def deep_body_envelope(queue: str, depth: int = 100_000) -> str:
    """A task message whose body is valid JSON nested ``depth`` deep inside its kwargs, naming its request."""
    nested = "[" * depth + "]" * depth
    body = '[[], {"user_id": "u-deep", "message_id": "m-deep", "text": ' + nested + "}, null]"
    return envelope(queue, raw_body=base64.b64encode(body.encode()).decode())


def deep_headers_envelope(queue: str, depth: int = 100_000) -> str:
    """A task message whose envelope itself (a header's value) nests ``depth`` deep."""
    shallow = envelope(queue, header_changes={"stamps": "DEEP"})
    return shallow.replace('"DEEP"', "[" * depth + "]" * depth)


def test_a_body_nested_deeper_than_the_limit_is_refused_with_its_depth_and_keeps_its_request_ids():
    """Issue 24.2: ``json.loads`` of a body nested 100,000 deep raised RecursionError in the worker's poll loop."""
    from workers.envelopes import MAX_NESTING, request_ids, tolerant_loads

    queue = get_settings().queue_cognition
    decoded = tolerant_loads(deep_body_envelope(queue))
    problem = envelope_problem(decoded, queue, lambda _name: True)
    assert problem == f"body nested deeper than {MAX_NESTING} levels (100002)"
    assert request_ids(decoded) == {"user_id": "u-deep", "message_id": "m-deep"}


def test_an_envelope_nested_deeper_than_the_limit_is_refused_before_kombu_parses_it():
    from workers.envelopes import MAX_NESTING, UndecodableEnvelope, tolerant_loads

    queue = get_settings().queue_cognition
    decoded = tolerant_loads(deep_headers_envelope(queue))
    assert isinstance(decoded, UndecodableEnvelope)
    assert envelope_problem(decoded, queue, lambda _name: True) == (
        f"envelope nested deeper than {MAX_NESTING} levels (100002)"
    )


def test_a_body_just_within_the_nesting_limit_passes():
    from workers.envelopes import MAX_NESTING, tolerant_loads

    queue = get_settings().queue_cognition
    inner = "[" * (MAX_NESTING - 2) + "]" * (MAX_NESTING - 2)  # the body's list and kwargs object are 2 levels
    body = '[[], {"text": ' + inner + "}, null]"
    raw = envelope(queue, raw_body=base64.b64encode(body.encode()).decode())
    assert envelope_problem(tolerant_loads(raw), queue, lambda _name: True) is None


@pytest.mark.integration
def test_deeply_nested_envelopes_become_dead_letters_and_the_worker_keeps_running(start_worker, redis_client):
    """Issue 24.2: one such message made the worker exit, and it was lost with no dead letter."""
    settings = get_settings()
    worker = start_worker(concurrency=1)
    queue = settings.queue_cognition
    redis_client.lpush(queue, deep_body_envelope(queue))
    redis_client.lpush(queue, deep_headers_envelope(queue))

    def rows() -> list[DeadLetter]:
        with session_scope() as session:
            return list(session.scalars(select(DeadLetter).order_by(DeadLetter.id)))

    wait_for(lambda: len(rows()) >= 2, 90, what="2 dead letters")
    by_reason = {row.reason: row for row in rows()}
    body_row = next(row for reason, row in by_reason.items() if "body nested deeper than" in reason)
    # The payload is JSON text (cut to its head, the raw envelope being long); the ids come first in it.
    assert '"user_id": "u-deep"' in body_row.payload and '"message_id": "m-deep"' in body_row.payload
    assert any("envelope nested deeper than" in reason for reason in by_reason)
    assert worker.proc is not None and worker.proc.poll() is None, worker.log_tail()
    assert redis_client.llen(queue) == 0

    from workers.app import app

    result = app.send_task(TaskName.CLOSE_DUE_CONVERSATIONS, queue=queue, ignore_result=False)
    assert result.get(timeout=60) == 0
    assert worker.proc.poll() is None

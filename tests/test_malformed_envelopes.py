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

from models import DeadLetter
from tests.conftest import wait_for
from workers.db import session_scope
from workers.envelopes import envelope_problem
from workers.routing import TaskName, queue_for
from workers.settings import get_settings


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

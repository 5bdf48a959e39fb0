"""The wire spec (docs/gateway.md, docs/schemas/) agrees with the code: the schemas are valid JSON Schema, the
kwargs schemas are the ones the tasks validate, the outbox entry schema names the entry's fields, and what the
Python client puts on the queue and what a real worker puts on the stream validate against them."""

from __future__ import annotations

import base64
import json
import uuid
from datetime import UTC, datetime
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from ella import rejections
from ella.contract import IngestPayload, MemoryPageRequest, MemoryRequest, OutboxEntry, ProfilePayload
from tests.conftest import wait_for

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = ROOT / "docs" / "schemas"
# What a gateway sends: the tasks the failure channel answers (beat's sweeps share the inbound queue, not the spec).
GATEWAY_TASKS = sorted(rejections.GATEWAY_TASKS)


def schema(name: str) -> dict:
    return json.loads((SCHEMAS / name).read_text())


@pytest.mark.domain
def test_every_schema_file_is_valid_json_schema():
    files = sorted(SCHEMAS.glob("*.schema.json"))
    assert len(files) >= 6
    for path in files:
        Draft202012Validator.check_schema(json.loads(path.read_text()))


@pytest.mark.domain
@pytest.mark.parametrize(
    ("name", "model"),
    [
        ("ingest_message.kwargs.schema.json", IngestPayload),
        ("update_profile.kwargs.schema.json", ProfilePayload),
        ("memory_request.kwargs.schema.json", MemoryRequest),
        ("memory_page.kwargs.schema.json", MemoryPageRequest),
    ],
)
def test_the_kwargs_schemas_are_the_ones_the_tasks_validate(name, model):
    assert schema(name) == model.model_json_schema()


@pytest.mark.domain
def test_the_outbox_entry_schema_names_exactly_the_fields_an_entry_has():
    wire = {name for name, field in OutboxEntry.model_fields.items() if not field.exclude}
    assert set(schema("outbox_entry.schema.json")["properties"]) == wire


@pytest.mark.domain
def test_the_spec_names_every_gateway_task_and_every_schema_file():
    spec = (ROOT / "docs" / "gateway.md").read_text()
    for task in GATEWAY_TASKS:
        assert f"`{task}`" in spec, task
    for path in SCHEMAS.glob("*.schema.json"):
        assert f"schemas/{path.name}" in spec, path.name


@pytest.mark.integration
def test_the_python_clients_envelope_and_kwargs_validate_against_the_spec(migrated_db, redis_client):
    from adapters.redis_conn import get_redis
    from adapters.settings import get_settings
    from gateway.client import enqueue_message

    queue = get_settings().queue_inbound
    message_id = f"spec-{uuid.uuid4().hex[:8]}"
    enqueue_message(message_id=message_id, user_id="spec-u", text="hello", sent_at=datetime.now(UTC))
    raw = next(item for item in get_redis().lrange(queue, 0, -1) if message_id in base64.b64decode(
        json.loads(item)["body"]).decode())  # fmt: skip
    get_redis().lrem(queue, 1, raw)  # no worker runs here: take it back
    envelope = json.loads(raw)
    Draft202012Validator(schema("envelope.schema.json")).validate(envelope)
    _args, kwargs, _embed = json.loads(base64.b64decode(envelope["body"]))
    Draft202012Validator(schema("ingest_message.kwargs.schema.json")).validate(kwargs)


@pytest.mark.integration
def test_what_a_worker_puts_on_the_stream_validates_against_the_entry_schema(start_worker, outbox):
    from gateway.client import enqueue_message, forget_memory

    start_worker()
    user, message_id, request_id = f"spec-{uuid.uuid4().hex[:8]}", f"m-{uuid.uuid4().hex[:8]}", f"r-{uuid.uuid4().hex}"
    enqueue_message(message_id=message_id, user_id=user, text="Hi Ella", sent_at=datetime.now(UTC),
                    conversation_id="gw-conv-7")  # fmt: skip
    wait_for(lambda: any(e.in_reply_to == message_id for e in outbox()), 60, what="the reply")
    forget_memory(request_id=request_id, user_id=user, item="memory:999999")
    wait_for(lambda: any(e.in_reply_to == request_id for e in outbox()), 60, what="the answer")
    validator = Draft202012Validator(schema("outbox_entry.schema.json"))
    mine = [e for e in outbox() if e.user_id == user]
    # and the notices of what perception and extraction stored meanwhile (ids only), whenever they land
    assert {"reply", "answer"} <= {e.kind for e in mine} <= {"reply", "answer", "memory_changed"}
    for entry in mine:
        validator.validate(entry.to_fields())
    reply = next(e for e in mine if e.kind == "reply")
    assert reply.conversation_id == "gw-conv-7" and reply.ella_conversation_id  # the gateway's id, and ours


@pytest.mark.domain
def test_the_spec_lists_exactly_the_rejection_codes_the_code_emits():
    import re

    from ella.rejections import CODES

    spec = (ROOT / "docs" / "gateway.md").read_text()
    section = spec.split("**Error codes of `rejected` entries**", 1)[1].split("\n\n", 2)[1]
    listed = re.findall(r"^\| `([a-z_]+)` \|", section, re.M)
    assert listed[1:] == list(CODES)  # after the header row

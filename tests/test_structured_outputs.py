"""Structured outputs on the Anthropic path (issue 26): every kind's request carries its JSON schema as
``output_config.format``, live and in Message Batches, through the real SDK against the loopback API.

What is pinned: the schema of each kind is one the API accepts (the fake checks it the way the API's docs say)
and describes the kind's own output; the setting off sends none; under the schema the broken-JSON faults do
not happen, while what the API still lets through (an answer cut off at max_tokens, a refusal, failure text in
a free-text field, a value outside a range the schema cannot state) still goes through repair or the fail-safe.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest

from adapters.settings import Settings
from ella.llm.anthropic_provider import AnthropicProvider, batch_entry, request_params
from ella.llm.kinds import KINDS
from ella.llm.port import CallRecord, ModelPort
from ella.llm.prompts import template
from ella.llm.schemas import output_format, schema_for
from tests.support.fake_anthropic import FAILURE_TEXT, TASK_KIND, FakeAnthropic, prompt_texts, schema_problem

pytestmark = pytest.mark.domain  # the fast lane (make test-fast): no database, no Redis

TIERS = Settings().model_tiers


def variables_for(kind: str) -> dict[str, Any]:
    """A value for every variable the kind's template names (any text renders; the fake answers by kind)."""
    names: set[str] = set()
    for part in template(kind):
        names |= set(part.get_identifiers())
    return {name: f"{name} of the test" for name in names - {"example"}}


def kind_of(body: dict[str, Any]) -> str:
    for text in prompt_texts(body):
        if match := TASK_KIND.search(text):
            return match.group(1)
    return ""


@pytest.fixture
def fake() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as server:
        yield server


def provider(fake: FakeAnthropic, **options: Any) -> AnthropicProvider:
    return AnthropicProvider("k", fake.base_url, **{"timeout": 5.0, "max_retries": 0, **options})


def port_on(
    fake: FakeAnthropic, records: list[CallRecord] | None = None, max_repairs: int = 2, **options: Any
) -> ModelPort:
    sink = records.append if records is not None else None
    return ModelPort(provider(fake, **options), TIERS, max_repairs=max_repairs, record=sink)


def objects(node: Any) -> Iterator[dict[str, Any]]:
    """Every object schema in ``node``, definitions included."""
    if isinstance(node, dict):
        if node.get("type") == "object":
            yield node
        for value in node.values():
            yield from objects(value)
    elif isinstance(node, list):
        for value in node:
            yield from objects(value)


# -- the schemas -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_each_kinds_schema_is_one_the_api_accepts_and_describes_the_kinds_output(kind: str) -> None:
    schema = schema_for(kind)
    assert schema_problem(schema) is None
    assert all(node.get("additionalProperties") is False for node in objects(schema))
    model = KINDS[kind]
    assert set(schema["properties"]) == set(model.model_fields)
    assert set(schema.get("required", [])) == {n for n, f in model.model_fields.items() if f.is_required()}
    jsonschema.validate(json.loads(model.example().model_dump_json()), schema)  # the prompt's example fits it
    # What the API cannot constrain is moved into the description, where the model still reads it.
    text = json.dumps(schema)
    assert not any(f'"{k}":' in text for k in ("maxLength", "minLength", "minimum", "maximum", "maxItems"))


def test_the_schema_constrains_what_the_model_can_write() -> None:
    """An unknown key, a missing field or a stage outside the enum do not fit: decoding cannot produce them."""
    arc = schema_for("relationship_arc")
    good = {"stage": "warming", "trajectory": "rising", "mindful_of": "go gently"}
    jsonschema.validate(good, arc)
    for bad in (good | {"mood": "x"}, {"stage": "warming"}, good | {"stage": "romantic"}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, arc)


def test_schema_for_hands_out_a_copy_and_strips_docstrings_not_constraints() -> None:
    schema = schema_for("reply")
    schema["properties"].clear()
    assert schema_for("reply")["properties"]  # the cached schema is untouched
    fact = schema_for("fact_extraction")["$defs"]["ExtractedFact"]
    assert "description" not in fact and "title" not in fact  # a model's docstring is not sent on every call
    assert "maxLength: 120" in fact["properties"]["subject"]["description"]
    assert "title" in schema_for("chapter_distillation")["properties"]  # a property named title stays


# -- what goes on the wire ---------------------------------------------------------------------------------------


def test_every_kinds_live_request_carries_its_schema_and_is_answered(fake: FakeAnthropic) -> None:
    port = port_on(fake)
    for kind in KINDS:
        result = port.call(kind, variables_for(kind), user_id="sam")
        assert not result.failsafe and result.attempts == 1, (kind, result.error)
    bodies = {kind_of(r["body"]): r["body"] for r in fake.message_requests}
    assert set(bodies) == set(KINDS)
    for kind, body in bodies.items():
        assert body["output_config"] == {"format": {"type": "json_schema", "schema": schema_for(kind)}}, kind


def test_every_kinds_batch_entry_carries_its_schema_and_the_batch_succeeds(fake: FakeAnthropic) -> None:
    port = port_on(fake)
    sdk = provider(fake)
    requests = [(f"b-{kind.replace('_', '-')}", port.request(kind, variables_for(kind))) for kind in KINDS]
    batch_id = sdk.submit_batch(requests)
    [submission] = [r for r in fake.requests if r["method"] == "POST" and r["path"] == "/v1/messages/batches"]
    for entry, (_cid, request) in zip(submission["body"]["requests"], requests, strict=True):
        assert entry["params"]["output_config"]["format"] == output_format(request.kind)
    assert sdk.batch_status(batch_id) == "ended"
    results = list(sdk.batch_results(batch_id))
    assert [r.outcome for r in results] == ["succeeded"] * len(KINDS)  # the fake validated every schema
    for result, (_cid, request) in zip(results, requests, strict=True):
        assert result.completion is not None
        jsonschema.validate(json.loads(result.completion.text), schema_for(request.kind))


def test_the_setting_off_sends_no_schema_live_or_in_a_batch(fake: FakeAnthropic) -> None:
    port = port_on(fake, structured_outputs=False)
    assert not port.call("poignancy", variables_for("poignancy")).failsafe
    assert "output_config" not in fake.message_requests[-1]["body"]
    request = port.request("memo", variables_for("memo"))
    assert "output_config" not in batch_entry("m-1", request, structured=False)["params"]
    assert "output_config" not in request_params(request, structured=False)
    sdk = provider(fake, structured_outputs=False)
    sdk.submit_batch([("m-1", request)])
    [submission] = [r for r in fake.requests if r["path"] == "/v1/messages/batches"]
    assert "output_config" not in submission["body"]["requests"][0]["params"]


def test_the_setting_defaults_on_and_reads_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ELLA_ANTHROPIC_STRUCTURED_OUTPUTS", raising=False)
    assert Settings().anthropic_structured_outputs is True
    monkeypatch.setenv("ELLA_ANTHROPIC_STRUCTURED_OUTPUTS", "false")
    assert Settings().anthropic_structured_outputs is False
    assert AnthropicProvider("k", None, timeout=1, max_retries=0).structured_outputs is True


# -- what still goes wrong, and how it is handled --------------------------------------------------------------


def test_an_answer_cut_off_at_max_tokens_is_repaired_and_the_repair_keeps_the_schema(fake: FakeAnthropic) -> None:
    records: list[CallRecord] = []
    fake.enqueue(fault="max_tokens")
    result = port_on(fake, records).call("perception", variables_for("perception"))
    assert not result.failsafe and result.attempts == 2
    assert [r.outcome for r in records] == ["invalid_output", "repaired"]
    assert "invalid JSON" in records[0].error or "no JSON object" in records[0].error
    first, repair = (r["body"] for r in fake.message_requests)
    assert repair["output_config"] == first["output_config"]  # the re-ask is constrained too
    assert repair["messages"][-1]["role"] == "user"  # no prefill: incompatible with a schema, and refused


def test_an_answer_cut_off_every_time_ends_in_the_flagged_failsafe(fake: FakeAnthropic) -> None:
    records: list[CallRecord] = []
    fake.enqueue(fault="max_tokens", times=3)
    variables = variables_for("event_triple")
    result = port_on(fake, records, max_repairs=2).call("event_triple", variables)
    assert result.failsafe and result.attempts == 3
    assert result.value == KINDS["event_triple"].failsafe(variables)
    assert [r.outcome for r in records] == ["invalid_output", "invalid_output", "failsafe"]


def test_a_refusal_is_not_taken_for_an_answer(fake: FakeAnthropic) -> None:
    records: list[CallRecord] = []
    fake.enqueue(fault="refusal")
    result = port_on(fake, records).call("notification_body", variables_for("notification_body"))
    assert not result.failsafe and result.attempts == 2
    assert [r.outcome for r in records] == ["invalid_output", "repaired"]


@pytest.mark.parametrize("fault", ["deep_json", "prose"])
def test_broken_json_happens_without_the_schema_and_not_with_it(fake: FakeAnthropic, fault: str) -> None:
    variables = {"name": "Sam", "message": "I have a cat", "today": "2026-11-30 (Monday)", "known": []}
    on: list[CallRecord] = []
    fake.enqueue(fault=fault)
    assert port_on(fake, on).call("fact_extraction", variables).attempts == 1
    assert [r.outcome for r in on] == ["ok"]
    off: list[CallRecord] = []
    fake.enqueue(fault=fault)
    assert port_on(fake, off, structured_outputs=False).call("fact_extraction", variables).attempts == 2
    assert [r.outcome for r in off] == ["invalid_output", "repaired"]


def test_failure_text_in_a_free_text_field_is_still_caught_under_the_schema(fake: FakeAnthropic) -> None:
    records: list[CallRecord] = []
    fake.enqueue(fault="failure_in_strings")
    result = port_on(fake, records).call("reply", variables_for("reply"))
    assert not result.failsafe and [r.outcome for r in records] == ["invalid_output", "repaired"]
    assert "not an answer" in records[0].error


def test_a_range_the_schema_cannot_state_is_still_validated(fake: FakeAnthropic) -> None:
    """``score`` 1..10 is only words in the sent schema: 11 fits it, so the kind's own check must catch it."""
    jsonschema.validate({"score": 11}, schema_for("poignancy"))
    records: list[CallRecord] = []
    fake.enqueue(text='{"score": 11}')
    result = port_on(fake, records).call("poignancy", variables_for("poignancy"))
    assert not result.failsafe and result.attempts == 2 and 1 <= result.value.score <= 10
    assert "less than or equal to 10" in records[0].error


def test_the_fault_in_a_free_text_field_leaves_the_enums_alone(fake: FakeAnthropic) -> None:
    """Constrained decoding may put failure text in a reply's free words, never in its ``risk``, a fact's tier
    or a date."""
    fake.enqueue(fault="failure_in_strings")
    port_on(fake, max_repairs=0).call("reply", variables_for("reply"))
    answer = json.loads(fake.answers[-1])
    jsonschema.validate(answer, schema_for("reply"))
    assert answer["perception"]["subject"] == FAILURE_TEXT and answer["facts"][0]["subject"] == FAILURE_TEXT
    assert answer["risk"] == "none" and answer["facts"][0]["tier"] == "user_claim"
    assert answer["facts"][0]["event_date"] == "2026-12-03"

"""The fake Anthropic server against the REAL SDK client.

Why: tests of the SDK provider are only worth something if the fake speaks the API the SDK expects. These pin
it -- message and usage shapes, the status -> exception mapping, retry-after, timeouts, the SDK's own retries,
the batch lifecycle and its JSONL results -- and the prompt-cache emulation the provider's cache placement is
measured with.
"""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator

import anthropic
import pytest

from ella.llm.kinds import KINDS
from tests.conftest import wait_for
from tests.support.fake_anthropic import FAILURE_TEXT, PLAIN_ANSWER, FakeAnthropic, estimate_tokens

MODEL = "claude-sonnet-4-6"
LONG = "Ella remembers what matters to the people she talks with. " * 100  # ~1450 tokens: over 1024
SHORT = "Ella is kind."


class _Any:
    def __eq__(self, other: object) -> bool:
        return True


ANY = _Any()


@pytest.fixture
def fake() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as server:
        yield server


def client(fake: FakeAnthropic, **kwargs: object) -> anthropic.Anthropic:
    options: dict[str, object] = {"max_retries": 0, **kwargs}
    return anthropic.Anthropic(base_url=fake.base_url, api_key="test-key", **options)


def ask(api: anthropic.Anthropic, text: str = "Hello", system: object = None) -> anthropic.types.Message:
    extra = {} if system is None else {"system": system}
    return api.messages.create(model=MODEL, max_tokens=100, messages=[{"role": "user", "content": text}], **extra)


def cached_system(text: str) -> list[dict[str, object]]:
    return [{"type": "text", "text": text, "cache_control": {"type": "ephemeral"}}]


def raw_post(fake: FakeAnthropic, body: bytes, headers: dict[str, str]) -> tuple[int, dict]:
    request = urllib.request.Request(f"{fake.base_url}/v1/messages", data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


# -- messages ------------------------------------------------------------------------------------------------


def test_create_returns_text_and_usage(fake: FakeAnthropic) -> None:
    message = ask(client(fake), "Hello there")
    assert message.type == "message" and message.role == "assistant" and message.model == MODEL
    assert message.content[0].type == "text" and message.content[0].text == PLAIN_ANSWER
    assert message.stop_reason == "end_turn"
    assert message.usage.input_tokens == estimate_tokens("Hello there")
    assert message.usage.output_tokens == estimate_tokens(PLAIN_ANSWER)
    assert message.usage.cache_creation_input_tokens == 0 and message.usage.cache_read_input_tokens == 0
    assert fake.usage_log == [message.usage.model_dump(exclude_none=True)]
    (recorded,) = fake.message_requests
    assert recorded["body"]["model"] == MODEL and recorded["body"]["messages"][0]["content"] == "Hello there"
    assert "anthropic-version" in recorded["headers"]


def test_answers_the_kind_found_in_the_prompt(fake: FakeAnthropic) -> None:
    api = client(fake)
    in_system = ask(api, "go", system=cached_system('<task kind="memo">Write a memo.</task>'))
    assert in_system.content[0].text == KINDS["memo"].example().model_dump_json()
    in_message = api.messages.create(
        model=MODEL,
        max_tokens=50,
        messages=[{"role": "user", "content": [{"type": "text", "text": '<task kind="poignancy">Rate it.</task>'}]}],
    )
    assert KINDS["poignancy"].model_validate_json(in_message.content[0].text) == KINDS["poignancy"].example()
    assert ask(api, '<task kind="no_such_kind">?</task>').content[0].text == PLAIN_ANSWER


def test_the_reply_answer_carries_its_fact_statements_and_the_close_answer_both_notes(fake: FakeAnthropic) -> None:
    """The shapes the app now asks for, through the real SDK and the app's own parser: a reply that read the turn
    for facts (extraction folded into it) and one closing call with the memo, the plan and the plan's day."""
    from adapters.settings import Settings
    from ella.llm.anthropic_provider import AnthropicProvider
    from ella.llm.port import ModelPort

    port = ModelPort(AnthropicProvider("k", fake.base_url, timeout=5, max_retries=0), Settings().model_tiers)
    reply = port.call("reply", {"name": "Sam", "message": "I have an interview on Thursday", "memories": [],
                                "reflections": "", "today": "2026-11-30 (Monday)", "known": []})  # fmt: skip
    assert not reply.failsafe and reply.value.facts and reply.value.facts[0].event_date is not None
    note = port.call("conversation_note", {"name": "Sam", "transcript": ["Sam: hi"], "today": "2026-11-30"})
    assert not note.failsafe and note.value.memo and note.value.plan and note.value.until is not None
    assert [r["body"]["system"][0]["text"].count('<task kind="') for r in fake.message_requests] == [1, 1]


def test_responder_and_scripted_text_override_the_answer(fake: FakeAnthropic) -> None:
    api = client(fake)
    fake.responder = lambda body: "custom: " + body["messages"][-1]["content"]
    assert ask(api, "ping").content[0].text == "custom: ping"
    fake.enqueue(text="not json at all")
    assert ask(api, "ping").content[0].text == "not json at all"
    assert ask(api, "ping").content[0].text == "custom: ping"  # the script was consumed once


def test_missing_key_and_bad_body_are_refused(fake: FakeAnthropic) -> None:
    body = json.dumps({"model": MODEL, "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}).encode()
    status, error = raw_post(fake, body, {"content-type": "application/json"})
    assert status == 401 and error["error"]["type"] == "authentication_error"
    status, error = raw_post(fake, b'{"model": "m", "messages": []}', {"x-api-key": "k"})
    assert status == 400 and error == {"type": "error", "error": {"type": "invalid_request_error", "message": ANY}}
    status, _ = raw_post(fake, b"{not json", {"x-api-key": "k"})
    assert status == 400
    status, message = raw_post(fake, body, {"x-api-key": "k"})
    assert status == 200 and message["content"][0]["text"] == PLAIN_ANSWER


# -- prompt caching ------------------------------------------------------------------------------------------


def test_cache_write_then_read(fake: FakeAnthropic) -> None:
    api = client(fake)
    first = ask(api, "first question", system=cached_system(LONG))
    assert first.usage.cache_creation_input_tokens == estimate_tokens(LONG) > 1024
    assert first.usage.cache_read_input_tokens == 0
    assert first.usage.input_tokens == estimate_tokens("first question")
    second = ask(api, "another question entirely", system=cached_system(LONG))
    assert second.usage.cache_read_input_tokens == first.usage.cache_creation_input_tokens
    assert second.usage.cache_creation_input_tokens == 0
    assert second.usage.input_tokens == estimate_tokens("another question entirely")
    # A different prefix (or model) is a different cache entry.
    changed = ask(api, "first question", system=cached_system(LONG + " Today is Tuesday."))
    assert changed.usage.cache_read_input_tokens == 0 and changed.usage.cache_creation_input_tokens > 0


def test_short_prefix_is_not_cached(fake: FakeAnthropic) -> None:
    api = client(fake)
    for _ in range(2):
        usage = ask(api, "hi", system=cached_system(SHORT)).usage
        assert usage.cache_creation_input_tokens == 0 and usage.cache_read_input_tokens == 0
        assert usage.input_tokens == estimate_tokens(SHORT) + estimate_tokens("hi")


def test_growing_conversation_reads_the_longest_cached_prefix(fake: FakeAnthropic) -> None:
    """System cached, plus a breakpoint on the latest turn: each call reads what the previous one wrote."""
    api = client(fake)

    def turn(text: str, cache: bool) -> dict[str, object]:
        block: dict[str, object] = {"type": "text", "text": text}
        if cache:
            block["cache_control"] = {"type": "ephemeral"}
        return {"role": "user", "content": [block]}

    one = [turn("A" * 400, True)]
    first = api.messages.create(model=MODEL, max_tokens=10, system=cached_system(LONG), messages=one).usage
    assert first.cache_creation_input_tokens == estimate_tokens(LONG) + 100 and first.input_tokens == 0
    two = [turn("A" * 400, False), {"role": "assistant", "content": "ok"}, turn("B" * 40, True)]
    second = api.messages.create(model=MODEL, max_tokens=10, system=cached_system(LONG), messages=two).usage
    # The old turn is no longer a breakpoint, but the API looks back up to 20 blocks from each breakpoint for
    # a cached prefix: the previous call's prefix is read, only the new turns are written.
    assert second.cache_read_input_tokens == estimate_tokens(LONG) + 100
    assert second.cache_creation_input_tokens == 1 + 10
    too_many = [turn(f"t{i}", True) for i in range(5)]
    with pytest.raises(anthropic.BadRequestError, match="cache_control"):
        api.messages.create(model=MODEL, max_tokens=10, messages=too_many)


def test_cache_entries_expire(fake: FakeAnthropic) -> None:
    now = [1000.0]
    fake.clock = lambda: now[0]
    api = client(fake)
    written = ask(api, system=cached_system(LONG)).usage.cache_creation_input_tokens
    now[0] += 299
    assert ask(api, system=cached_system(LONG)).usage.cache_read_input_tokens == written  # refreshes the TTL
    now[0] += 299
    assert ask(api, system=cached_system(LONG)).usage.cache_read_input_tokens == written
    now[0] += 301
    assert ask(api, system=cached_system(LONG)).usage.cache_creation_input_tokens == written


# -- errors, timeouts, retries -------------------------------------------------------------------------------


def test_429_is_a_rate_limit_error_with_retry_after(fake: FakeAnthropic) -> None:
    fake.enqueue(status=429, headers={"retry-after": "1"})
    with pytest.raises(anthropic.RateLimitError) as caught:
        ask(client(fake))
    assert caught.value.response.headers["retry-after"] == "1"
    assert caught.value.body["error"]["type"] == "rate_limit_error"
    assert caught.value.request_id and caught.value.request_id.startswith("req_")


@pytest.mark.parametrize(
    ("status", "exception", "error_type"),
    [
        (400, anthropic.BadRequestError, "invalid_request_error"),
        (401, anthropic.AuthenticationError, "authentication_error"),
        (403, anthropic.PermissionDeniedError, "permission_error"),
        (500, anthropic.InternalServerError, "api_error"),
        (529, anthropic.OverloadedError, "overloaded_error"),
    ],
)
def test_status_maps_to_the_sdk_exception(fake: FakeAnthropic, status: int, exception: type, error_type: str) -> None:
    fake.enqueue(status=status)
    with pytest.raises(exception) as caught:
        ask(client(fake))
    assert caught.value.status_code == status
    assert caught.value.body == {"type": "error", "error": {"type": error_type, "message": f"scripted {status}"}}


def test_529_is_an_internal_server_error_too(fake: FakeAnthropic) -> None:
    """Code that catches InternalServerError (5xx) also catches overloaded; pinned because providers rely on it."""
    fake.enqueue(status=529)
    with pytest.raises(anthropic.InternalServerError):
        ask(client(fake))


def test_delay_beyond_the_client_timeout_is_a_timeout(fake: FakeAnthropic) -> None:
    fake.enqueue(delay=2.0)
    api = client(fake, timeout=0.5)
    with pytest.raises(anthropic.APITimeoutError):
        ask(api)
    assert ask(api).content[0].text == PLAIN_ANSWER  # the script entry is spent; the server is fine


def test_the_sdk_retries_a_429_by_itself(fake: FakeAnthropic) -> None:
    fake.enqueue(status=429, headers={"retry-after": "0"})
    message = ask(client(fake, max_retries=2))
    assert message.content[0].text == PLAIN_ANSWER
    attempts = fake.message_requests
    assert [r["headers"]["x-stainless-retry-count"] for r in attempts] == ["0", "1"]


def test_a_truncated_body_escapes_the_sdk_as_a_json_decode_error_not_an_api_error(fake: FakeAnthropic) -> None:
    """Pinned because the provider must catch it itself: the SDK neither wraps nor retries a body it cannot decode."""
    fake.enqueue(fault="truncated_body")
    with pytest.raises(json.JSONDecodeError):
        ask(client(fake, max_retries=2))
    assert len(fake.message_requests) == 1
    assert ask(client(fake)).content[0].text == PLAIN_ANSWER


def test_faults_in_nested_strings_leave_the_top_level_alone(fake: FakeAnthropic) -> None:
    api = client(fake)
    fake.enqueue(fault="nul_in_strings")
    fake.enqueue(fault="failure_in_strings")
    memo = '<task kind="memo">Write a memo.</task>'
    with_nul = json.loads(ask(api, memo).content[0].text)
    assert "\x00" not in with_nul["memo"] and "\x00" in with_nul["perception"]["subject"]
    failed = json.loads(ask(api, memo).content[0].text)
    assert failed["memo"] == KINDS["memo"].example().memo and failed["perception"]["object"] == FAILURE_TEXT
    assert failed["perception"]["score"] == KINDS["memo"].example().perception.score


def test_deep_json_is_nested_as_deep_as_asked(fake: FakeAnthropic) -> None:
    fake.enqueue(fault="deep_json", depth=3)
    fake.enqueue(fault="deep_json")
    api = client(fake)
    assert json.loads(ask(api).content[0].text) == {"x": [[[]]]}
    assert ask(api).content[0].text.count("[") == 5000


def test_a_fault_can_be_scripted_several_times_and_an_unknown_one_is_refused(fake: FakeAnthropic) -> None:
    fake.enqueue(status=529, times=2)
    for _ in range(2):
        with pytest.raises(anthropic.InternalServerError):
            ask(client(fake))
    assert ask(client(fake)).content[0].text == PLAIN_ANSWER
    with pytest.raises(ValueError, match="unknown fault"):
        fake.enqueue(fault="gremlins")


def test_max_in_flight_counts_concurrent_requests(fake: FakeAnthropic) -> None:
    fake.latency = 0.4
    api = client(fake)
    ask(api)
    assert fake.max_in_flight == 1
    start = threading.Barrier(5)
    errors: list[BaseException] = []

    def call() -> None:
        start.wait()
        try:
            ask(api)
        except Exception as exc:  # noqa: BLE001 (reported below)
            errors.append(exc)

    threads = [threading.Thread(target=call) for _ in range(5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert not errors
    assert fake.max_in_flight == 5
    # the server counts a request out after writing its response, so the client can be back first: wait for it
    wait_for(lambda: fake.in_flight == 0, 10, what="every request counted out")


# -- message batches -----------------------------------------------------------------------------------------


def batch_request(custom_id: str, kind: str = "reply") -> dict[str, object]:
    params = {"model": MODEL, "max_tokens": 50, "messages": [{"role": "user", "content": f'<task kind="{kind}">'}]}
    return {"custom_id": custom_id, "params": params}


def test_batch_lifecycle(fake: FakeAnthropic) -> None:
    api = client(fake)
    fake.batch_polls_to_end = 2
    fake.batch_outcomes = {"b": "errored", "c": "expired", "d": "canceled"}
    requests = [batch_request("a", "memo"), batch_request("b"), batch_request("c"), batch_request("d")]
    # Invalid params are accepted at creation and error at the end, as the API validates them asynchronously.
    requests.append({"custom_id": "e", "params": {"model": MODEL, "max_tokens": 9, "messages": []}})
    batch = api.messages.batches.create(requests=requests)
    assert batch.id.startswith("msgbatch_") and batch.type == "message_batch"
    assert batch.processing_status == "in_progress" and batch.request_counts.processing == 5
    assert batch.results_url is None and batch.ended_at is None

    assert api.messages.batches.retrieve(batch.id).processing_status == "in_progress"
    ended = api.messages.batches.retrieve(batch.id)
    assert ended.processing_status == "ended" and ended.ended_at is not None
    assert ended.results_url == f"{fake.base_url}/v1/messages/batches/{batch.id}/results"
    counts = ended.request_counts
    assert (counts.processing, counts.succeeded, counts.errored, counts.expired, counts.canceled) == (0, 1, 2, 1, 1)

    results = {line.custom_id: line.result for line in api.messages.batches.results(batch.id)}
    assert {cid: r.type for cid, r in results.items()} == {
        "a": "succeeded",
        "b": "errored",
        "c": "expired",
        "d": "canceled",
        "e": "errored",
    }
    assert results["a"].message.content[0].text == KINDS["memo"].example().model_dump_json()
    assert results["a"].message.usage.output_tokens > 0
    assert results["b"].error.type == "error" and results["b"].error.error.type == "invalid_request_error"
    assert "messages" in results["e"].error.error.message

    assert [b.id for b in api.messages.batches.list()] == [batch.id]
    assert any(r["path"] == "/v1/messages/batches" and r["method"] == "POST" for r in fake.requests)


def test_batch_cancel(fake: FakeAnthropic) -> None:
    api = client(fake)
    fake.batch_polls_to_end = 3
    fake.batch_outcomes = {"done": "succeeded"}  # finished before the cancel
    batch = api.messages.batches.create(requests=[batch_request("done"), batch_request("x"), batch_request("y")])
    canceling = api.messages.batches.cancel(batch.id)
    assert canceling.processing_status == "canceling" and canceling.cancel_initiated_at is not None
    api.messages.batches.retrieve(batch.id)
    api.messages.batches.retrieve(batch.id)
    ended = api.messages.batches.retrieve(batch.id)
    assert ended.processing_status == "ended"
    assert (ended.request_counts.succeeded, ended.request_counts.canceled) == (1, 2)
    types = {line.custom_id: line.result.type for line in api.messages.batches.results(batch.id)}
    assert types == {"done": "succeeded", "x": "canceled", "y": "canceled"}


def test_unknown_batch_is_not_found(fake: FakeAnthropic) -> None:
    with pytest.raises(anthropic.NotFoundError):
        client(fake).messages.batches.retrieve("msgbatch_nope")


# -- structured outputs (output_config.format) ---------------------------------------------------------------

MEMO_TASK = '<task kind="memo">Write a memo.</task>'


def as_format(schema: dict[str, object]) -> dict[str, object]:
    return {"format": {"type": "json_schema", "schema": schema}}


def ask_in(api: anthropic.Anthropic, schema: dict[str, object], text: str = MEMO_TASK) -> anthropic.types.Message:
    return api.messages.create(
        model=MODEL,
        max_tokens=300,
        messages=[{"role": "user", "content": text}],
        output_config=as_format(schema),  # type: ignore[typeddict-item]
    )


def obj(properties: dict[str, object]) -> dict[str, object]:
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


STRING = {"type": "string"}


@pytest.mark.parametrize(
    ("schema", "words"),
    [
        ({"type": "object", "properties": {"a": STRING}, "required": ["a"]}, "'additionalProperties' must be"),
        (obj({"a": obj({"b": STRING}) | {"additionalProperties": True}}), "'additionalProperties' must be"),
        (obj({"n": {"type": "integer", "minimum": 1}}), "'minimum' is not supported"),
        (obj({"s": {"type": "string", "maxLength": 9}}), "'maxLength' is not supported"),
        (obj({"l": {"type": "array", "items": STRING, "minItems": 2}}), "only 0 or 1"),
        (obj({"l": {"type": "array", "items": STRING, "maxItems": 3}}), "'maxItems' is not supported"),
        (obj({"s": {"type": "string", "format": "color"}}), "not a supported string format"),
        (obj({"e": {"enum": [{"a": 1}]}}), "only strings, numbers, booleans or nulls"),
        (obj({"r": {"$ref": "https://example.com/s.json"}}), "external $ref"),
        (obj({"s": {"type": "string", "pattern": r"^(a)\1$"}}), "backreferences"),
        (obj({"x": {"oneOf": [STRING, {"type": "integer"}]}}), "'oneOf' is not supported"),
        (
            obj({"n": {"$ref": "#/$defs/Node"}})
            | {"$defs": {"Node": obj({"next": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]}})}},
            "Too many recursive definitions",
        ),
        (
            {"type": "object", "properties": {f"p{i}": STRING for i in range(25)}, "additionalProperties": False},
            "too many optional parameters (25)",
        ),
        (obj({f"u{i}": {"type": ["string", "null"]} for i in range(17)}), "too many parameters with union types"),
    ],
)
def test_a_schema_the_api_refuses_is_a_400_invalid_request_error(
    fake: FakeAnthropic, schema: dict[str, object], words: str
) -> None:
    with pytest.raises(anthropic.BadRequestError) as caught:
        ask_in(client(fake), schema)
    assert caught.value.status_code == 400 and isinstance(caught.value.body, dict)
    error = caught.value.body["error"]
    assert error["type"] == "invalid_request_error" and words in error["message"]
    assert error["message"].startswith("output_config.format.schema")


def test_a_format_that_is_not_a_json_schema_or_comes_after_a_prefill_is_refused(fake: FakeAnthropic) -> None:
    api = client(fake)
    body = {"model": MODEL, "max_tokens": 50, "messages": [{"role": "user", "content": "hi"}]}
    with pytest.raises(anthropic.BadRequestError, match="json_schema"):
        api.messages.create(**body, output_config={"format": {"type": "xml", "schema": {}}})  # type: ignore[arg-type, typeddict-item]
    prefill = [{"role": "user", "content": MEMO_TASK}, {"role": "assistant", "content": "{"}]
    with pytest.raises(anthropic.BadRequestError, match="Prefilling"):
        api.messages.create(model=MODEL, max_tokens=50, messages=prefill, output_config=as_format(obj({"a": STRING})))  # type: ignore[arg-type, typeddict-item]


def test_every_kinds_schema_is_accepted_and_its_answer_conforms(fake: FakeAnthropic) -> None:
    import jsonschema

    from ella.llm.schemas import schema_for

    api = client(fake)
    for kind in KINDS:
        schema = schema_for(kind)
        message = ask_in(api, schema, f'<task kind="{kind}">Answer.</task>')
        jsonschema.validate(json.loads(message.content[0].text), schema)
        assert message.stop_reason == "end_turn"


def test_broken_json_faults_give_the_constrained_answer_under_a_schema(fake: FakeAnthropic) -> None:
    from ella.llm.schemas import schema_for

    api, schema = client(fake), schema_for("memo")
    fake.enqueue(fault="deep_json")
    fake.enqueue(fault="prose")
    for _ in range(2):
        assert ask_in(api, schema).content[0].text == KINDS["memo"].example().model_dump_json()
    fake.enqueue(fault="prose")
    assert ask(api, MEMO_TASK).content[0].text == "Sure! In short, Sam seems to be doing well; I'll keep it in mind."


def test_string_faults_under_a_schema_reach_free_text_only(fake: FakeAnthropic) -> None:
    import jsonschema

    from ella.llm.schemas import schema_for

    api, schema = client(fake), schema_for("fact_extraction")
    task = '<task kind="fact_extraction">Extract.</task>'
    fake.enqueue(fault="failure_in_strings")
    fake.enqueue(fault="nul_in_strings")
    failed = json.loads(ask_in(api, schema, task).content[0].text)
    with_nul = json.loads(ask_in(api, schema, task).content[0].text)
    for answer in (failed, with_nul):
        jsonschema.validate(answer, schema)
        assert [f["tier"] for f in answer["facts"]] == ["user_claim"] * 3  # an enum is never broken
        assert answer["facts"][1]["event_date"] == "2026-12-03"  # nor a formatted string
        assert answer["facts"][2]["because"] == "happened"  # nor an enum inside anyOf
    assert {f["subject"] for f in failed["facts"]} == {FAILURE_TEXT} and failed["facts"][2]["outcome"] == FAILURE_TEXT
    assert all("\x00" in f["object"] for f in with_nul["facts"])


def test_max_tokens_and_refusal_still_happen_under_a_schema(fake: FakeAnthropic) -> None:
    from ella.llm.schemas import schema_for

    api, schema, whole = client(fake), schema_for("memo"), KINDS["memo"].example().model_dump_json()
    fake.enqueue(fault="max_tokens")
    fake.enqueue(fault="refusal")
    cut = ask_in(api, schema)
    assert cut.stop_reason == "max_tokens" and cut.usage.output_tokens == 300
    assert whole.startswith(cut.content[0].text) and len(cut.content[0].text) < len(whole)
    refused = ask_in(api, schema)
    assert refused.stop_reason == "refusal" and refused.content[0].text.startswith("I'm not able")
    fake.enqueue(fault="max_tokens")
    assert ask(api, MEMO_TASK).stop_reason == "max_tokens"  # the same without a schema


def test_http_faults_still_happen_under_a_schema(fake: FakeAnthropic) -> None:
    from ella.llm.schemas import schema_for

    fake.enqueue(status=429, headers={"retry-after": "1"})
    fake.enqueue(status=529)
    with pytest.raises(anthropic.RateLimitError):
        ask_in(client(fake), schema_for("memo"))
    with pytest.raises(anthropic.InternalServerError):
        ask_in(client(fake), schema_for("memo"))


def test_a_batch_entry_with_a_refused_schema_errors_and_the_others_succeed(fake: FakeAnthropic) -> None:
    from ella.llm.schemas import schema_for

    api = client(fake)
    good = batch_request("good", "memo")
    good["params"]["output_config"] = as_format(schema_for("memo"))  # type: ignore[index]
    bad = batch_request("bad", "memo")
    bad["params"]["output_config"] = as_format({"type": "object", "properties": {}})  # type: ignore[index]
    batch = api.messages.batches.create(requests=[good, bad])  # type: ignore[list-item]
    api.messages.batches.retrieve(batch.id)
    results = {line.custom_id: line.result for line in api.messages.batches.results(batch.id)}
    assert results["good"].type == "succeeded"
    assert results["good"].message.content[0].text == KINDS["memo"].example().model_dump_json()
    assert results["bad"].type == "errored" and "additionalProperties" in results["bad"].error.error.message

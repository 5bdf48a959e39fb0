"""Sampling per prompt kind: what temperature and max tokens the real anthropic SDK sends for each kind, live and
in Message Batches, against the loopback Anthropic server (real HTTP), and how the settings override them.

Why pinned as a literal table: a judgement at the API's default temperature (1.0) is what issue 21 found; a
changed default must be a visible change to this table, not a drift.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import ValidationError

from adapters import model_batches as batches
from adapters.settings import Settings
from ella.llm import batches as batch_rules
from ella.llm.anthropic_provider import AnthropicProvider
from ella.llm.kinds import KINDS
from ella.llm.port import ModelPort
from ella.llm.prompts import template
from ella.llm.sampling import DEFAULT_TEMPERATURE
from tests.support.fake_anthropic import FakeAnthropic

pytestmark = pytest.mark.domain  # the fast lane (make test-fast): no database, no Redis

TIERS = Settings().model_tiers
# What each kind is sent with by default: 0 for judgements, the reply warmest (ella.llm.sampling says why).
PINNED_TEMPERATURE = {
    "poignancy": 0.0,
    "event_triple": 0.0,
    "perception": 0.0,
    "fact_extraction": 0.0,
    "contested_verdict": 0.0,
    "digest": 0.0,
    "focal_points": 0.0,
    "insights": 0.3,
    "relationship_arc": 0.3,
    "memo": 0.4,
    "planning_thought": 0.4,
    "conversation_note": 0.4,
    "chapter_distillation": 0.5,
    "notification_body": 0.6,
    "reply": 0.7,
}


def variables_for(kind: str) -> dict[str, Any]:
    """A value for every variable the kind's template names (any text renders; the fake answers by kind)."""
    names: set[str] = set()
    for part in template(kind):
        names |= set(part.get_identifiers())
    return {name: f"{name} of the test" for name in names - {"example"}}


@pytest.fixture
def fake() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as server:
        yield server


def sdk_port(fake: FakeAnthropic, settings: Settings | None = None) -> ModelPort:
    provider = AnthropicProvider(api_key="k", base_url=fake.base_url, timeout=5, max_retries=0)
    if settings is None:
        return ModelPort(provider, TIERS, max_repairs=0)
    return ModelPort(provider, settings.model_tiers, max_repairs=0, sampling=settings.sampling)


def sent_by_kind(bodies: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """kind (from the prompt's ``<task kind=...>``) -> the request body the server received."""
    out = {}
    for body in bodies:
        system = "".join(block["text"] for block in body["system"])
        kind = system.split('<task kind="', 1)[1].split('"', 1)[0]
        out[kind] = body
    return out


def test_every_kind_has_a_chosen_temperature() -> None:
    """A kind added without a decision would be sent at the API's default of 1.0 again."""
    assert set(DEFAULT_TEMPERATURE) == set(KINDS)
    assert DEFAULT_TEMPERATURE == PINNED_TEMPERATURE


def test_the_sdk_sends_each_kinds_temperature_and_max_tokens_live(fake: FakeAnthropic) -> None:
    port = sdk_port(fake)
    for kind in KINDS:
        result = port.call(kind, variables_for(kind), user_id="sam")
        assert not result.failsafe, (kind, result.error)
    sent = sent_by_kind([r["body"] for r in fake.message_requests])
    assert set(sent) == set(KINDS)
    assert {k: b["temperature"] for k, b in sent.items()} == PINNED_TEMPERATURE
    assert {k: b["max_tokens"] for k, b in sent.items()} == {k: s.max_tokens for k, s in KINDS.items()}


def test_a_repair_request_keeps_the_kinds_temperature(fake: FakeAnthropic) -> None:
    fake.enqueue(text="not json at all")
    port = ModelPort(AnthropicProvider(api_key="k", base_url=fake.base_url, timeout=5, max_retries=0), TIERS)
    result = port.call("poignancy", variables_for("poignancy"))
    assert not result.failsafe and result.attempts == 2
    assert [r["body"]["temperature"] for r in fake.message_requests] == [0.0, 0.0]


def test_the_sdk_sends_each_kinds_temperature_and_max_tokens_in_message_batches(
    migrated_db: str, fake: FakeAnthropic, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(batch_rules, "_HANDLERS", {})
    batches.register_batch_handler("test_sampling", lambda session, item, result: None)
    items = [(f"s-{kind.replace('_', '-')}", kind, variables_for(kind), "sam", {}) for kind in KINDS]
    assert len(batches.submit("test_sampling", items)) == len(KINDS)
    report = batches.flush_pending(sdk_port(fake))
    assert report.submitted == len(KINDS) and len(report.batches) == 1
    [submission] = [r for r in fake.requests if r["method"] == "POST" and r["path"] == "/v1/messages/batches"]
    sent = sent_by_kind([entry["params"] for entry in submission["body"]["requests"]])
    assert {k: b["temperature"] for k, b in sent.items()} == PINNED_TEMPERATURE
    assert {k: b["max_tokens"] for k, b in sent.items()} == {k: s.max_tokens for k, s in KINDS.items()}
    polled = batches.poll(sdk_port(fake))
    assert polled.outcomes["applied"] == len(KINDS)  # the API accepted every entry's params


def test_the_environment_overrides_the_kinds_it_names_and_keeps_the_rest(
    fake: FakeAnthropic, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ELLA_LLM_TEMPERATURE", '{"reply": 0.95, "digest": 0.2}')
    monkeypatch.setenv("ELLA_LLM_MAX_TOKENS", '{"reply": 450}')
    settings = Settings()
    assert settings.llm_temperature == {**PINNED_TEMPERATURE, "reply": 0.95, "digest": 0.2}
    port = sdk_port(fake, settings)
    for kind in ("reply", "digest", "poignancy"):
        port.call(kind, variables_for(kind))
    sent = sent_by_kind([r["body"] for r in fake.message_requests])
    assert (sent["reply"]["temperature"], sent["reply"]["max_tokens"]) == (0.95, 450)
    assert (sent["digest"]["temperature"], sent["digest"]["max_tokens"]) == (0.2, KINDS["digest"].max_tokens)
    assert (sent["poignancy"]["temperature"], sent["poignancy"]["max_tokens"]) == (0.0, KINDS["poignancy"].max_tokens)


def test_the_worker_port_uses_the_settings_sampling(monkeypatch: pytest.MonkeyPatch, fake: FakeAnthropic) -> None:
    from adapters.llm import make_port

    monkeypatch.setenv("ELLA_LLM_TEMPERATURE", '{"memo": 0.1}')
    settings = Settings(anthropic_api_key="k", anthropic_base_url=fake.base_url, llm_provider="anthropic")
    port = make_port(settings)
    assert port.request("memo", variables_for("memo")).temperature == 0.1
    assert port.request("fact_extraction", variables_for("fact_extraction")).temperature == 0.0


@pytest.mark.parametrize(
    ("name", "value", "says"),
    [
        ("ELLA_LLM_TEMPERATURE", '{"reply": 1.5}', "must be in [0, 1]"),
        ("ELLA_LLM_TEMPERATURE", '{"reply": -0.1}', "must be in [0, 1]"),
        ("ELLA_LLM_TEMPERATURE", '{"replies": 0.5}', "no prompt kind 'replies'"),
        ("ELLA_LLM_MAX_TOKENS", '{"reply": 0}', "must be a whole number >= 1"),
        ("ELLA_LLM_MAX_TOKENS", '{"chapter": 900}', "no prompt kind 'chapter'"),
    ],
)
def test_a_sampling_setting_the_api_would_refuse_is_refused_at_start(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, says: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ValidationError, match=says.replace("[", r"\[").replace("]", r"\]")):
        Settings()


def test_the_fake_api_refuses_a_temperature_out_of_range_as_the_api_does(fake: FakeAnthropic) -> None:
    import anthropic

    client = anthropic.Anthropic(base_url=fake.base_url, api_key="k", max_retries=0)
    with pytest.raises(anthropic.BadRequestError, match="temperature"):
        client.messages.create(
            model="claude-haiku-4-5",
            max_tokens=10,
            messages=[{"role": "user", "content": "hi"}],
            extra_body={"temperature": 1.5},
        )


@pytest.mark.parametrize(
    ("model", "takes_it"),
    [
        ("claude-sonnet-4-6", True),
        ("claude-haiku-4-5", True),
        ("claude-3-5-haiku-20241022", True),
        ("claude-opus-4-7", False),
        ("claude-opus-4-8", False),
        ("claude-sonnet-5-5", False),
        ("claude-fable-5", False),
    ],
)
def test_a_model_that_refuses_sampling_parameters_is_sent_none(model: str, takes_it: bool) -> None:
    """Models from 4.7 on answer a non-default temperature with a 400: their requests go without one."""
    from ella.llm.offline import OfflineProvider

    class Named(OfflineProvider):
        name = "named"

    port = ModelPort(Named(), {tier: model for tier in TIERS})
    request = port.request("fact_extraction", variables_for("fact_extraction"))
    assert request.model == model
    assert request.temperature == (0.0 if takes_it else None)

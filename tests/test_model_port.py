"""The model port through the real anthropic SDK against the loopback API server, and with the offline engine."""

from __future__ import annotations

import json
import threading
import time

import pytest

from adapters.settings import Settings
from ella.llm.anthropic_provider import AnthropicProvider
from ella.llm.kinds import KINDS
from ella.llm.offline import OfflineProvider
from ella.llm.port import CallRecord, ModelPort
from ella.llm.types import PermanentModelError, TransientModelError
from tests.support.fake_anthropic import FakeAnthropic

TIERS = Settings().model_tiers
LONG_BRIEF = "Ella lives in a small flat above a bakery in a harbour town. " * 120  # a realistic world brief


@pytest.fixture
def fake():
    with FakeAnthropic() as server:
        yield server


def make_port(fake: FakeAnthropic, records: list[CallRecord], max_repairs: int = 2, slot=None) -> ModelPort:
    provider = AnthropicProvider("test-key", fake.base_url, timeout=2.0, max_retries=0)
    return ModelPort(provider, TIERS, max_repairs=max_repairs, record=records.append, slot=slot)


def test_the_prompt_is_assembled_in_the_seeds_order_with_the_stable_prefix_cached(fake):
    port = make_port(fake, [])
    history = [("user", "Hi Ella"), ("assistant", "Hi! How are you?")]
    port.call(
        "reply",
        {
            "name": "Sam",
            "message": "I'm nervous about Thursday",
            "memories": ["Sam likes tea"],
            "reflections": "",
            "today": "2026-11-29 (Sunday)",
            "known": [],
        },
        user_id="sam",
        world_brief=LONG_BRIEF,
        recent_thoughts="- I baked bread  [said 2026-11-28]",
        history=history,
    )
    body = fake.message_requests[-1]["body"]
    assert body["model"] == TIERS["live_reply"]
    persona, facts, thoughts = (block["text"] for block in body["system"])
    assert "Ella, an AI companion" in persona and '<task kind="reply">' in persona
    assert facts.startswith("## WORLD FACTS (canon — these are true)") and LONG_BRIEF.strip() in facts
    assert thoughts.startswith("## YOUR RECENT THOUGHTS (first-person") and "I baked bread" in thoughts
    assert "the world fact wins" in thoughts and "I baked bread" not in facts
    assert [("cache_control" in block) for block in body["system"]] == [True, False, True]
    *earlier, last = body["messages"]
    assert "cache_control" in earlier[-1]["content"][-1]  # the history so far is a cached prefix
    assert all("cache_control" not in block for block in last["content"])
    assert "I'm nervous about Thursday" in last["content"][0]["text"] and "Sam likes tea" in last["content"][0]["text"]
    assert body["metadata"]["user_id"] != "sam"  # an opaque hash, not the gateway's id


def test_usage_is_recorded_including_cache_writes_and_reads(fake):
    records: list[CallRecord] = []
    port = make_port(fake, records)
    variables = {"name": "Sam", "event": "Sam has an interview"}
    first = port.call("poignancy", variables, user_id="sam", world_brief=LONG_BRIEF)
    second = port.call("poignancy", {**variables, "event": "Sam slept well"}, user_id="sam", world_brief=LONG_BRIEF)
    assert [r.outcome for r in records] == ["ok", "ok"]
    assert records[0].usage == first.usage and records[1].usage == second.usage
    assert first.usage.cache_creation_input_tokens > 1000 and first.usage.cache_read_input_tokens == 0
    assert second.usage.cache_read_input_tokens == first.usage.cache_creation_input_tokens
    assert fake.usage_log[-1]["cache_read_input_tokens"] == second.usage.cache_read_input_tokens
    assert records[0].model == TIERS["poignancy"] and records[0].tier == "poignancy" and records[0].user_id == "sam"


def test_malformed_output_is_repaired_by_asking_again_with_the_error(fake):
    records: list[CallRecord] = []
    fake.enqueue(text="Sure! The score is probably a seven.")
    result = make_port(fake, records).call("poignancy", {"name": "Sam", "event": "a breakup"})
    assert not result.failsafe and result.attempts == 2 and 1 <= result.value.score <= 10
    assert [r.outcome for r in records] == ["invalid_output", "repaired"]
    retry = fake.message_requests[-1]["body"]["messages"]
    assert retry[-2]["role"] == "assistant" and "probably a seven" in retry[-2]["content"][0]["text"]
    assert "could not be used" in retry[-1]["content"][0]["text"]


def test_a_persistent_failure_returns_the_flagged_failsafe(fake):
    records: list[CallRecord] = []
    fake.responder = lambda body: "TOKEN LIMIT EXCEEDED"
    result = make_port(fake, records, max_repairs=2).call("event_triple", {"name": "Sam", "event": "x"})
    assert result.failsafe is True and result.attempts == 3
    assert result.value == KINDS["event_triple"].failsafe({"name": "Sam", "event": "x"})
    assert [r.outcome for r in records] == ["invalid_output", "invalid_output", "failsafe"]
    assert "no JSON object" in result.error


def test_evidence_outside_the_statements_shown_is_refused_and_repaired(fake):
    perceived = {"score": 4, "subject": "Sam", "predicate": "is", "object": "nervous"}
    answers = iter(
        [
            json.dumps({"insights": [{"text": "Sam is nervous", "evidence": [0, 3], "perception": perceived}]}),
            json.dumps({"insights": [{"text": "Sam is nervous", "evidence": [1, 2], "perception": perceived}]}),
        ]
    )
    fake.responder = lambda body: next(answers)
    result = make_port(fake, []).call(
        "insights",
        {"name": "Sam", "focal_point": "How is Sam?", "statements": ["a", "b"]},
        context={"statement_count": 2},
    )
    assert not result.failsafe and result.value.insights[0].evidence == [1, 2]


@pytest.mark.parametrize(
    ("status", "headers", "retry_after"), [(429, {"retry-after": "7"}, 7.0), (529, {}, None), (500, {}, None)]
)
def test_rate_limits_overload_and_server_errors_are_transient(fake, status, headers, retry_after):
    records: list[CallRecord] = []
    fake.enqueue(status=status, headers=headers)
    with pytest.raises(TransientModelError) as caught:
        make_port(fake, records).call("poignancy", {"name": "Sam", "event": "x"})
    assert caught.value.status == status and caught.value.retry_after == retry_after
    assert [r.outcome for r in records] == ["transient_error"]


def test_a_timeout_is_transient(fake):
    fake.enqueue(delay=3.0)
    with pytest.raises(TransientModelError, match="timeout"):
        make_port(fake, []).call("poignancy", {"name": "Sam", "event": "x"})


@pytest.mark.parametrize("status", [400, 401, 403])
def test_client_errors_are_permanent_and_not_retried(fake, status):
    records: list[CallRecord] = []
    fake.enqueue(status=status)
    with pytest.raises(PermanentModelError):
        make_port(fake, records).call("poignancy", {"name": "Sam", "event": "x"})
    assert len(fake.message_requests) == 1 and [r.outcome for r in records] == ["permanent_error"]


def test_the_provider_retries_little_so_the_celery_retry_is_not_multiplied(fake):
    provider = AnthropicProvider("k", fake.base_url, timeout=2.0, max_retries=Settings().llm_sdk_max_retries)
    for _ in range(3):
        fake.enqueue(status=529)
    with pytest.raises(TransientModelError):
        ModelPort(provider, TIERS).call("poignancy", {"name": "Sam", "event": "x"})
    assert len(fake.message_requests) == 1 + Settings().llm_sdk_max_retries


def test_the_slot_limit_caps_calls_in_flight_across_threads(fake, redis_client):
    from adapters.llm_slots import ModelSlots

    fake.latency = 0.15
    slots = ModelSlots(redis_client, f"test-slots-{time.time_ns()}", limit=2, lease_s=30, wait_s=30)
    port = make_port(fake, [], slot=slots.slot)
    threads = [threading.Thread(target=port.call, args=("poignancy", {"name": "S", "event": "x"})) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert fake.max_in_flight == 2
    assert slots.in_use() == 0


def test_a_slot_held_by_a_dead_worker_frees_after_its_lease(redis_client):
    from adapters.llm_slots import ModelSlots

    slots = ModelSlots(redis_client, f"test-slots-{time.time_ns()}", limit=1, lease_s=1, wait_s=0.2)
    redis_client.zadd(slots.key, {"crashed-worker": time.time() + 1e6})  # never released, far future: blocks
    with pytest.raises(TransientModelError, match="no model slot"), slots.slot():
        pass
    redis_client.zadd(slots.key, {"crashed-worker": 0})  # an old lease
    with slots.slot():
        assert slots.in_use() == 1


def test_the_offline_engine_answers_every_kind_with_valid_output():
    variables = {
        "name": "Sam",
        "event": "I have a job interview on Thursday and I'm nervous",
        "n": 3,
        "statements": ["Sam has a job interview on Thursday", "Sam is nervous about the interview"],
        "focal_point": "How does Sam feel about the interview?",
        "transcript": ["Sam: I have a job interview on Thursday", "Ella: good luck"],
        "message": "my sister is Anna",
        "memories": [],
        "reflections": "",
        "today": "2026-11-29 (Sunday)",
        "known": [],
        "subject": "ellahome.door",
        "predicate": "color",
        "candidates": [
            {"object": "red", "tier": "canon", "created_at": "2026-01-01"},
            {"object": "blue", "tier": "observed", "created_at": "2026-02-01"},
        ],
        "period": "this week",
        "memos": [{"id": 7, "text": "Sam had an interview.", "poignancy": 6}],
        "reason": "follow-up",
        "plan": "Ask Sam.",
        "facts": [{"id": 12, "fact": "the user has upcoming: interview", "topic": "interview", "upcoming": True}],
        "plans": [{"id": 40, "plan": "ask Sam how the interview went"}],
        "self_log": [],
        "chapter": "(none yet)",
        "arc_stage": "new",
        "arc_mindful_of": "(nothing noted)",
        "chapters": [{"period": "2026-W47", "title": "The interview week", "summary": "Sam prepared for it."}],
        "chapter_count": 1,
        "previous": "(none)",
        "previous_stage": "none",
    }
    port = ModelPort(OfflineProvider(), TIERS, max_repairs=0)
    context = {"statement_count": 2, "candidate_count": 2, "node_ids": [7]}
    for kind in KINDS:
        result = port.call(kind, variables, context=context)
        assert not result.failsafe, (kind, result.error)
    assert port.call("contested_verdict", variables, context=context).value.winner == 1  # canon beats observed
    assert port.call("poignancy", variables).value.score >= 5

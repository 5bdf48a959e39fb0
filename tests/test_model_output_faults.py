"""Broken model output and a broken transport: a clear error, nothing lost, nothing false stored (issue 11).

The rule: the model's failures are never memories. A transient fault (a truncated HTTP body) is retried; broken
output (failure text or a NUL anywhere in it, JSON nested past the parser's limit) is repaired, then treated as
a model failure with the task's fallback path; a model call never outlives the budget its provider enforces,
and a task's own time limit reaches it even while it waits on the API. Everything runs through the real
``anthropic`` SDK against the loopback API (tests/support/fake_anthropic.py) and, where storing is the point,
through the real tasks and databases.
"""

from __future__ import annotations

import json
import signal
import threading
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from sqlalchemy import select

from adapters.db import autocommit_scope, session_scope
from adapters.settings import Settings
from ella.contract import IngestPayload
from ella.llm.anthropic_provider import AnthropicProvider
from ella.llm.kinds import OutputError, parse_output
from ella.llm.port import CallRecord, ModelPort
from ella.llm.types import TransientModelError
from gateway.client import enqueue_message
from models import DeadLetter, MemoryNode, OutboxRecord, SelfLogEntry, User, WorldFact
from models.ledger import history
from tests.conftest import BACKENDS, wait_for
from tests.support.fake_anthropic import FAILURE_TEXT, TASK_KIND, FakeAnthropic, default_answer, prompt_texts

TIERS = Settings().model_tiers
POIGNANCY = {"name": "Sam", "event": "Sam has an interview"}
# A worker test is about the worker, not the database: it runs on one back end (the last configured) only.
ONE_BACKEND = pytest.mark.parametrize("database_url", BACKENDS[-1:], indirect=True)


@pytest.fixture
def fake() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as server:
        yield server


def provider(fake: FakeAnthropic, **options: Any) -> AnthropicProvider:
    return AnthropicProvider("test-key", fake.base_url, **{"timeout": 2.0, "max_retries": 0, **options})


def port_on(fake: FakeAnthropic, records: list[CallRecord] | None = None, **options: Any) -> ModelPort:
    sink = records.append if records is not None else None
    return ModelPort(provider(fake, **options), TIERS, max_repairs=1, record=sink)


def kind_of(body: dict[str, Any]) -> str:
    for text in prompt_texts(body):
        if match := TASK_KIND.search(text):
            return match.group(1)
    return ""


def answering(fake: FakeAnthropic, **by_kind: object) -> None:
    """The fake answers these kinds with these JSON objects, every other kind with its valid example."""
    fake.responder = lambda body: json.dumps(by_kind[k]) if (k := kind_of(body)) in by_kind else default_answer(body)


def use_fake(monkeypatch: pytest.MonkeyPatch, module: object, fake: FakeAnthropic) -> None:
    monkeypatch.setattr(module, "get_port", lambda: port_on(fake))


def make_user() -> str:
    user = f"of-{uuid.uuid4().hex[:8]}"
    with session_scope() as s:
        s.add(User(id=user, timezone="UTC"))
    return user


def extract(user: str, text: str) -> dict[str, int]:
    from tasks.ledger import extract_facts

    kwargs = {"user_id": user, "message_id": uuid.uuid4().hex, "text": text, "sent_at": datetime.now(UTC).isoformat()}
    return extract_facts.apply(kwargs=kwargs).get()


def user_facts(user: str) -> list[WorldFact]:
    with autocommit_scope() as s:
        return [f for f in history(s, user) if f.subject.startswith("user")]


def ingest_turn(user: str, text: str) -> str:
    from tasks.ingest import ingest

    message_id = uuid.uuid4().hex
    ingest(IngestPayload(message_id=message_id, user_id=user, text=text, sent_at=datetime.now(UTC)), task_id=None)
    return message_id


def selflog(user: str) -> list[SelfLogEntry]:
    with autocommit_scope() as s:
        return list(s.scalars(select(SelfLogEntry).where(SelfLogEntry.user_id == user)))


def in_thread(call: Callable[[], object]) -> Callable[[], dict[str, object]]:
    """Run ``call`` in a daemon thread; the returned poll gives {"value"/"error": ...} once it has finished."""
    done: dict[str, object] = {}

    def run() -> None:
        try:
            done["value"] = call()
        except BaseException as exc:  # noqa: BLE001 (handed to the test)
            done["error"] = exc

    threading.Thread(target=run, daemon=True).start()
    return lambda: done


PERCEIVED = {"score": 4, "subject": "Sam", "predicate": "is", "object": "nervous"}
FACT = {"subject": "user", "predicate": "has", "object": "a cat called Tom", "tier": "user_claim", "confidence": 0.9}


def reply_with(**changes: Any) -> dict[str, Any]:
    statement = {"content": "I walked to the harbour this morning", "about": ["harbour"], "confidence": 0.9}
    return {
        "reply": "That sounds like a big week.",
        "perception": PERCEIVED,
        "self_statements": [statement],
    } | changes


# -- item 5: a malformed HTTP body -----------------------------------------------------------------------------


def test_a_truncated_response_body_is_retried_by_the_provider_and_the_call_succeeds(fake):
    records: list[CallRecord] = []
    fake.enqueue(fault="truncated_body")
    result = port_on(fake, records, max_retries=1).call("poignancy", POIGNANCY)
    assert not result.failsafe and 1 <= result.value.score <= 10
    assert len(fake.message_requests) == 2 and [r.outcome for r in records] == ["ok"]


def test_a_truncated_response_body_with_no_retry_left_is_a_transient_model_error(fake):
    records: list[CallRecord] = []
    fake.enqueue(fault="truncated_body")
    with pytest.raises(TransientModelError, match="malformed response body"):
        port_on(fake, records).call("poignancy", POIGNANCY)
    assert [r.outcome for r in records] == ["transient_error"]


def claude_env(fake: FakeAnthropic, **extra: str) -> dict[str, str]:
    return {
        "ELLA_LLM_PROVIDER": "anthropic",
        "ANTHROPIC_API_KEY": "test-key",
        "ANTHROPIC_BASE_URL": fake.base_url,
        **extra,
    }


def reply_to(message_id: str) -> OutboxRecord | None:
    with session_scope() as s:
        return s.scalars(select(OutboxRecord).where(OutboxRecord.in_reply_to == message_id)).one_or_none()


def dead_letters() -> list[tuple[str, str]]:
    with session_scope() as s:
        return [(d.task_name, d.reason[:200]) for d in s.scalars(select(DeadLetter))]


@pytest.mark.integration
@ONE_BACKEND
def test_a_truncated_body_on_the_live_reply_is_retried_and_nothing_is_dead_lettered(start_worker, fake):
    start_worker(env=claude_env(fake, ELLA_LLM_SDK_MAX_RETRIES="0", ELLA_LLM_RETRY_BASE_S="0.2"))
    fake.enqueue(fault="truncated_body")
    mid = f"of-{uuid.uuid4().hex[:8]}"
    enqueue_message(message_id=mid, user_id="sam", text="I have a job interview on Thursday", sent_at=datetime.now(UTC))
    record = wait_for(lambda: reply_to(mid), 60, what="the reply after the retry")
    assert record.route == "generated"
    assert dead_letters() == []


# -- item 6: a deadline the provider enforces ------------------------------------------------------------------


def test_a_soft_time_limit_while_waiting_on_the_api_reaches_the_task_not_the_sdk_retry_loop(fake):
    """Celery raises SoftTimeLimitExceeded from a signal handler; the SDK wraps whatever its send raises as a
    connection error and retries it. The provider hands the task its own exception back."""
    fake.enqueue(delay=3.0)
    main = threading.get_ident()

    def limit_when_in_flight() -> None:
        wait_for(lambda: fake.in_flight == 1, 30, interval=0.01, what="the request in flight")
        signal.pthread_kill(main, signal.SIGALRM)

    def soft_limit(signum: int, frame: object) -> None:
        raise SoftTimeLimitExceeded()

    previous = signal.signal(signal.SIGALRM, soft_limit)
    try:
        threading.Thread(target=limit_when_in_flight, daemon=True).start()
        with pytest.raises(SoftTimeLimitExceeded):
            port_on(fake, timeout=10.0, max_retries=2).call("poignancy", POIGNANCY)
    finally:
        signal.signal(signal.SIGALRM, previous)
    assert len(fake.message_requests) == 1


def test_a_retry_after_beyond_the_call_budget_is_handed_to_the_task_not_slept_in_the_worker(fake):
    fake.enqueue(status=429, headers={"retry-after": "3600"})
    finished = in_thread(lambda: port_on(fake, max_retries=2).call("poignancy", POIGNANCY))
    outcome = wait_for(finished, 30, what="the call to give up instead of sleeping an hour")
    error = outcome.get("error")
    assert isinstance(error, TransientModelError) and error.retry_after == 3600.0, outcome
    assert len(fake.message_requests) == 1


def test_slow_answers_end_at_the_call_budget_with_a_transient_error(fake):
    fake.enqueue(delay=3.0, times=6)
    with pytest.raises(TransientModelError, match="budget"):
        port_on(fake, timeout=1.0, max_retries=5, budget_s=1.5).call("poignancy", POIGNANCY)
    assert len(fake.message_requests) <= 2  # six attempts were allowed; the budget ran out first


@pytest.mark.integration
@ONE_BACKEND
def test_a_long_retry_after_in_a_threads_pool_becomes_the_tasks_countdown(start_worker, fake):
    """A threads pool has no Celery time limits at all: only the provider's own budget bounds a call. One
    delivery only: the broker's redelivery after the visibility timeout would answer from another thread while
    the first still sleeps, so the reply must come from the task's own retry."""
    env = claude_env(fake, ELLA_LLM_SDK_MAX_RETRIES="1", ELLA_LLM_RETRY_MAX_S="1", ELLA_MAX_DELIVERIES="1")
    start_worker(env=env, extra_args=["-P", "threads"])
    fake.enqueue(status=429, headers={"retry-after": "3600"})
    mid = f"of-{uuid.uuid4().hex[:8]}"
    enqueue_message(message_id=mid, user_id="sam", text="I have a job interview on Thursday", sent_at=datetime.now(UTC))
    record = wait_for(lambda: reply_to(mid), 60, what="the reply after the task's own retry")
    assert record.route == "generated"
    assert dead_letters() == []


# -- item 7: failure text nested anywhere ---------------------------------------------------------------------


NESTED_FAILURES = {
    "a fact's object": ("fact_extraction", {"facts": [FACT | {"object": "Error: upstream timeout"}]}, {}),
    "a self-statement": (
        "reply",
        reply_with(self_statements=[{"content": "TOKEN LIMIT EXCEEDED", "about": [], "confidence": 1}]),
        {},
    ),
    "a self-statement's topic": (
        "reply",
        reply_with(self_statements=[{"content": "I baked bread", "about": ["this is blank"], "confidence": 1}]),
        {},
    ),
    "the turn's perception": ("reply", reply_with(perception=PERCEIVED | {"object": FAILURE_TEXT}), {}),
    "an insight": (
        "insights",
        {"insights": [{"text": "As an AI language model I cannot", "evidence": [1], "perception": PERCEIVED}]},
        {"statement_count": 2},
    ),
    "an insight's perception": (
        "insights",
        {"insights": [{"text": "Sam is nervous", "evidence": [1], "perception": PERCEIVED | {"subject": "Error:"}}]},
        {"statement_count": 2},
    ),
    "a memo's perception": ("memo", {"memo": "A quiet talk.", "perception": PERCEIVED | {"object": "lorem ipsum"}}, {}),
    "a focal question": ("focal_points", {"questions": ["How is Sam?", "TOKEN LIMIT EXCEEDED"]}, {}),
    # A provider's error pasted mid-sentence (the chaos suite's failure text): not a prefix, still refused.
    "a provider error inside a self-statement": (
        "reply",
        reply_with(
            self_statements=[
                {"content": 'I said Error code: 529 overloaded_error {"type": "error"}', "about": [], "confidence": 1}
            ]
        ),
        {},
    ),
    "a traceback in a fact's note": (
        "fact_extraction",
        {"facts": [FACT | {"object": "x Traceback (most recent call last): File"}]},
        {},
    ),
}


@pytest.mark.parametrize(
    "said",
    [
        "I fixed an error in my sourdough recipe",
        "Error handling is my least favourite part of knitting patterns",
        "my api keeps me busy",
        "the overloaded shelf finally broke",
    ],
)
def test_everyday_words_about_errors_are_not_failure_text(said):
    output = reply_with(self_statements=[{"content": said, "about": [], "confidence": 1}])
    assert parse_output("reply", json.dumps(output), {}).self_statements[0].content == said


@pytest.mark.parametrize("where", list(NESTED_FAILURES))
def test_failure_text_nested_anywhere_in_the_output_is_refused(where):
    kind, output, context = NESTED_FAILURES[where]
    with pytest.raises(OutputError, match="not an answer"):
        parse_output(kind, json.dumps(output), context)


def test_a_fact_with_failure_text_nested_is_never_stored(migrated_db, fake, monkeypatch):
    import tasks.ledger

    user = make_user()
    answering(fake, fact_extraction={"facts": [FACT, FACT | {"object": "TOKEN LIMIT EXCEEDED"}]})
    use_fake(monkeypatch, tasks.ledger, fake)
    extract(user, "I have a cat called Tom")
    assert user_facts(user) == []


def test_a_reply_with_failure_text_in_a_self_statement_writes_nothing_to_the_self_log(migrated_db, fake, monkeypatch):
    import adapters.reply_service

    user = make_user()
    bad = reply_with(self_statements=[{"content": "Error: context window exceeded", "about": [], "confidence": 1}])
    answering(fake, reply=bad)
    use_fake(monkeypatch, adapters.reply_service, fake)
    mid = ingest_turn(user, "What did you do today?")
    assert selflog(user) == []
    assert reply_to(mid).route == "fallback"


def test_an_insight_with_failure_text_in_its_perception_writes_no_thought(migrated_db, fake, monkeypatch):
    import tasks.memory
    from tests.test_memory_reflection import reflect_now, seed, thoughts

    user = f"of-{uuid.uuid4().hex[:8]}"
    seed(user)
    insight = {"text": "Sam is anxious", "evidence": [1, 2], "perception": PERCEIVED | {"object": "this is blank"}}
    answering(fake, insights={"insights": [insight]})
    use_fake(monkeypatch, tasks.memory, fake)
    assert reflect_now(user) == 0
    assert thoughts(user) == []


# -- item 8: NUL in nested output, JSON nested past the parser ------------------------------------------------


def test_a_nul_in_a_nested_fact_is_cleaned_before_the_commit(migrated_db, fake, monkeypatch):
    import tasks.ledger

    user = make_user()
    answering(fake, fact_extraction={"facts": [FACT | {"object": "a cat\x00 called Tom"}]})
    use_fake(monkeypatch, tasks.ledger, fake)
    extract(user, "I have a cat called Tom")
    assert [f.object for f in user_facts(user)] == ["a cat called Tom"]


def test_a_nul_in_a_replys_nested_output_is_cleaned_before_the_turn_is_committed(migrated_db, fake, monkeypatch):
    import adapters.reply_service

    user = make_user()
    fake.enqueue(fault="nul_in_strings")
    use_fake(monkeypatch, adapters.reply_service, fake)
    mid = ingest_turn(user, "What did you do today?")
    assert reply_to(mid).route == "generated"
    assert [e.content for e in selflog(user)] == ["I walked to the harbour this morning"]
    with autocommit_scope() as s:
        node = s.scalars(select(MemoryNode).where(MemoryNode.source_message_id == mid)).one_or_none()
    assert node is None or "\x00" not in f"{node.subject}{node.predicate}{node.object}"


def test_json_nested_5000_deep_is_refused_and_repaired_not_a_recursion_error(fake):
    """Without structured outputs (a schema constrains the answer, so the fake cannot nest it 5,000 deep)."""
    records: list[CallRecord] = []
    fake.enqueue(fault="deep_json")
    variables = {"name": "Sam", "message": "I have a cat", "today": "2026-11-30 (Monday)", "known": []}
    result = port_on(fake, records, structured_outputs=False).call("fact_extraction", variables)
    assert not result.failsafe and result.attempts == 2
    assert [r.outcome for r in records] == ["invalid_output", "repaired"]
    assert "nested too deep" in records[0].error

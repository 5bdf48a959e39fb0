"""Model failures through a real worker: Celery retries honour Retry-After, refusals are dead-lettered,
fail-safes go out as fallbacks, and the global limit holds across two worker processes."""

from __future__ import annotations

import time
import uuid
from datetime import UTC, datetime

import pytest
from sqlalchemy import select

from adapters.db import session_scope
from adapters.settings import get_settings
from gateway.client import enqueue_message
from models import DeadLetter, ModelCall, OutboxRecord
from tests.conftest import on_one_backend, wait_for
from tests.support.fake_anthropic import FakeAnthropic
from workers.app import app

pytestmark = pytest.mark.integration


@pytest.fixture
def fake():
    with FakeAnthropic() as server:
        yield server


def claude_env(fake: FakeAnthropic, **extra: str) -> dict[str, str]:
    return {
        "ELLA_LLM_PROVIDER": "anthropic",
        "ANTHROPIC_API_KEY": "test-key",
        "ANTHROPIC_BASE_URL": fake.base_url,
        "ELLA_LLM_SDK_MAX_RETRIES": "0",
        **extra,
    }


def reply_to(message_id: str) -> OutboxRecord | None:
    with session_scope() as s:
        return s.scalars(select(OutboxRecord).where(OutboxRecord.in_reply_to == message_id)).one_or_none()


def calls() -> list[ModelCall]:
    """The live reply's calls in the ledger (the worker also perceives each turn, with calls of its own)."""
    with session_scope() as s:
        return list(s.scalars(select(ModelCall).where(ModelCall.kind == "reply").order_by(ModelCall.id)))


def reply_requests(fake: FakeAnthropic) -> list[dict]:
    return [r for r in fake.message_requests if '<task kind="reply">' in r["body"]["system"][0]["text"]]


def send(text: str = "I have a job interview on Thursday") -> str:
    mid = f"mw-{uuid.uuid4().hex[:8]}"
    enqueue_message(message_id=mid, user_id="sam", text=text, sent_at=datetime.now(UTC))
    return mid


def test_a_429_becomes_a_celery_retry_after_the_retry_after_delay(start_worker, fake):
    start_worker(env=claude_env(fake))
    fake.enqueue(status=429, headers={"retry-after": "2"})
    mid = send()
    record = wait_for(lambda: reply_to(mid), 60, what="the reply after the retry")
    assert record.route == "generated"
    ledger = calls()
    assert [c.outcome for c in ledger] == ["transient_error", "ok"]
    assert (ledger[1].created_at - ledger[0].created_at).total_seconds() >= 2.0
    assert len(reply_requests(fake)) == 2


def test_a_529_is_retried_by_celery_and_then_answered(start_worker, fake):
    start_worker(env=claude_env(fake, ELLA_LLM_RETRY_BASE_S="0.2"))
    fake.enqueue(status=529)
    fake.enqueue(status=529)
    mid = send()
    assert wait_for(lambda: reply_to(mid), 60).route == "generated"
    assert [c.outcome for c in calls()] == ["transient_error", "transient_error", "ok"]


def test_a_400_is_not_retried_it_is_dead_lettered_and_the_user_gets_the_fallback(start_worker, fake):
    start_worker(env=claude_env(fake))
    fake.enqueue(status=400)
    mid = send()
    record = wait_for(lambda: reply_to(mid), 60, what="the fallback reply")
    assert record.route == "fallback"
    assert len(reply_requests(fake)) == 1
    with session_scope() as s:
        letters = s.scalars(select(DeadLetter)).all()
    refusals = [d for d in letters if "model refused the live reply" in d.reason]
    assert len(refusals) == 1, [(d.task_name, d.reason[:200]) for d in letters]
    letter = refusals[0]
    assert "model refused the live reply" in letter.reason and "400" in letter.reason
    assert letter.message_id == mid


def test_output_that_never_validates_goes_out_as_a_fallback_not_as_ellas_words(start_worker, fake):
    start_worker(env=claude_env(fake))
    fake.responder = lambda body: "this is blank"
    mid = send()
    record = wait_for(lambda: reply_to(mid), 60)
    assert record.route == "fallback" and "this is blank" not in record.text
    assert [c.outcome for c in calls()][-1] == "failsafe"


def test_two_workers_never_exceed_the_global_model_limit(start_worker, fake):
    # Six tasks queue for two slots: on a loaded machine (two test processes on two cores) a task can wait past
    # the suite's 5 s soft limit, which now reaches the model wait and dead-letters it. The cap is what is tested
    # here, so these workers get limits that fit the queue even beside a CPU burner on both cores (the messages
    # carry none of the sender's: ``EllaCelery.send_task``).
    # The slot wait is the model timeout: 60 s here, so a queued task waits for a slot instead of retrying.
    limits = {
        "ELLA_TASK_SOFT_TIME_LIMIT_S": "120",
        "ELLA_TASK_TIME_LIMIT_S": "130",
        "ELLA_VISIBILITY_TIMEOUT_S": "300",
        "ELLA_LLM_TIMEOUT_S": "60",
    }
    env = claude_env(fake, ELLA_LLM_MAX_CONCURRENCY="2", **limits)
    # Both start at once and are then waited for (one after the other, the second start-up waited on the first).
    workers = [start_worker(concurrency=3, env=env, wait=False) for _ in range(2)]
    for worker in workers:
        worker.wait_ready(app)
    fake.latency = 0.3
    ids = [send(f"message {i}") for i in range(12)]
    ceiling = get_settings().wait_ceiling_s  # generous (300 s): about 7 s on an idle machine
    deadline = time.monotonic() + ceiling
    while not all(reply_to(m) for m in ids):
        if time.monotonic() > deadline:  # say what was missing and why, not only that time ran out
            with session_scope() as s:
                letters = [(d.task_name, d.reason[:300]) for d in s.scalars(select(DeadLetter))]
            logs = "\n".join(w.log_path.read_text(errors="replace")[-4000:] for w in workers)
            missing = [m for m in ids if not reply_to(m)]
            pytest.fail(f"no reply to {missing} after {ceiling} s; dead letters {letters}; worker logs:\n{logs}")
        time.sleep(0.2)
    assert fake.max_in_flight == 2
    assert all(reply_to(m).route == "generated" for m in ids)


def test_the_reply_prompt_carries_retrieved_memories_and_marks_them_accessed(start_worker, fake):
    from models import MemoryNode

    start_worker(env=claude_env(fake))
    first = send("My dog Biscuit hurt his paw at the beach")
    wait_for(lambda: reply_to(first), 60)

    def node():
        with session_scope() as s:
            return s.scalars(select(MemoryNode).where(MemoryNode.source_message_id == first)).one_or_none()

    before = wait_for(node, 60, what="the first turn in memory").last_accessed_at
    second = send("How is Biscuit's paw going to heal?")
    wait_for(lambda: reply_to(second), 60)
    volatile = reply_requests(fake)[-1]["body"]["messages"][-1]["content"][0]["text"]
    assert "My dog Biscuit hurt his paw at the beach" in volatile
    # marked by the second turn's memory task (ella.perceive), which runs after its reply is published
    wait_for(lambda: node().last_accessed_at > before, 60, what="the retrieved memory marked as used")


@on_one_backend()
def test_a_message_carries_no_time_limits_of_its_sender(migrated_db, redis_client):
    """The worker that runs a task applies its own time limits: Celery 5.7 would stamp the sending process's
    (bound into its registered task from its configuration: here the suite's 5 s) into the message, where they
    beat the worker's (``EllaCelery.send_task``). Why on one back end: what is tested is the message, no SQL."""
    import json

    from adapters.settings import get_settings

    app.loader.import_default_modules()
    task = app.tasks["ella.ingest_message"]  # registered and bound here, as in a worker or beat
    assert task.soft_time_limit == get_settings().task_soft_time_limit_s, "bound from this process's settings"
    queue = get_settings().queue_inbound
    redis_client.delete(queue)
    try:
        send("hello")  # gateway.client: app.send_task by name
        task.apply_async(kwargs={"message_id": "m-x", "user_id": "sam", "text": "hi"}, queue=queue)
        headers = [json.loads(raw)["headers"] for raw in redis_client.lrange(queue, 0, -1)]
    finally:
        redis_client.delete(queue)
    assert len(headers) == 2
    assert [h.get("timelimit") for h in headers] == [[None, None], [None, None]]

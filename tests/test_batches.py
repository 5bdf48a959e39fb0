"""The Message Batches service through the real anthropic SDK against the loopback API, on SQLite and PostgreSQL.

What is pinned: the whole lifecycle (queue, flush, poll before and after the end), each result applied at most
once however often or concurrently polls run (also after a crash mid-apply), re-submission of errored and
expired requests up to ``batch_max_submissions`` and then a dead letter, fail-safes never reaching a handler,
a failing handler rolled back and given up, chunking, refused and abandoned submissions, the usage rows, the
offline fallback that answers at once, and the Celery tasks in a real worker.
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from adapters import model_batches as batches
from adapters.db import session_scope
from adapters.settings import Settings, get_settings
from ella.llm import batches as batch_rules
from ella.llm.anthropic_provider import AnthropicProvider
from ella.llm.offline import OfflineProvider
from ella.llm.port import ModelPort, ModelResult
from ella.llm.types import PermanentModelError
from models import DeadLetter, ModelBatch, ModelBatchItem, ModelCall, User
from models import batch as store
from models.base import utcnow
from tests.conftest import wait_for
from tests.support.fake_anthropic import FakeAnthropic, default_answer

TIERS = Settings().model_tiers
PURPOSE = "test_memo"
BAD = "MARK-BAD-OUTPUT"


def memo_item(custom_id: str, text: str = "Sam: I have an interview on Thursday") -> tuple[Any, ...]:
    return (custom_id, "memo", {"name": "Sam", "transcript": [text]}, f"user-{custom_id}", {})


class Recorder:
    """A handler that remembers each call and writes a user row in the item's transaction."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, ModelResult[Any]]] = []
        self.fail_for: set[str] = set()
        self.crash_for: set[str] = set()
        self.delay = 0.0
        self._lock = threading.Lock()

    def __call__(self, session: Session, item: ModelBatchItem, result: ModelResult[Any]) -> None:
        session.add(User(id=f"batch-{item.custom_id}"))
        session.flush()
        time.sleep(self.delay)
        if item.custom_id in self.crash_for:
            self.crash_for.discard(item.custom_id)
            raise Crash(item.custom_id)
        if item.custom_id in self.fail_for:
            raise ValueError(f"cannot use {item.custom_id}")
        with self._lock:
            self.calls.append((item.custom_id, result))

    @property
    def ids(self) -> Counter[str]:
        return Counter(cid for cid, _ in self.calls)


class Crash(BaseException):
    """Stands in for the worker dying mid-apply (not an Exception: nothing may catch it)."""


@pytest.fixture
def fake() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as server:
        yield server


@pytest.fixture
def port(fake: FakeAnthropic) -> ModelPort:
    return ModelPort(AnthropicProvider(api_key="k", base_url=fake.base_url, timeout=5, max_retries=0), TIERS)


@pytest.fixture
def handler(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    monkeypatch.setattr(batch_rules, "_HANDLERS", {})
    recorder = Recorder()
    batches.register_batch_handler(PURPOSE, recorder)
    return recorder


def items() -> dict[str, ModelBatchItem]:
    with session_scope() as s:
        return {i.custom_id: i for i in s.scalars(select(ModelBatchItem))}


def model_batches() -> list[ModelBatch]:
    with session_scope() as s:
        return list(s.scalars(select(ModelBatch).order_by(ModelBatch.id)))


def count(model: Any, *where: Any) -> int:
    with session_scope() as s:
        return s.scalar(select(func.count()).select_from(model).where(*where)) or 0


def submitted_batches(fake: FakeAnthropic) -> list[list[str]]:
    """The custom_ids of every batch the fake received, in order."""
    return [
        [r["custom_id"] for r in req["body"]["requests"]]
        for req in fake.requests
        if req["method"] == "POST" and req["path"] == "/v1/messages/batches"
    ]


def test_full_lifecycle_applies_each_result_once(migrated_db, fake, port, handler):
    ids = ["memo-a", "memo-b", "memo-c"]
    assert batches.submit(PURPOSE, [memo_item(i) for i in ids]) == ids
    assert {i.status for i in items().values()} == {"pending"}

    report = batches.flush_pending(port)
    assert report.submitted == 3 and len(report.batches) == 1
    assert submitted_batches(fake) == [ids]
    [batch] = model_batches()
    assert batch.status == "in_progress" and batch.provider_batch_id == report.batches[0] and batch.item_count == 3
    assert all(i.status == "submitted" and i.submissions == 1 and i.batch_id == batch.id for i in items().values())
    assert batches.flush_pending(port).submitted == 0  # nothing is pending any more

    fake.batch_polls_to_end = 2
    before_end = batches.poll(port)
    assert before_end.waiting == 1 and not before_end.outcomes and handler.calls == []
    assert {i.status for i in items().values()} == {"submitted"}

    after_end = batches.poll(port)
    assert after_end.outcomes == {"applied": 3} and after_end.waiting == 0
    assert handler.ids == Counter(ids)
    for _cid, result in handler.calls:
        assert result.failsafe is False and result.kind == "memo" and result.value.memo
        assert result.model == TIERS["reflection"] and result.usage.output_tokens > 0
    rows = items()
    assert all(r.status == "applied" and r.applied_at is not None and r.error is None for r in rows.values())
    assert json.loads(rows["memo-a"].result)["memo"]
    [batch] = model_batches()
    assert batch.status == "ended" and batch.ended_at is not None
    assert count(User, User.id.in_([f"batch-{i}" for i in ids])) == 3  # the handler's writes committed

    again = batches.poll(port)
    assert not again.outcomes and again.waiting == 0 and handler.ids == Counter(ids)

    # Usage: one model_calls row per request, marked as served by the batch API.
    with session_scope() as s:
        calls = list(s.scalars(select(ModelCall)))
    assert len(calls) == 3 and all(c.batch and c.outcome == "ok" and c.provider == "anthropic" for c in calls)
    assert {c.user_id for c in calls} == {f"user-{i}" for i in ids}
    assert all(c.model == TIERS["reflection"] and c.tier == "reflection" and c.output_tokens > 0 for c in calls)

    # Re-submitting an applied custom_id is a no-op: nothing queued, nothing sent, nothing applied again.
    assert batches.submit(PURPOSE, [memo_item("memo-a", "Sam: something else entirely")]) == []
    assert batches.flush_pending(port).submitted == 0 and len(submitted_batches(fake)) == 1
    assert items()["memo-a"].status == "applied" and items()["memo-a"].submissions == 1


def test_errored_and_expired_requests_are_resubmitted_then_given_up(migrated_db, fake, port, handler):
    fake.batch_outcomes = {"r-err": "errored", "r-exp": "expired"}
    batches.submit(PURPOSE, [memo_item("r-ok"), memo_item("r-err"), memo_item("r-exp")])
    limit = get_settings().batch_max_submissions
    assert limit == 3

    for round_ in range(1, limit + 1):
        report = batches.flush_pending(port)
        assert report.submitted == (3 if round_ == 1 else 2)
        polled = batches.poll(port)
        rows = items()
        assert rows["r-err"].submissions == rows["r-exp"].submissions == round_
        if round_ < limit:
            assert polled.outcomes["retry"] == 2
            assert rows["r-err"].status == rows["r-exp"].status == "pending"
            assert "errored" in rows["r-err"].error and rows["r-exp"].error == "expired"
            assert count(DeadLetter) == 0
    assert submitted_batches(fake) == [["r-ok", "r-err", "r-exp"], ["r-err", "r-exp"], ["r-err", "r-exp"]]
    assert polled.outcomes == {"gave_up": 2}
    rows = items()
    assert rows["r-ok"].status == "applied" and rows["r-ok"].submissions == 1
    assert rows["r-err"].status == rows["r-exp"].status == "gave_up"
    assert handler.ids == Counter(["r-ok"])
    with session_scope() as s:
        letters = list(s.scalars(select(DeadLetter).order_by(DeadLetter.id)))
    assert [d.task_name for d in letters] == ["ella.model_batch_item"] * 2
    assert {d.user_id for d in letters} == {"user-r-err", "user-r-exp"}
    by_id = {json.loads(d.payload)["kwargs"]["custom_id"]: d for d in letters}
    assert "after 3 submissions" in by_id["r-err"].reason and "errored" in by_id["r-err"].reason
    assert "expired" in by_id["r-exp"].reason
    assert json.loads(by_id["r-exp"].payload)["kwargs"]["variables"]["name"] == "Sam"  # enough to queue it again
    assert all(b.status == "ended" for b in model_batches())

    assert batches.flush_pending(port).submitted == 0  # given up is final
    with session_scope() as s:
        outcomes = Counter(s.scalars(select(ModelCall.outcome).where(ModelCall.batch.is_(True))))
        zero = s.scalar(select(func.max(ModelCall.output_tokens)).where(ModelCall.outcome != "ok"))
    assert outcomes == {"ok": 1, "errored": 3, "expired": 3} and zero == 0


def test_invalid_output_ends_failsafe_and_never_reaches_the_handler(migrated_db, fake, port, handler):
    fake.responder = lambda body: "not json" if BAD in json.dumps(body) else default_answer(body)
    batches.submit(PURPOSE, [memo_item("good-1"), memo_item("bad-1", f"Sam: {BAD}"), memo_item("good-2")])
    batches.flush_pending(port)
    report = batches.poll(port)
    assert report.outcomes == {"applied": 2, "failsafe": 1}
    assert handler.ids == Counter(["good-1", "good-2"])
    bad = items()["bad-1"]
    assert bad.status == "failsafe" and "JSON" in bad.error and bad.result is None and bad.applied_at is None
    assert count(User, User.id == "batch-bad-1") == 0
    assert count(ModelCall, ModelCall.outcome == "failsafe", ModelCall.batch.is_(True)) == 1
    assert batches.flush_pending(port).submitted == 0  # a fail-safe is final: no re-submission
    assert [b.status for b in model_batches()] == ["ended"]


def test_a_poll_after_a_crash_mid_apply_applies_each_result_once(migrated_db, fake, port, handler):
    ids = ["crash-1", "crash-2", "crash-3"]
    batches.submit(PURPOSE, [memo_item(i) for i in ids])
    batches.flush_pending(port)
    handler.crash_for = {"crash-2"}
    with pytest.raises(Crash):
        batches.poll(port)
    rows = items()
    assert [rows[i].status for i in ids] == ["applied", "submitted", "submitted"]
    assert count(User, User.id == "batch-crash-2") == 0  # the crashed transaction left nothing behind
    assert model_batches()[0].status == "in_progress"

    report = batches.poll(port)  # reads the whole batch again
    assert report.outcomes == {"skipped": 1, "applied": 2}
    assert handler.ids == Counter(ids)
    assert count(User, User.id.in_([f"batch-{i}" for i in ids])) == 3
    assert count(ModelCall) == 3  # the skipped result is not counted twice


def test_concurrent_polls_apply_each_result_once(migrated_db, fake, port, handler):
    ids = [f"conc-{n}" for n in range(6)]
    batches.submit(PURPOSE, [memo_item(i) for i in ids])
    batches.flush_pending(port)
    handler.delay = 0.05  # hold each item's lock a while, so the two polls collide
    with ThreadPoolExecutor(2) as pool:
        reports = [f.result(timeout=60) for f in [pool.submit(batches.poll, port) for _ in range(2)]]
    assert handler.ids == Counter(ids)
    assert sum(r.outcomes["applied"] for r in reports) == 6
    assert count(ModelCall) == 6 and {i.status for i in items().values()} == {"applied"}


def test_a_failing_handler_is_rolled_back_and_its_item_given_up(migrated_db, fake, port, handler):
    handler.fail_for = {"h-bad"}
    with session_scope() as s:  # the handler's insert for h-dup will hit the unique key: a failed flush
        s.add(User(id="batch-h-dup"))
    batches.submit(PURPOSE, [memo_item("h-ok"), memo_item("h-bad"), memo_item("h-dup")])
    batches.flush_pending(port)
    report = batches.poll(port)
    assert report.outcomes == {"applied": 1, "gave_up": 2}
    rows = items()
    assert rows["h-bad"].status == "gave_up" and "ValueError: cannot use h-bad" in rows["h-bad"].error
    assert rows["h-dup"].status == "gave_up" and "IntegrityError" in rows["h-dup"].error
    assert json.loads(rows["h-bad"].result)["memo"]  # the output is kept, to replay once the handler is fixed
    assert count(User, User.id == "batch-h-bad") == 0 and count(User, User.id == "batch-h-ok") == 1
    assert count(DeadLetter, DeadLetter.task_name == "ella.model_batch_item") == 2
    assert count(ModelCall, ModelCall.outcome == "ok") == 3  # the tokens were spent all the same
    assert [b.status for b in model_batches()] == ["ended"]


def test_an_item_without_a_handler_in_this_process_waits_for_a_later_poll(migrated_db, fake, port, handler):
    batches.submit(PURPOSE, [memo_item("wait-1")])
    batches.flush_pending(port)
    batch_rules._HANDLERS.clear()
    assert batches.poll(port).outcomes == {"deferred": 1}
    assert items()["wait-1"].status == "submitted" and model_batches()[0].status == "in_progress"
    assert count(ModelCall) == 0
    batches.register_batch_handler(PURPOSE, handler)
    assert batches.poll(port).outcomes == {"applied": 1}
    assert model_batches()[0].status == "ended" and handler.ids == Counter(["wait-1"])


def test_pending_items_are_sent_in_chunks(migrated_db, fake, port, handler):
    batches.submit(PURPOSE, [memo_item(f"chunk-{n}") for n in range(5)])
    report = batches.flush_pending(port, chunk_size=2)
    assert report.submitted == 5 and len(report.batches) == 3
    assert submitted_batches(fake) == [["chunk-0", "chunk-1"], ["chunk-2", "chunk-3"], ["chunk-4"]]
    assert batches.poll(port).outcomes == {"applied": 5}


def test_a_refused_submission_puts_the_items_back_uncounted(migrated_db, fake, port, handler):
    batches.submit(PURPOSE, [memo_item("ref-1"), memo_item("ref-2")])
    fake.api_key = "another-key"  # 401: permanent
    with pytest.raises(PermanentModelError):
        batches.flush_pending(port)
    assert all(i.status == "pending" and i.submissions == 0 and "401" in i.error for i in items().values())
    assert [b.status for b in model_batches()] == ["failed"]
    fake.api_key = None
    assert batches.flush_pending(port).submitted == 2
    assert batches.poll(port).outcomes == {"applied": 2}


def test_a_batch_abandoned_while_submitting_is_requeued(migrated_db, fake, port, handler):
    batches.submit(PURPOSE, [memo_item("stale-1"), memo_item("stale-2")])
    with session_scope() as s:  # a flush claimed them, then its worker died before the provider answered
        batch = store.start_batch(s, "anthropic", store.pending_items(s, 10))
        stale_id = batch.id
    with session_scope() as s:
        s.execute(
            update(ModelBatch).where(ModelBatch.id == stale_id).values(submitted_at=utcnow() - timedelta(hours=1))
        )
    report = batches.flush_pending(port)
    assert report.outcomes == {"retry": 2} and report.submitted == 2
    assert [b.status for b in model_batches()] == ["failed", "in_progress"]
    assert all(i.submissions == 2 and i.status == "submitted" for i in items().values())
    assert batches.poll(port).outcomes == {"applied": 2}


def test_a_fresh_submitting_batch_is_left_alone(migrated_db, fake, port, handler):
    batches.submit(PURPOSE, [memo_item("fresh-1")])
    with session_scope() as s:  # another flush is submitting it right now
        store.start_batch(s, "anthropic", store.pending_items(s, 10))
    assert batches.flush_pending(port).submitted == 0
    assert items()["fresh-1"].status == "submitted" and model_batches()[0].status == "submitting"


def test_an_item_whose_request_can_no_longer_be_built_is_given_up_at_flush(migrated_db, fake, port, handler):
    batches.submit(PURPOSE, [memo_item("tpl-ok"), memo_item("tpl-broken")])
    with session_scope() as s:  # as if the memo template had gained a variable since it was queued
        s.execute(update(ModelBatchItem).where(ModelBatchItem.custom_id == "tpl-broken").values(variables="{}"))
    assert batches.flush_pending(port).submitted == 1
    assert submitted_batches(fake) == [["tpl-ok"]]
    broken = items()["tpl-broken"]
    assert broken.status == "gave_up" and "cannot build the request" in broken.error
    assert count(DeadLetter, DeadLetter.task_name == "ella.model_batch_item") == 1


def test_submit_refuses_what_could_never_be_sent(migrated_db, handler):
    with pytest.raises(ValueError, match="no batch handler"):
        batches.submit("nobody_handles_this", [memo_item("x-1")])
    with pytest.raises(ValueError, match="custom_id"):
        batches.submit(PURPOSE, [memo_item("has space")])
    with pytest.raises(ValueError, match="unknown prompt kind"):
        batches.submit(PURPOSE, [("x-2", "haiku", {}, None, {})])
    with pytest.raises(ValueError, match="transcript"):
        batches.submit(PURPOSE, [("x-3", "memo", {"name": "Sam"}, None, {})])
    assert items() == {}
    with pytest.raises(ValueError, match="already has a handler"):
        batches.register_batch_handler(PURPOSE, Recorder())


def test_submit_in_the_callers_transaction_and_duplicates_in_one_call(migrated_db, handler):
    with session_scope() as s:
        assert batches.submit(PURPOSE, [memo_item("tx-1"), memo_item("tx-1")], session=s) == ["tx-1"]
        s.rollback()  # the caller's transaction decides
    assert items() == {}
    assert batches.submit(PURPOSE, [batches.NewBatchItem("tx-1", "memo", {"name": "S", "transcript": []})]) == ["tx-1"]
    assert items()["tx-1"].user_id is None and store.context_of(items()["tx-1"]) == {}


def test_offline_provider_answers_at_flush(migrated_db, handler):
    port = ModelPort(OfflineProvider(), TIERS)
    batches.submit(PURPOSE, [memo_item("off-1"), memo_item("off-2")])
    report = batches.flush_pending(port)
    assert report.submitted == 2 and report.batches == [] and report.outcomes == {"applied": 2}
    assert handler.ids == Counter(["off-1", "off-2"])
    assert all(r.value.memo.startswith("talked with Sam") for _, r in handler.calls)
    assert {i.status for i in items().values()} == {"applied"}
    assert [(b.provider, b.status, b.provider_batch_id) for b in model_batches()] == [("offline", "ended", None)]
    assert not batches.poll(port).outcomes  # nothing in flight
    with session_scope() as s:
        calls = list(s.scalars(select(ModelCall)))
    assert [(c.provider, c.batch, c.outcome) for c in calls] == [("offline", False, "ok")] * 2
    assert batches.flush_pending(port).submitted == 0


@pytest.mark.integration
def test_the_celery_tasks_flush_and_poll_in_a_real_worker(start_worker, fake):
    from tests.support import batch_handlers
    from workers.app import app

    start_worker(
        extra_args=["-I", "tests.support.batch_handlers"],
        env={"ELLA_LLM_PROVIDER": "anthropic", "ELLA_ANTHROPIC_API_KEY": "k", "ELLA_ANTHROPIC_BASE_URL": fake.base_url},
    )
    batches.register_batch_handler(batch_handlers.PURPOSE, batch_handlers.mark_user)  # here too, to submit
    ids = ["task-1", "task-2"]
    batches.submit(batch_handlers.PURPOSE, [memo_item(i) for i in ids])
    app.send_task("ella.flush_model_batches")
    wait_for(lambda: submitted_batches(fake) == [ids], 30, what="the worker's batch submission")
    wait_for(lambda: {i.status for i in items().values()} == {"submitted"}, 30, what="items marked submitted")
    app.send_task("ella.poll_model_batches")
    wait_for(lambda: {i.status for i in items().values()} == {"applied"}, 30, what="results applied")
    assert count(User, User.id.in_([f"batch-{i}" for i in ids])) == 2
    # Usage is written after the item's transaction commits (adapters/model_batches.py: settle), so it may trail it.
    wait_for(lambda: count(ModelCall, ModelCall.batch.is_(True)) == 2, 30, what="one usage row per settled item")
    assert count(ModelCall, ModelCall.batch.is_(True)) == 2
    assert model_batches()[0].status == "ended"


# --- the decisions alone (ella.llm.batches): no database, no provider --------------------------------------------


@pytest.mark.domain
def test_a_result_reads_as_answered_failsafe_or_no_answer():
    from ella.llm.kinds import Memo
    from ella.llm.types import BatchResult, Completion, Usage

    def done(text: str) -> BatchResult:
        return BatchResult("r-1", "succeeded", Completion(text, "m", Usage(output_tokens=5)))

    answered = batch_rules.read_result(done(Memo.example().model_dump_json()), "memo", {})
    assert answered.outcome == batch_rules.ANSWERED and isinstance(answered.value, Memo)
    failsafe = batch_rules.read_result(done("not json"), "memo", {})
    assert failsafe.outcome == batch_rules.FAILSAFE and failsafe.value is None and "JSON" in failsafe.reason
    errored = batch_rules.read_result(BatchResult("r-1", "errored", error="overloaded"), "memo", {})
    assert (errored.outcome, errored.reason) == (batch_rules.NO_ANSWER, "errored: overloaded")
    assert batch_rules.read_result(BatchResult("r-1", "expired"), "memo", {}).reason == "expired"


@pytest.mark.domain
def test_no_answer_is_retried_until_the_submissions_run_out():
    assert [batch_rules.retry_or_give_up(n, 3) for n in (1, 2, 3, 4)] == ["retry", "retry", "gave_up", "gave_up"]


@pytest.mark.domain
def test_the_usage_of_a_settled_request_names_its_outcome_and_tokens():
    from ella.llm.types import BatchResult, Completion, Usage

    attempt = batch_rules.Attempt("u-1", "memo", "sam", 2)
    done = BatchResult("u-1", "succeeded", Completion("{}", "claude-x", Usage(input_tokens=7, output_tokens=3)))
    ok = batch_rules.usage_record(attempt, done, "applied", provider="anthropic", default_model="d", latency_ms=1.0)
    assert (ok.outcome, ok.model, ok.usage.output_tokens, ok.tier, ok.attempt) == ("ok", "claude-x", 3, "reflection", 2)
    bad = batch_rules.usage_record(attempt, done, "failsafe", provider="anthropic", default_model="d", latency_ms=1.0)
    assert bad.outcome == "failsafe" and bad.usage.input_tokens == 7
    lost = BatchResult("u-1", "expired")
    gone = batch_rules.usage_record(attempt, lost, "retry", provider="anthropic", default_model="d", latency_ms=1.0)
    assert (gone.outcome, gone.model, gone.usage.output_tokens) == ("expired", "d", 0)

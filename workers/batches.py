"""The Message Batches service: queue model requests now, have them answered within the day at half the price.

Why: the daily digest and the weekly distillation need no answer in seconds, and a batch costs half. A job
registers a handler for its ``purpose`` and ``submit``s requests under its own stable ``custom_id``s;
``flush_pending`` sends what is queued (one batch per 10,000 requests), ``poll`` reads the batches that have
ended and applies each result. A provider without batches (the offline engine) is answered at once by
``flush_pending``, through the same apply path, so the demo runs with no API key.

The rules, in one place:

* Each result is applied at most once. In one transaction per item the row is re-read under lock and applied
  only while it is still ``submitted`` under *this* batch; the handler writes in that same transaction. A
  poll that runs twice, runs concurrently, or re-reads a batch after a crash skips what is settled.
* A handler only ever sees a valid output: ``result.failsafe`` is always False. An output that fails its
  kind's schema marks the item ``failsafe`` with the error and calls no handler (a batch has no repair round
  trip, and a fail-safe must never be stored as a memory or a fact).
* ``errored``, ``expired`` and ``canceled`` requests go back to ``pending`` for the next flush until they have
  been submitted ``batch_max_submissions`` times; then the item is ``gave_up`` and dead-lettered.
* A handler that raises has its writes rolled back, and its item is ``gave_up`` and dead-lettered with the
  validated output kept in ``result`` for a replay; the batch still ends and the other items go on.
  ``OperationalError`` (the database went away) is not the handler's fault: it propagates, for a retry.
* An item whose purpose has no handler in this process stays ``submitted`` and its batch in progress, so the
  next poll (in a worker that imported the handler's module) applies it.
* Usage goes to the ledger after the item's transaction commits, once per settled request: a crash in
  between can lose a ledger row but never counts one twice. (On SQLite a second connection cannot write
  while the item's transaction holds the write lock, so the ledger row cannot share that transaction.)
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol, runtime_checkable

from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from ella.llm.anthropic_provider import BatchResult
from ella.llm.kinds import KINDS, OutputError, parse_output
from ella.llm.port import CallRecord, ModelPort, ModelResult
from ella.llm.prompts import build_request
from ella.llm.types import Completion, CompletionRequest, ModelError, Usage
from models import batch as store
from models.base import utcnow
from models.batch import ModelBatchItem, NewBatchItem
from workers.db import session_scope
from workers.dead_letters import record_dead_letter
from workers.llm import get_port, record_call
from workers.settings import get_settings

log = logging.getLogger(__name__)

MAX_BATCH_REQUESTS = 10_000  # the Message Batches API's cap on requests per batch
CUSTOM_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")  # what the API accepts as a custom_id
DEAD_LETTER_TASK = "ella.model_batch_item"

# What settling one result did (the keys of BatchReport.outcomes).
APPLIED = "applied"
FAILSAFE = "failsafe"
RETRY = "retry"  # back to pending for the next flush
GAVE_UP = "gave_up"
SKIPPED = "skipped"  # already settled, or now waiting on a later batch
DEFERRED = "deferred"  # no handler for its purpose in this process

BatchHandler = Callable[[Session, ModelBatchItem, ModelResult[Any]], None]
_HANDLERS: dict[str, BatchHandler] = {}


@runtime_checkable
class BatchProvider(Protocol):
    """A provider that can take a batch (the Anthropic SDK one); any other is answered request by request."""

    name: str

    def submit_batch(self, requests: list[tuple[str, CompletionRequest]]) -> str: ...

    def batch_status(self, batch_id: str) -> str: ...

    def batch_results(self, batch_id: str) -> Iterator[BatchResult]: ...


@dataclass
class BatchReport:
    """What a flush or a poll did: provider batch ids submitted, requests sent, batches still running, outcomes."""

    batches: list[str] = field(default_factory=list)
    submitted: int = 0
    waiting: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)

    def as_dict(self) -> dict[str, Any]:
        return {"batches": self.batches, "submitted": self.submitted, "waiting": self.waiting, **self.outcomes}


class HandlerFailed(Exception):
    """A handler raised: its writes are rolled back and its item given up, with the output kept for a replay."""

    def __init__(self, output_json: str, reason: str) -> None:
        super().__init__(reason)
        self.output_json = output_json
        self.reason = reason


# --- handlers -------------------------------------------------------------------------------------------------


def register_batch_handler(purpose: str, fn: BatchHandler, *, replace: bool = False) -> BatchHandler:
    """Make ``fn(session, item, result)`` apply the results of ``purpose``; register at import of the job's module.

    ``fn`` writes what the result means in ``session`` (the item's transaction) and nothing elsewhere: it is
    called at most once per item, only with a valid output (``result.failsafe`` is False), and its writes
    commit together with the item becoming ``applied``. It must not call the model or send anything itself.
    """
    if not 1 <= len(purpose) <= 64:
        raise ValueError(f"a purpose is 1 to 64 characters, got {purpose!r}")
    existing = _HANDLERS.get(purpose)
    if existing is not None and existing is not fn and not replace:
        raise ValueError(f"purpose {purpose!r} already has a handler: {existing!r}")
    _HANDLERS[purpose] = fn
    return fn


# --- submitting -----------------------------------------------------------------------------------------------


def _checked(raw: NewBatchItem | tuple[Any, ...]) -> NewBatchItem:
    """Refuse now what could never be sent: a bad custom_id, an unknown kind, a variable the template lacks."""
    item = NewBatchItem(*raw)
    if not isinstance(item.custom_id, str) or not CUSTOM_ID.match(item.custom_id):
        raise ValueError(f"custom_id must match {CUSTOM_ID.pattern}, got {item.custom_id!r}")
    if item.kind not in KINDS:
        raise ValueError(f"{item.custom_id}: unknown prompt kind {item.kind!r}")
    if item.user_id is not None and len(item.user_id) > 128:
        raise ValueError(f"{item.custom_id}: user_id longer than 128 characters")
    json.dumps(item.variables)
    json.dumps(item.context or {})
    try:
        build_request(item.kind, item.variables, model="-", tier=KINDS[item.kind].tier)
    except KeyError as exc:
        raise ValueError(f"{item.custom_id}: the {item.kind} template needs the variable {exc}") from None
    return item


def submit(
    purpose: str, items: Iterable[NewBatchItem | tuple[Any, ...]], *, session: Session | None = None
) -> list[str]:
    """Queue requests ``(custom_id, kind, variables, user_id, context)``; return the custom_ids newly queued.

    A custom_id already known, in whatever state (queued, in flight, applied, given up), is left alone: the
    caller's custom_id is the idempotency key, so make it say what the request is for (``digest-u42-2026-11-29``).
    Pass ``session`` to queue in the caller's own transaction (on SQLite, a second transaction would wait
    for the caller's to end); otherwise this opens and commits one.
    """
    if purpose not in _HANDLERS:
        raise ValueError(f"no batch handler is registered for purpose {purpose!r}")
    checked = [_checked(item) for item in items]
    if session is not None:
        return store.enqueue_items(session, purpose, checked)
    with session_scope() as own:
        return store.enqueue_items(own, purpose, checked)


def _payload(item: ModelBatchItem) -> dict[str, Any]:
    """An item as a dead letter carries it: enough to see what it was and to queue it again."""
    return {
        "custom_id": item.custom_id,
        "purpose": item.purpose,
        "kind": item.kind,
        "user_id": item.user_id,
        "submissions": item.submissions,
        "variables": store.variables_of(item),
        "context": store.context_of(item),
    }


def _dead_letter(payload: dict[str, Any], reason: str) -> None:
    record_dead_letter(DEAD_LETTER_TASK, None, f"{payload['custom_id']}: {reason}", [], payload)


def _retry_or_give_up(item: ModelBatchItem, reason: str) -> str:
    """An attempt that brought no answer: back to ``pending`` while submissions remain, else ``gave_up``."""
    item.error = reason[:10_000]
    if item.submissions < get_settings().batch_max_submissions:
        item.status = store.PENDING
        return RETRY
    item.status = store.GAVE_UP
    return GAVE_UP


def requeue_stale(report: BatchReport | None = None) -> BatchReport:
    """Batches left ``submitting`` by a worker lost mid-flush: their items go back to the queue (or give up).

    A flush cannot outlive the task's hard time limit, so a ``submitting`` row older than that is orphaned.
    The provider may have received it; its submission counts, and its results (if any) are never read.
    """
    report = report or BatchReport()
    before = utcnow() - timedelta(seconds=get_settings().task_time_limit_s)
    given_up: list[dict[str, Any]] = []
    with session_scope() as session:
        for batch in store.batches_in_status(session, store.SUBMITTING, before=before):
            log.warning("model batch %d was left submitting since %s; its items go back", batch.id, batch.submitted_at)
            for item in store.fail_batch(session, batch.id):
                outcome = _retry_or_give_up(item, "its batch was abandoned while being submitted")
                report.outcomes[outcome] += 1
                if outcome == GAVE_UP:
                    given_up.append(_payload(item))
    for payload in given_up:
        _dead_letter(payload, "abandoned while submitting, out of submissions")
    return report


def _claim(port: ModelPort, size: int) -> tuple[int, list[tuple[str, CompletionRequest]]] | None:
    """Claim up to ``size`` pending items under a new ``submitting`` batch; None when nothing is pending.

    An item whose request can no longer be built (its template or kind changed since it was queued) is
    given up here: no later attempt would do better.
    """
    broken: list[tuple[dict[str, Any], str]] = []
    claimed: tuple[int, list[tuple[str, CompletionRequest]]] | None = None
    with session_scope() as session:
        while claimed is None:
            items = store.pending_items(session, size)
            if not items:
                break
            requests: list[tuple[str, CompletionRequest]] = []
            good: list[ModelBatchItem] = []
            for item in items:
                try:
                    request = port.request(item.kind, store.variables_of(item), user_id=item.user_id)
                except (KeyError, ValueError) as exc:
                    item.status = store.GAVE_UP
                    item.error = f"cannot build the request: {type(exc).__name__}: {exc}"[:10_000]
                    broken.append((_payload(item), item.error))
                    continue
                requests.append((item.custom_id, request))
                good.append(item)
            if good:
                claimed = (store.start_batch(session, port.provider.name, good).id, requests)
    for payload, reason in broken:
        _dead_letter(payload, reason)
    return claimed


def _send(provider: BatchProvider, batch_id: int, requests: list[tuple[str, CompletionRequest]]) -> str:
    """Hand the claimed items to the provider; if it refuses, they go back to the queue uncounted."""
    try:
        provider_batch_id = provider.submit_batch(requests)
    except ModelError as exc:
        with session_scope() as session:
            for item in store.fail_batch(session, batch_id):
                item.status = store.PENDING
                item.submissions -= 1
                item.error = f"batch submission failed: {exc}"[:10_000]
        raise
    with session_scope() as session:
        store.confirm_batch(session, batch_id, provider_batch_id)
    log.info("submitted model batch %s with %d requests", provider_batch_id, len(requests))
    return provider_batch_id


def _answer_now(
    port: ModelPort, batch_id: int, requests: list[tuple[str, CompletionRequest]], report: BatchReport
) -> None:
    """No batches at this provider: answer each request now and settle it exactly as a batch result would be."""
    for custom_id, request in requests:
        started = time.perf_counter()
        try:
            with port.slot():
                completion = port.provider.complete(request)
            result = BatchResult(custom_id, "succeeded", completion)
        except ModelError as exc:
            result = BatchResult(custom_id, "errored", error=str(exc))
        latency_ms = (time.perf_counter() - started) * 1000
        report.outcomes[settle(port, batch_id, result, latency_ms=latency_ms, batched=False)] += 1
    with session_scope() as session:
        for item in store.items_in_batch(session, batch_id):  # deferred: no handler here; not an attempt
            item.status = store.PENDING
            item.submissions -= 1
        store.end_batch(session, batch_id)


def flush_pending(
    port: ModelPort | None = None, *, chunk_size: int = MAX_BATCH_REQUESTS, max_batches: int = 20
) -> BatchReport:
    """Send every pending item (up to ``max_batches`` batches of ``chunk_size``), or answer it now offline.

    A provider error on submission puts that chunk back in the queue uncounted and is raised (the task's
    retry policy applies); chunks sent before it stay sent.
    """
    port = port or get_port()
    report = requeue_stale()
    size = max(1, min(chunk_size, MAX_BATCH_REQUESTS))
    provider = port.provider
    for _ in range(max_batches):
        claimed = _claim(port, size)
        if claimed is None:
            break
        batch_id, requests = claimed
        if isinstance(provider, BatchProvider):
            report.batches.append(_send(provider, batch_id, requests))
            report.submitted += len(requests)
        else:
            report.submitted += len(requests)
            _answer_now(port, batch_id, requests, report)
    return report


# --- applying results -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Attempt:
    """What the ledger needs of an item, read while it was locked."""

    custom_id: str
    kind: str
    user_id: str | None
    submissions: int


def _apply_completion(session: Session, item: ModelBatchItem, completion: Completion) -> str:
    try:
        value = parse_output(item.kind, completion.text, store.context_of(item))
    except OutputError as exc:
        item.status = store.FAILSAFE
        item.error = str(exc)[:10_000]
        return FAILSAFE
    handler = _HANDLERS.get(item.purpose)
    if handler is None:
        log.error(
            "no batch handler for purpose %r in this process; %s waits for the next poll", item.purpose, item.custom_id
        )
        return DEFERRED
    output_json, purpose = value.model_dump_json(), item.purpose  # the item is unreadable after a failed flush
    result = ModelResult(item.kind, value, False, item.submissions, completion.model, completion.usage)
    try:
        handler(session, item, result)
    except OperationalError:
        raise
    except Exception as exc:
        raise HandlerFailed(output_json, f"handler for {purpose!r} failed: {type(exc).__name__}: {exc}") from exc
    item.status = store.APPLIED
    item.result = output_json
    item.error = None
    item.applied_at = utcnow()
    return APPLIED


def _give_up_after_handler_failure(batch_id: int, custom_id: str, failure: HandlerFailed) -> dict[str, Any] | None:
    """Its own transaction, the handler's having rolled back; None if another poll settled the item meanwhile."""
    with session_scope() as session:
        item = store.lock_item(session, custom_id)
        if item is None or item.batch_id != batch_id or item.status != store.SUBMITTED:
            return None
        item.status = store.GAVE_UP
        item.result = failure.output_json
        item.error = failure.reason[:10_000]
        return _payload(item)


def settle(port: ModelPort, batch_id: int, result: BatchResult, *, latency_ms: float, batched: bool) -> str:
    """Apply one result to its item, at most once, and return what happened (APPLIED, FAILSAFE, RETRY...).

    ``batched`` is what the ledger row says: served by the Message Batches API, or answered at once.
    """
    given_up: dict[str, Any] | None = None
    reason = ""
    try:
        with session_scope() as session:
            item = store.lock_item(session, result.custom_id)
            if item is None or item.batch_id != batch_id or item.status != store.SUBMITTED:
                return SKIPPED
            attempt = _Attempt(item.custom_id, item.kind, item.user_id, item.submissions)
            if result.outcome == "succeeded" and result.completion is not None:
                outcome = _apply_completion(session, item, result.completion)
            else:
                outcome = _retry_or_give_up(
                    item, f"{result.outcome}: {result.error}" if result.error else result.outcome
                )
            if outcome == GAVE_UP:
                given_up = _payload(item)
                reason = f"no answer after {item.submissions} submissions; last: {item.error}"
    except HandlerFailed as failure:
        log.exception("%s: %s; it is given up", result.custom_id, failure.reason)
        given_up = _give_up_after_handler_failure(batch_id, result.custom_id, failure)
        if given_up is None:
            return SKIPPED
        outcome, reason = GAVE_UP, failure.reason
    if outcome == DEFERRED:
        return outcome
    _record_usage(port, attempt, result, outcome, latency_ms, batched)
    if given_up is not None:
        _dead_letter(given_up, reason)
    return outcome


def _record_usage(
    port: ModelPort, attempt: _Attempt, result: BatchResult, outcome: str, latency_ms: float, batched: bool
) -> None:
    tier = KINDS[attempt.kind].tier
    completion = result.completion
    if result.outcome != "succeeded" or completion is None:
        ledger_outcome, usage, model, error = result.outcome, Usage(), port.model_for(tier), result.error
    else:
        ledger_outcome = "failsafe" if outcome == FAILSAFE else "ok"
        usage, model, error = completion.usage, completion.model, ""
    record_call(
        CallRecord(
            user_id=attempt.user_id,
            kind=attempt.kind,
            tier=tier,
            model=model,
            provider=port.provider.name,
            usage=usage,
            latency_ms=latency_ms,
            outcome=ledger_outcome,
            attempt=attempt.submissions,
            error=error[:1000],
        ),
        batch=batched,
    )


# --- polling --------------------------------------------------------------------------------------------------


def _poll_batch(
    port: ModelPort,
    provider: BatchProvider,
    batch_id: int,
    provider_batch_id: str,
    since: datetime,
    report: BatchReport,
) -> None:
    if provider.batch_status(provider_batch_id) != "ended":
        report.waiting += 1
        return
    latency_ms = (utcnow() - since).total_seconds() * 1000  # the batch's turnaround
    deferred = False
    for result in provider.batch_results(provider_batch_id):
        outcome = settle(port, batch_id, result, latency_ms=latency_ms, batched=True)
        report.outcomes[outcome] += 1
        deferred = deferred or outcome == DEFERRED
    if deferred:
        return
    given_up: list[dict[str, Any]] = []
    with session_scope() as session:
        for item in store.items_in_batch(session, batch_id):  # the API returns every request; defensively:
            outcome = _retry_or_give_up(item, "no result for this request in the ended batch")
            report.outcomes[outcome] += 1
            if outcome == GAVE_UP:
                given_up.append(_payload(item))
        store.end_batch(session, batch_id)
    for payload in given_up:
        _dead_letter(payload, "no result in its batch, out of submissions")
    log.info("model batch %s ended and was applied", provider_batch_id)


def poll(port: ModelPort | None = None) -> BatchReport:
    """Ask the provider about every batch in progress; apply the results of those that ended, then end them.

    A provider error on one batch does not hold up the others; the first one is raised at the end, so the
    task's retry policy applies (a re-poll skips what was applied).
    """
    port = port or get_port()
    report = BatchReport()
    provider = port.provider
    if not isinstance(provider, BatchProvider):
        return report
    with session_scope() as session:
        batches = [
            (b.id, b.provider_batch_id, b.submitted_at) for b in store.in_progress_batches(session, provider.name)
        ]
    failure: ModelError | None = None
    for batch_id, provider_batch_id, since in batches:
        if provider_batch_id is None:  # pragma: no cover - in_progress rows always have one
            continue
        try:
            _poll_batch(port, provider, batch_id, provider_batch_id, since, report)
        except ModelError as exc:
            log.warning("could not poll model batch %s: %s", provider_batch_id, exc)
            failure = failure or exc
    if failure is not None:
        raise failure
    return report

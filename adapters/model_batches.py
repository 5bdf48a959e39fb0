"""The Message Batches service: where model requests are submitted and their results applied, at half price.

Why: the daily digest and the weekly distillation need no answer in seconds, and a batch costs half. A job
registers a handler for its ``purpose`` (``register_batch_handler``) and ``submit``s requests under its own
stable ``custom_id``s; ``flush_pending`` sends what is queued (one batch per 10,000 requests), ``poll`` reads
the batches that have ended and ``settle``s each result. A provider without batches (the offline engine) is
answered at once by ``flush_pending``, through the same settle path, so the demo runs with no API key. Beat
runs both through the tasks ``ella.flush_model_batches`` and ``ella.poll_model_batches`` (``tasks/batches.py``).
It lives in ``workers/`` because the jobs that queue requests are task modules, and a task module never imports
another.

This module only loads, decides and stores: what a result means, what may be queued and when to give up are
``ella.llm.batches``; the rows and their state changes are ``models.batch``. The rules, in one place:

* Each result is applied at most once. In one transaction per item the row is re-read under lock and applied
  only while it is still ``submitted`` under *this* batch; the handler writes in that same transaction. A
  poll that runs twice, runs concurrently, or re-reads a batch after a crash skips what is settled.
* A handler only ever sees a valid output: ``result.failsafe`` is always False. An output that fails its
  kind's schema marks the item ``failsafe`` with the error and calls no handler.
* ``errored``, ``expired`` and ``canceled`` requests go back to ``pending`` for the next flush until they have
  been submitted ``batch_max_submissions`` times; then the item is ``gave_up`` and dead-lettered.
* A handler that raises has its writes rolled back, and its item is ``gave_up`` and dead-lettered with the
  validated output kept in ``result`` for a replay; the batch still ends and the other items go on.
  ``OperationalError`` (the database went away) is not the handler's fault: it propagates, for a retry.
* An item whose purpose has no handler in this process stays ``submitted`` and its batch in progress, so the
  next poll (in a worker that imported the handler's module) applies it.
* Usage is written after the item's transaction commits, once per settled request: a crash in between can
  lose a usage row but never counts one twice. (On SQLite a second connection cannot write while the item's
  transaction holds the write lock, so the usage row cannot share that transaction.)
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from adapters.db import session_scope
from adapters.dead_letters import record_dead_letter
from adapters.llm import get_port, record_usage
from adapters.settings import get_settings
from ella.llm.batches import (
    ANSWERED,
    APPLIED,
    DEFERRED,
    FAILSAFE,
    GAVE_UP,
    GAVE_UP_TASK,
    MAX_BATCH_REQUESTS,
    NO_ANSWER,
    SKIPPED,
    Attempt,
    BatchProvider,
    BatchReport,
    HandlerFailed,
    NewBatchItem,
    check_item,
    handler_for,
    handler_result,
    read_result,
    register_batch_handler,
    retry_or_give_up,
    usage_record,
)
from ella.llm.kinds import KINDS
from ella.llm.port import ModelPort
from ella.llm.types import BatchResult, CompletionRequest, ModelError
from models import batch as store
from models.base import utcnow
from models.batch import ModelBatchItem

__all__ = [  # what a job needs: register its handler, queue its requests
    "BatchReport",
    "NewBatchItem",
    "flush_pending",
    "poll",
    "register_batch_handler",
    "settle",
    "submit",
]

log = logging.getLogger(__name__)

DEAD_LETTER_TASK = GAVE_UP_TASK  # the dead-letter row's task name for a given-up item


# --- submitting -----------------------------------------------------------------------------------------------


def submit(
    purpose: str, items: Iterable[NewBatchItem | tuple[Any, ...]], *, session: Session | None = None
) -> list[str]:
    """Queue requests ``(custom_id, kind, variables, user_id, context)``; return the custom_ids newly queued.

    A custom_id already known, in whatever state (queued, in flight, applied, given up), is left alone: the
    caller's custom_id is the idempotency key, so make it say what the request is for (``digest-u42-2026-11-29``).
    Pass ``session`` to queue in the caller's own transaction (on SQLite, a second transaction would wait
    for the caller's to end); otherwise this opens and commits one.
    """
    if handler_for(purpose) is None:
        raise ValueError(f"no batch handler is registered for purpose {purpose!r}")
    checked = [check_item(item) for item in items]
    if session is not None:
        return store.enqueue_items(session, purpose, checked)
    with session_scope() as own:
        return store.enqueue_items(own, purpose, checked)


def _dead_letter(payload: dict[str, Any], reason: str) -> None:
    record_dead_letter(DEAD_LETTER_TASK, None, f"{payload['custom_id']}: {reason}", [], payload)


def _no_answer(item: ModelBatchItem, reason: str) -> str:
    """An attempt that brought no answer: back to the queue while submissions remain, else given up."""
    outcome = retry_or_give_up(item.submissions, get_settings().batch_max_submissions)
    if outcome == GAVE_UP:
        store.give_up(item, reason)
    else:
        store.send_back(item, reason)
    return outcome


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
                outcome = _no_answer(item, "its batch was abandoned while being submitted")
                report.outcomes[outcome] += 1
                if outcome == GAVE_UP:
                    given_up.append(store.payload_of(item))
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
                    reason = f"cannot build the request: {type(exc).__name__}: {exc}"
                    store.give_up(item, reason)
                    broken.append((store.payload_of(item), reason))
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
                store.release(item, f"batch submission failed: {exc}")
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
            store.release(item)
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


def _apply(session: Session, item: ModelBatchItem, result: BatchResult, engine: str) -> str:
    """Settle a locked item from its result in the item's transaction: apply, fail-safe, retry or give up."""
    reading = read_result(result, item.kind, store.context_of(item))
    if reading.outcome == NO_ANSWER:
        return _no_answer(item, reading.reason)
    if reading.outcome == FAILSAFE:
        store.mark_failsafe(item, reading.reason)
        return FAILSAFE
    assert reading.outcome == ANSWERED and reading.value is not None and result.completion is not None
    handler = handler_for(item.purpose)
    if handler is None:
        log.error(
            "no batch handler for purpose %r in this process; %s waits for the next poll", item.purpose, item.custom_id
        )
        return DEFERRED
    output_json, purpose = reading.value.model_dump_json(), item.purpose  # the item is unreadable after a failed flush
    try:
        handler(session, item, handler_result(item.kind, reading.value, item.submissions, result.completion, engine))
    except OperationalError:
        raise
    except Exception as exc:
        raise HandlerFailed(output_json, f"handler for {purpose!r} failed: {type(exc).__name__}: {exc}") from exc
    store.mark_applied(item, output_json)
    return APPLIED


def _give_up_after_handler_failure(batch_id: int, custom_id: str, failure: HandlerFailed) -> dict[str, Any] | None:
    """Its own transaction, the handler's having rolled back; None if another poll settled the item meanwhile."""
    with session_scope() as session:
        item = store.lock_item(session, custom_id)
        if item is None or item.batch_id != batch_id or item.status != store.SUBMITTED:
            return None
        store.give_up(item, failure.reason, failure.output_json)
        return store.payload_of(item)


def settle(port: ModelPort, batch_id: int, result: BatchResult, *, latency_ms: float, batched: bool) -> str:
    """Apply one result to its item, at most once, and return what happened (APPLIED, FAILSAFE, RETRY...).

    ``batched`` is what the usage row says: served by the Message Batches API, or answered at once.
    """
    given_up: dict[str, Any] | None = None
    reason = ""
    try:
        with session_scope() as session:
            item = store.lock_item(session, result.custom_id)
            if item is None or item.batch_id != batch_id or item.status != store.SUBMITTED:
                return SKIPPED
            attempt = Attempt(item.custom_id, item.kind, item.user_id, item.submissions)
            outcome = _apply(session, item, result, port.provider.name)
            if outcome == GAVE_UP:
                given_up = store.payload_of(item)
                reason = f"no answer after {item.submissions} submissions; last: {item.error}"
    except HandlerFailed as failure:
        log.exception("%s: %s; it is given up", result.custom_id, failure.reason)
        given_up = _give_up_after_handler_failure(batch_id, result.custom_id, failure)
        if given_up is None:
            return SKIPPED
        outcome, reason = GAVE_UP, failure.reason
    if outcome == DEFERRED:
        return outcome
    default_model = port.model_for(KINDS[attempt.kind].tier)
    record_usage(
        usage_record(
            attempt,
            result,
            outcome,
            provider=port.provider.name,
            default_model=default_model,
            latency_ms=latency_ms,
        ),
        batch=batched,
    )
    if given_up is not None:
        _dead_letter(given_up, reason)
    return outcome


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
            outcome = _no_answer(item, "no result for this request in the ended batch")
            report.outcomes[outcome] += 1
            if outcome == GAVE_UP:
                given_up.append(store.payload_of(item))
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

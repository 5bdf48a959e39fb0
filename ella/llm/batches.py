"""The decisions of the Message Batches service, in plain Python: what may be queued, what a result means.

Why apart from the orchestration (``adapters/model_batches.py``, which opens the transactions and talks to the
provider): these rules are the service's contract with the jobs that use it, and they can be read and tested
without a database or a broker.

* A request is refused when it is queued if it could never be sent: a ``custom_id`` the API refuses, an
  unknown kind, a variable its template lacks, values that are not JSON (``check_item``).
* A job registers one handler per ``purpose`` (``register_batch_handler``); an item is applied by its
  purpose's handler only, and only with a valid output: ``result.failsafe`` is always False for a handler.
* A result is ``read_result``: a valid output (``ANSWERED``), an output that fails its kind's schema
  (``FAILSAFE``: final, a batch has no repair round trip and a fail-safe is never stored), or no answer
  (``NO_ANSWER``: errored, expired, canceled).
* No answer goes back to the queue while submissions remain, else it is given up (``retry_or_give_up``).
* A handler that raises has its item given up with the validated output kept for a replay (``HandlerFailed``).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol, runtime_checkable

from ella.llm.kinds import KINDS, KindOutput, OutputError, parse_output
from ella.llm.port import CallRecord, ModelResult
from ella.llm.prompts import build_request, prompt_version
from ella.llm.types import BatchResult, Completion, CompletionRequest, Usage

GAVE_UP_TASK = "ella.model_batch_item"  # the dead-letter row's task name for a request given up
MAX_BATCH_REQUESTS = 10_000  # the Message Batches API's cap on requests per batch
CUSTOM_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")  # what the API accepts as a custom_id

# What settling one result did (the keys of BatchReport.outcomes).
APPLIED = "applied"
FAILSAFE = "failsafe"
RETRY = "retry"  # back to pending for the next flush
GAVE_UP = "gave_up"
SKIPPED = "skipped"  # already settled, or now waiting on a later batch
DEFERRED = "deferred"  # no handler for its purpose in this process

# What a result says before any handler runs (see read_result).
ANSWERED = "answered"
NO_ANSWER = "no_answer"

# ``fn(session, item, result)``: the session and the item row are the orchestration's (the item is a
# ``models.batch.ModelBatchItem``); this module only keeps the handlers, so it types them loosely.
BatchHandler = Callable[[Any, Any, ModelResult[Any]], None]
_HANDLERS: dict[str, BatchHandler] = {}


class NewBatchItem(NamedTuple):
    """What a caller asks for: ``custom_id`` is its own stable id, the idempotency key of the request."""

    custom_id: str
    kind: str
    variables: dict[str, Any]
    user_id: str | None = None
    context: dict[str, Any] | None = None


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


def handler_for(purpose: str) -> BatchHandler | None:
    """The handler registered in this process for ``purpose``; None means its items wait for another worker."""
    return _HANDLERS.get(purpose)


# --- queueing -------------------------------------------------------------------------------------------------


def check_item(raw: NewBatchItem | tuple[Any, ...]) -> NewBatchItem:
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


def retry_or_give_up(submissions: int, max_submissions: int) -> str:
    """An attempt that brought no answer: RETRY while submissions remain, else GAVE_UP."""
    return RETRY if submissions < max_submissions else GAVE_UP


# --- results --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Reading:
    """What one result says about its item: ANSWERED with a valid ``value``, FAILSAFE, or NO_ANSWER; and why."""

    outcome: str
    value: KindOutput | None = None
    reason: str = ""


def read_result(result: BatchResult, kind: str, context: dict[str, Any]) -> Reading:
    """Classify a result: a valid output, an output its kind's schema refuses, or no answer at all."""
    if result.outcome != "succeeded" or result.completion is None:
        return Reading(NO_ANSWER, reason=f"{result.outcome}: {result.error}" if result.error else result.outcome)
    try:
        return Reading(ANSWERED, parse_output(kind, result.completion.text, context))
    except OutputError as exc:
        return Reading(FAILSAFE, reason=str(exc))


def handler_result(
    kind: str, value: KindOutput, submissions: int, completion: Completion, engine: str
) -> ModelResult[Any]:
    """What a handler receives: the same typed result a live ``port.call`` returns, never a fail-safe, with the
    engine that answered (the batch's provider) and the kind's prompt version, for the rows it stores.

    The version is the kind's now, when the result is read: a template changed between submission and result
    is a deploy in that window, and the row says the version the worker that stored it knew."""
    return ModelResult(
        kind,
        value,
        False,
        submissions,
        completion.model,
        completion.usage,
        engine=engine,
        prompt_version=prompt_version(kind),
    )


@dataclass(frozen=True)
class Attempt:
    """What the usage row of a settled item needs, read while the item was locked."""

    custom_id: str
    kind: str
    user_id: str | None
    submissions: int


def usage_record(
    attempt: Attempt, result: BatchResult, outcome: str, *, provider: str, default_model: str, latency_ms: float
) -> CallRecord:
    """One settled request as a model call: its tokens when answered (``failsafe`` if unusable), else none.

    ``default_model`` is the kind's configured model, for a request that brought no completion to name one.
    """
    completion = result.completion
    if result.outcome != "succeeded" or completion is None:
        call_outcome, usage, model, error = result.outcome, Usage(), default_model, result.error
    else:
        call_outcome = FAILSAFE if outcome == FAILSAFE else "ok"
        usage, model, error = completion.usage, completion.model, ""
    return CallRecord(
        user_id=attempt.user_id,
        kind=attempt.kind,
        tier=KINDS[attempt.kind].tier,
        model=model,
        provider=provider,
        usage=usage,
        latency_ms=latency_ms,
        outcome=call_outcome,
        attempt=attempt.submissions,
        error=error[:1000],
    )

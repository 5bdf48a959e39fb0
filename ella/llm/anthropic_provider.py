"""The Anthropic provider: Claude through the official SDK, errors sorted into transient and permanent.

Why the provider retries little (``max_retries`` from settings, 1 by default): the Celery task retries with
backoff and jitter on top, and two layers of full retries would multiply into minutes of hammering.

Why it retries itself (tenacity) instead of leaving it to the SDK's loop: every call has a deadline the provider
enforces, ``budget_s`` across all attempts, each attempt's timeout cut to what is left of it. The SDK's loop has
no total: it sleeps whatever ``retry-after`` says (an hour, if the API says an hour) and it retries whatever its
HTTP send raised, Celery's SoftTimeLimitExceeded included, so a task's soft limit never reached a task waiting
on the API, and in a threads pool no Celery limit works at all. Past the budget the call is a
TransientModelError (with the API's ``retry-after``), so the task's own retry or fallback path runs; an
exception from outside the transport (a time limit's signal) is handed back to the task unchanged. A body the
SDK cannot decode (a truncated 200) escapes it as a bare JSONDecodeError; here it is a transient fault, retried.

Structured outputs (on unless ``structured_outputs=False``, the setting ELLA_ANTHROPIC_STRUCTURED_OUTPUTS): every
request for a kind, live or in a Message Batch, carries ``output_config.format`` with the kind's JSON schema
(``ella.llm.schemas``), so the API constrains decoding to it: JSON of the kind's shape, never prose, fences or
an unknown key. The answer is parsed and validated as before (``ModelPort``): the API still stops on
``max_tokens`` mid-object or on a ``refusal`` (its docs: the output may then not match the schema), and the
checks a schema cannot express (lengths, ranges, failure text, citations) are still the kind's.
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar, cast

import anthropic
import httpx2
from tenacity import RetryCallState, Retrying, retry_if_exception_type, stop_after_attempt, stop_any
from tenacity.stop import stop_base

from ella.llm.kinds import KINDS
from ella.llm.schemas import output_format
from ella.llm.types import (
    BatchResult,
    Block,
    Completion,
    CompletionRequest,
    ModelError,
    PermanentModelError,
    TransientModelError,
    Turn,
    Usage,
)

if TYPE_CHECKING:  # the SDK's request TypedDicts, for the type check only (their module paths vary by version)
    from anthropic.types import JSONOutputFormatParam, MessageParam, TextBlockParam
    from anthropic.types.message_create_params import MessageCreateParamsNonStreaming
    from anthropic.types.messages.batch_create_params import Request


R = TypeVar("R")
# The SDK's own backoff between attempts when the API gives no retry-after: 0.5 s doubling, at most 8 s.
BACKOFF_INITIAL_S = 0.5
BACKOFF_MAX_S = 8.0


def _retry_after(headers: Any) -> float | None:
    for key in ("retry-after-ms", "retry-after"):
        value = headers.get(key) if headers is not None else None
        if value is None:
            continue
        try:
            seconds = float(value)
        except ValueError:
            continue
        return seconds / 1000 if key == "retry-after-ms" else seconds
    return None


def classify(exc: Exception) -> ModelError:
    """SDK exception -> TransientModelError (retry later) or PermanentModelError (give up now)."""
    if isinstance(exc, anthropic.APITimeoutError):
        return TransientModelError(f"timeout: {exc}")
    if isinstance(exc, anthropic.APIConnectionError):
        return TransientModelError(f"connection error: {exc}")
    if isinstance(exc, anthropic.APIStatusError):
        status = exc.status_code
        message = f"{status} {type(exc).__name__}: {exc.message}"
        if status in (408, 409, 429) or status >= 500:
            return TransientModelError(message, status, _retry_after(exc.response.headers))
        return PermanentModelError(message, status)
    return PermanentModelError(f"{type(exc).__name__}: {exc}")


def _interruption(exc: anthropic.AnthropicError) -> BaseException | None:
    """What the SDK wrapped as a connection error though it did not come from the connection (a time limit's
    signal raised inside the send, a bug): that exception, to hand back; None for a real transport fault."""
    cause = exc.__cause__
    if not isinstance(exc, anthropic.APIConnectionError) or isinstance(exc, anthropic.APITimeoutError):
        return None
    if cause is None or isinstance(cause, httpx2.TransportError | OSError):
        return None
    return cause


def _backoff(state: RetryCallState) -> float:
    """Retry-After when the API gave one, else the SDK's backoff (0.5 s doubling to 8 s, a quarter jitter)."""
    exc = state.outcome.exception() if state.outcome else None
    if isinstance(exc, TransientModelError) and exc.retry_after is not None:
        return max(0.0, exc.retry_after)
    return min(BACKOFF_INITIAL_S * 2.0 ** (state.attempt_number - 1), BACKOFF_MAX_S) * (1 - 0.25 * random.random())


class _PastDeadline(stop_base):
    """Stop when the wait before the next attempt would end past the deadline, or leave under a second to try:
    the task then waits out ``retry-after`` as its own countdown instead of holding a worker."""

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline

    def __call__(self, retry_state: RetryCallState) -> bool:
        return time.monotonic() + retry_state.upcoming_sleep + 1.0 > self.deadline


def _block(block: Block) -> TextBlockParam:
    param: TextBlockParam = {"type": "text", "text": block.text}
    if block.cache:
        param["cache_control"] = {"type": "ephemeral"}
    return param


def _blocks(blocks: Iterable[Block]) -> list[TextBlockParam]:
    return [_block(b) for b in blocks]


def _message(turn: Turn) -> MessageParam:
    content = _blocks(turn.blocks)
    if turn.role == "assistant":
        return {"role": "assistant", "content": content}
    return {"role": "user", "content": content}


def request_params(request: CompletionRequest, structured: bool = True) -> MessageCreateParamsNonStreaming:
    """The Messages API parameters of a request (also the ``params`` of a batch entry), typed as the SDK's own
    parameter dict so an SDK upgrade that renames a field fails the type check. ``structured``: a request for a
    known kind carries its schema as ``output_config.format``."""
    messages = [_message(t) for t in request.messages]
    params: MessageCreateParamsNonStreaming = {
        "model": request.model,
        "max_tokens": request.max_tokens,
        "system": _blocks(request.system),
        "messages": messages,
    }
    if request.user_id:
        # An opaque id for Anthropic's abuse tracking; never the gateway's id or anything personal.
        params["metadata"] = {"user_id": hashlib.sha256(request.user_id.encode()).hexdigest()[:32]}
    if structured and request.kind in KINDS:
        params["output_config"] = {"format": cast("JSONOutputFormatParam", output_format(request.kind))}
    return params


def sampling_body(request: CompletionRequest) -> dict[str, Any]:
    """The request's sampling parameters as they go on the wire (``{"temperature": 0.0}``), or ``{}``.

    Why apart from ``request_params``: anthropic 1.0 took ``temperature`` out of ``messages.create``'s typed
    signature (its MIGRATION.md: pass it in ``extra_body``, the wire format is unchanged) because the models from
    4.7 on refuse it; the ones configured here (Sonnet 4.6, Haiku 4.5) take it, and ``ModelPort`` leaves it off
    for a model that would refuse it (``ella.llm.sampling.accepts_sampling``).
    """
    return {} if request.temperature is None else {"temperature": request.temperature}


def batch_entry(custom_id: str, request: CompletionRequest, structured: bool = True) -> Request:
    """One Message Batches entry: the same parameters as the live call, sampling and schema included."""
    params = cast("MessageCreateParamsNonStreaming", {**request_params(request, structured), **sampling_body(request)})
    return {"custom_id": custom_id, "params": params}


def completion_of(message: Any) -> Completion:
    text = "".join(getattr(block, "text", "") for block in message.content if block.type == "text")
    u = message.usage
    usage = Usage(
        input_tokens=u.input_tokens or 0,
        output_tokens=u.output_tokens or 0,
        cache_creation_input_tokens=getattr(u, "cache_creation_input_tokens", 0) or 0,
        cache_read_input_tokens=getattr(u, "cache_read_input_tokens", 0) or 0,
    )
    return Completion(text=text, model=message.model, usage=usage, stop_reason=message.stop_reason or "")


class AnthropicProvider:
    name = "anthropic"
    reads_context = True
    reads_any_language = True  # Claude reads the message whatever its language; its own reading decides

    def __init__(
        self,
        api_key: str,
        base_url: str | None,
        timeout: float,
        max_retries: int,
        budget_s: float | None = None,
        structured_outputs: bool = True,
    ) -> None:
        """``timeout`` bounds one attempt, ``max_retries`` the attempts after the first, ``budget_s`` (by default
        ``timeout`` times the attempts) the whole call, waits between attempts included. ``structured_outputs``:
        send each kind's schema as ``output_config.format`` (live calls and batch entries alike)."""
        self.structured_outputs = structured_outputs
        self.timeout = timeout
        self.max_retries = max_retries
        self.budget_s = budget_s if budget_s is not None else timeout * (max_retries + 1)
        # The SDK retries nothing: a second, unbounded loop under ours would defeat the budget.
        self.client = anthropic.Anthropic(api_key=api_key, base_url=base_url, timeout=timeout, max_retries=0)

    def _within_budget(self, what: str, attempt: Callable[[float], R]) -> R:
        """``attempt(timeout)`` until it succeeds, retrying transient faults while attempts and budget last.

        Raises TransientModelError (the last fault, or "budget spent") or PermanentModelError; an exception that
        interrupted the call from outside the transport is raised as it is.
        """
        deadline = time.monotonic() + self.budget_s

        def attempt_once() -> R:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TransientModelError(f"{what}: the call's {self.budget_s:g}s budget is spent")
            try:
                return attempt(min(self.timeout, left))
            except anthropic.AnthropicError as exc:
                interruption = _interruption(exc)
                if interruption is not None:
                    raise interruption from None
                raise classify(exc) from exc
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:  # the SDK could not decode a 200's body
                raise TransientModelError(f"{what}: malformed response body ({exc})") from exc

        attempts = self.max_retries + 1

        def give_up(state: RetryCallState) -> R:
            """The last fault as it is once the attempts are spent; a budget error carrying it otherwise."""
            last = state.outcome.exception() if state.outcome else None
            if not isinstance(last, TransientModelError) or state.attempt_number >= attempts:
                raise last or TransientModelError(f"{what}: no attempt was made")
            raise TransientModelError(
                f"{what}: the call's {self.budget_s:g}s budget is spent after {state.attempt_number} of "
                f"{attempts} attempts; last: {last}",
                last.status,
                last.retry_after,
            ) from last

        retrying = Retrying(
            stop=stop_any(stop_after_attempt(attempts), _PastDeadline(deadline)),
            wait=_backoff,
            retry=retry_if_exception_type(TransientModelError),
            retry_error_callback=give_up,
        )
        return retrying(attempt_once)

    def complete(self, request: CompletionRequest) -> Completion:
        params, extra = request_params(request, self.structured_outputs), sampling_body(request)

        def create(timeout: float) -> Completion:
            return completion_of(self.client.messages.create(**params, extra_body=extra or None, timeout=timeout))

        return self._within_budget(f"{request.kind} call", create)

    # --- Message Batches ------------------------------------------------------------------------------
    def submit_batch(self, requests: list[tuple[str, CompletionRequest]]) -> str:
        entries: list[Request] = [batch_entry(cid, req, self.structured_outputs) for cid, req in requests]

        def create(timeout: float) -> str:
            return self.client.messages.batches.create(requests=entries, timeout=timeout).id

        return self._within_budget("batch submission", create)

    def batch_status(self, batch_id: str) -> str:
        """``in_progress`` | ``canceling`` | ``ended``."""

        def retrieve(timeout: float) -> str:
            return self.client.messages.batches.retrieve(batch_id, timeout=timeout).processing_status

        return self._within_budget("batch status", retrieve)

    def batch_results(self, batch_id: str) -> Iterator[BatchResult]:
        try:
            for entry in self.client.messages.batches.results(batch_id, timeout=self.budget_s):
                result = entry.result
                if result.type == "succeeded":
                    yield BatchResult(entry.custom_id, "succeeded", completion_of(result.message))
                elif result.type == "errored":
                    error = getattr(result.error, "error", result.error)
                    yield BatchResult(
                        entry.custom_id,
                        "errored",
                        error=f"{getattr(error, 'type', 'error')}: {getattr(error, 'message', '')}",
                    )
                else:
                    yield BatchResult(entry.custom_id, result.type)
        except anthropic.AnthropicError as exc:
            raise classify(exc) from exc
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:  # a JSONL line the SDK could not decode
            raise TransientModelError(f"batch results: malformed response body ({exc})") from exc

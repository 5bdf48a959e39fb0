"""The Anthropic provider: Claude through the official SDK, errors sorted into transient and permanent.

Why the SDK retries little (``max_retries`` from settings, 1 by default): the Celery task retries with
backoff and jitter on top, and two layers of full retries would multiply into minutes of hammering.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anthropic

from ella.llm.types import (
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
    from anthropic.types import MessageParam, TextBlockParam
    from anthropic.types.message_create_params import MessageCreateParamsNonStreaming


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


def request_params(request: CompletionRequest) -> MessageCreateParamsNonStreaming:
    """The Messages API parameters of a request (also the ``params`` of a batch entry), typed as the SDK's own
    parameter dict so an SDK upgrade that renames a field fails the type check."""
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
    return params


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


@dataclass(frozen=True)
class BatchResult:
    custom_id: str
    outcome: str  # succeeded | errored | canceled | expired
    completion: Completion | None = None
    error: str = ""


class AnthropicProvider:
    name = "anthropic"
    reads_context = True

    def __init__(self, api_key: str, base_url: str | None, timeout: float, max_retries: int) -> None:
        self.client = anthropic.Anthropic(api_key=api_key, base_url=base_url, timeout=timeout, max_retries=max_retries)

    def complete(self, request: CompletionRequest) -> Completion:
        try:
            message = self.client.messages.create(**request_params(request))
        except anthropic.AnthropicError as exc:
            raise classify(exc) from exc
        return completion_of(message)

    # --- Message Batches ------------------------------------------------------------------------------
    def submit_batch(self, requests: list[tuple[str, CompletionRequest]]) -> str:
        try:
            batch = self.client.messages.batches.create(
                requests=[{"custom_id": cid, "params": request_params(req)} for cid, req in requests]
            )
        except anthropic.AnthropicError as exc:
            raise classify(exc) from exc
        return batch.id

    def batch_status(self, batch_id: str) -> str:
        """``in_progress`` | ``canceling`` | ``ended``."""
        try:
            return self.client.messages.batches.retrieve(batch_id).processing_status
        except anthropic.AnthropicError as exc:
            raise classify(exc) from exc

    def batch_results(self, batch_id: str) -> Iterator[BatchResult]:
        try:
            for entry in self.client.messages.batches.results(batch_id):
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

"""This process's model port: the configured provider, the Redis slot limit, where model usage is written.

Why here: ``ella.llm`` knows nothing of Redis or the database; this module plugs them in, once per process
(again after a fork, since a client must not be shared across processes).
"""

from __future__ import annotations

import contextvars
import logging
import os
import random
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from adapters import metrics
from adapters.db import session_scope
from adapters.llm_slots import ModelSlots
from adapters.redis_conn import get_redis
from adapters.settings import Settings, get_settings
from ella.llm.offline import OfflineProvider
from ella.llm.port import CallRecord, ModelPort
from ella.llm.types import Provider, TransientModelError
from models.usage import insert_usage, usage_row

log = logging.getLogger(__name__)
_lock = threading.Lock()
_port: tuple[int, ModelPort] | None = None


def make_provider(settings: Settings) -> Provider:
    """The configured provider; wrapped to write down every request when ``ELLA_LLM_REQUEST_LOG`` is set."""
    provider = _provider(settings)
    if settings.llm_request_log is not None:
        from ella.llm.recording import RecordingProvider

        log.warning("every model request is written to %s (ELLA_LLM_REQUEST_LOG)", settings.llm_request_log)
        return RecordingProvider(provider, settings.llm_request_log)
    return provider


def _provider(settings: Settings) -> Provider:
    if settings.uses_anthropic:
        from ella.llm.anthropic_provider import AnthropicProvider

        if settings.anthropic_api_key is None:
            raise RuntimeError("ELLA_LLM_PROVIDER=anthropic needs ANTHROPIC_API_KEY (or ELLA_ANTHROPIC_API_KEY)")
        return AnthropicProvider(
            settings.anthropic_api_key.get_secret_value(),
            settings.anthropic_base_url,
            timeout=settings.llm_timeout_s,
            max_retries=settings.llm_sdk_max_retries,
            budget_s=settings.llm_deadline_s,
            structured_outputs=settings.anthropic_structured_outputs,
        )
    return OfflineProvider()


_held: contextvars.ContextVar[list[dict[str, Any]] | None] = contextvars.ContextVar("held_usage", default=None)


def write_usage(rows: list[dict[str, Any]], session: Session | None = None) -> None:
    """Insert usage rows: in ``session``'s transaction if given, else in one of their own."""
    if not rows:
        return
    if session is not None:
        insert_usage(session, rows)
        return
    try:
        with session_scope() as own:
            insert_usage(own, rows)
    except SQLAlchemyError as exc:  # a usage-table outage must not cost the user a reply
        log.warning("could not write %d model calls to model_calls: %s", len(rows), exc)


def record_usage(call: CallRecord, batch: bool = False) -> None:
    """The port's sink: held for the running task's usage batch if one is open, else written now."""
    metrics.model_call(call, batch)
    held = _held.get()
    if held is not None:
        held.append(usage_row(call, batch))
    else:
        write_usage([usage_row(call, batch)])


@contextmanager
def usage_batch() -> Iterator[list[dict[str, Any]]]:
    """Hold a task's usage rows; what the task has not written itself is written when it ends, however.

    The ingest path writes them inside its turn's transaction (one commit fewer per message); a task that
    fails still has its calls recorded here.
    """
    rows: list[dict[str, Any]] = []
    token = _held.set(rows)
    try:
        yield rows
    finally:
        _held.reset(token)
        write_usage(rows)


def held_usage_rows() -> list[dict[str, Any]]:
    """The running task's held usage rows (the live list: clear it once they are committed elsewhere)."""
    rows = _held.get()
    return rows if rows is not None else []


def make_port(settings: Settings | None = None) -> ModelPort:
    """The port with this process's provider; the global slot limit guards a remote API only."""
    settings = settings or get_settings()
    provider = make_provider(settings)
    slot = None
    if provider.name != "offline":
        slot = ModelSlots(
            get_redis(),
            f"{settings.redis_key_prefix}:llm:slots",
            settings.llm_max_concurrency,
            lease_s=settings.llm_deadline_s + 10,  # a slot is held for the whole call, retries included
            wait_s=settings.llm_timeout_s,
        ).slot
    return ModelPort(
        provider,
        settings.model_tiers,
        max_repairs=settings.llm_max_repairs,
        record=record_usage,
        slot=slot,
        sampling=settings.sampling,
    )


def get_port() -> ModelPort:
    global _port
    with _lock:
        if _port is None or _port[0] != os.getpid():
            _port = (os.getpid(), make_port())
        return _port[1]


def retry_delay(exc: TransientModelError, retries: int, settings: Settings | None = None) -> float:
    """Retry-After when the API gave one, else exponential backoff; full jitter either way, capped."""
    settings = settings or get_settings()
    if exc.retry_after is not None:
        return min(settings.llm_retry_max_s, exc.retry_after + random.uniform(0, 1))
    ceiling = min(settings.llm_retry_max_s, settings.llm_retry_base_s * 2**retries)
    return random.uniform(ceiling / 2, ceiling)

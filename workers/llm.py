"""This process's model port: the configured provider, the Redis slot limit, the usage ledger.

Why here: ``ella.llm`` knows nothing of Redis or the database; this module plugs them in, once per process
(again after a fork, since a client must not be shared across processes).
"""

from __future__ import annotations

import logging
import os
import random
import threading

from sqlalchemy.exc import SQLAlchemyError

from ella.llm.offline import OfflineProvider
from ella.llm.port import CallRecord, ModelPort
from ella.llm.types import Provider, TransientModelError
from models.usage import ModelCall
from workers.db import autocommit_scope
from workers.llm_slots import ModelSlots
from workers.redis_conn import get_redis
from workers.settings import Settings, get_settings

log = logging.getLogger(__name__)
_lock = threading.Lock()
_port: tuple[int, ModelPort] | None = None


def make_provider(settings: Settings) -> Provider:
    if settings.uses_anthropic:
        from ella.llm.anthropic_provider import AnthropicProvider

        if settings.anthropic_api_key is None:
            raise RuntimeError("ELLA_LLM_PROVIDER=anthropic needs ANTHROPIC_API_KEY (or ELLA_ANTHROPIC_API_KEY)")
        return AnthropicProvider(
            settings.anthropic_api_key.get_secret_value(),
            settings.anthropic_base_url,
            timeout=settings.llm_timeout_s,
            max_retries=settings.llm_sdk_max_retries,
        )
    return OfflineProvider()


def record_call(call: CallRecord, batch: bool = False) -> None:
    """Write the ledger row in its own transaction; a ledger outage must not cost the user a reply."""
    row = ModelCall(
        user_id=call.user_id,
        kind=call.kind,
        tier=call.tier,
        model=call.model,
        provider=call.provider,
        batch=batch,
        input_tokens=call.usage.input_tokens,
        output_tokens=call.usage.output_tokens,
        cache_write_tokens=call.usage.cache_creation_input_tokens,
        cache_read_tokens=call.usage.cache_read_input_tokens,
        latency_ms=round(call.latency_ms, 2),
        outcome=call.outcome,
        attempt=call.attempt,
        error=call.error or None,
    )
    try:
        with autocommit_scope() as session:
            session.add(row)
            session.commit()
    except SQLAlchemyError as exc:
        log.warning("could not record a %s model call in the usage ledger: %s", call.kind, exc)


def make_port(settings: Settings | None = None) -> ModelPort:
    settings = settings or get_settings()
    slots = ModelSlots(
        get_redis(),
        f"{settings.redis_key_prefix}:llm:slots",
        settings.llm_max_concurrency,
        lease_s=settings.llm_timeout_s + 10,
        wait_s=settings.llm_timeout_s,
    )
    return ModelPort(
        make_provider(settings),
        settings.model_tiers,
        max_repairs=settings.llm_max_repairs,
        record=record_call,
        slot=slots.slot,
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

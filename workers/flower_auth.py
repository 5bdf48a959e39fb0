"""Flower behind basic auth on every path, on loopback unless told otherwise, however it is started.

Why here and not in Flower's options: Flower's basic auth is checked by its page and API handlers only; its
``/metrics`` and ``/healthcheck`` handlers (and the static files, the login page and the 404 page) answer
anyone, and with no ``--address`` it binds every interface. Neither ``flowerconfig.py`` nor any Celery
setting changes that. So the Flower application class its command builds is replaced by one that checks the
credentials before any handler is chosen, refuses to be built without credentials, and binds 127.0.0.1 when
no address is given (compose passes ``--address=0.0.0.0`` inside its container and publishes on the host's
loopback only).

``install`` is called by ``ella flower`` and by ``workers.app`` when the ``celery`` command that loads it has
Flower's command (``celery -A workers.app flower``, the way compose starts it).

And read-only (Flower's own ``read_only`` option, plus no inspect and no ``enable_events`` broadcast): its Redis
user may not use remote control at all, because with that password alone a shutdown could be broadcast around
the basic auth (docs/deployment-security.md).
"""

from __future__ import annotations

import asyncio
import binascii
import hmac
import sys
from base64 import b64decode
from collections.abc import Iterable
from typing import Any

import tornado.web

from adapters.settings import get_settings

LOOPBACK = "127.0.0.1"
CHALLENGE = 'Basic realm="ella flower", charset="UTF-8"'
REFUSAL = "refusing to start Flower without auth: set ELLA_FLOWER_BASIC_AUTH or FLOWER_BASIC_AUTH=user:password"


def authorized(header: str, credentials: Iterable[str]) -> bool:
    """Whether an ``Authorization`` header carries one of the ``user:password`` credentials."""
    scheme, _, value = header.partition(" ")
    if scheme.casefold() != "basic" or not value.strip():
        return False
    try:
        given = b64decode(value.strip(), validate=True)
    except (binascii.Error, ValueError):
        return False
    return any(hmac.compare_digest(given, expected.encode()) for expected in credentials)


class Unauthorized(tornado.web.RequestHandler):
    """The answer to every request without valid credentials, whatever its path or method."""

    def prepare(self) -> None:
        self.set_status(401)
        self.set_header("WWW-Authenticate", CHALLENGE)
        self.finish("401: authentication required\n")


def install() -> None:
    """Make the ``flower`` command build a guarded Flower (idempotent)."""
    import flower.command
    from flower.app import Flower
    from tornado.options import options

    if getattr(flower.command.Flower, "ella_guarded", False):
        return
    secret = get_settings().flower_basic_auth
    if secret is not None and not options.basic_auth:
        options.basic_auth = [secret.get_secret_value()]  # a default: FLOWER_BASIC_AUTH or --basic-auth win

    class GuardedFlower(Flower):  # type: ignore[misc]  # flower ships no type information
        ella_guarded = True

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            opts = kwargs.get("options") or options  # the command passes tornado's global options
            self.credentials = [c for c in (opts.basic_auth or []) if ":" in c]
            if not self.credentials:  # before Flower connects to anything
                print(REFUSAL, file=sys.stderr, flush=True)
                raise SystemExit(2)
            if not opts.address and not opts.unix_socket:
                opts.address = LOOPBACK
            # Read-only: Flower's Redis user may not publish remote control (deploy/redis/users.acl.template), so
            # its control API and buttons (shutdown, pool restart, revoke, rate limits) are off rather than
            # failing, and it does not broadcast enable_events (the workers send events themselves).
            opts.read_only = True
            opts.enable_events = False
            super().__init__(*args, **kwargs)

        def update_workers(self, workername: str | None = None) -> Any:
            """No inspect broadcast (the same PUBLISH as a shutdown, refused to Flower's user): an answered
            future, so a page that waits for it renders at once from the events."""
            done: asyncio.Future[None] = self.io_loop.asyncio_loop.create_future()
            done.set_result(None)
            return done

        def find_handler(self, request: Any, **kwargs: Any) -> Any:
            if not authorized(request.headers.get("Authorization", ""), self.credentials):
                return self.get_handler_delegate(request, Unauthorized)
            return super().find_handler(request, **kwargs)

    flower.command.Flower = GuardedFlower

    import flower.events
    from celery.events.receiver import EventReceiver

    class NoWakeupReceiver(EventReceiver):  # type: ignore[misc]
        """Flower's event receiver without its wake-up: ``capture(wakeup=True)`` (hard-coded in Flower) broadcasts
        ``heartbeat`` on the pidbox, a PUBLISH Flower's Redis user may not send; workers send a heartbeat every
        two seconds anyway, so Flower sees them without it."""

        def capture(self, limit: int | None = None, timeout: float | None = None, wakeup: bool = True) -> Any:
            return super().capture(limit=limit, timeout=timeout, wakeup=False)

    flower.events.EventReceiver = NoWakeupReceiver

"""The gateway's client: enqueue a user message, update a user's profile, forget a user, export what Ella holds
about a user, forget or correct one thing, list or search what she remembers a page at a time, read Ella's
replies, notifications, answers and memory_changed notices from the outbox.

A gateway imports this module only: ``enqueue_message`` and ``update_profile`` send their tasks by name, so none
of our tasks (nor their database code) is imported on the gateway's side.

Forgets, exports, corrections and memory pages are signed with ``ELLA_GATEWAY_SIGNING_KEY`` when it is set
(``ella.signing``): where the workers have the key, the broker password alone cannot make them act.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from celery import Celery

from adapters import inbox
from adapters.outbox_stream import OutboxReader
from adapters.redis_conn import get_redis
from adapters.settings import get_settings
from ella.signing import signed
from workers.routing import TaskName, queue_for
from workers.sending import send_ingest

__all__ = [
    "OutboxReader",
    "correct_fact",
    "enqueue_message",
    "export_user",
    "forget_memory",
    "forget_user",
    "outbox_reader",
    "send_ingest",
    "update_profile",
]


def enqueue_message(
    *,
    message_id: str,
    user_id: str,
    text: str,
    sent_at: datetime | str,
    conversation_id: str | None = None,
    app: Celery | None = None,
) -> str:
    """Send one user message to ``ella.ingest_message`` on the inbound queue; return the Celery task id.

    ``sent_at`` must carry a time zone. Sending the same ``message_id`` again is safe: it is answered once.
    """
    kwargs: dict[str, str] = {
        "message_id": message_id,
        "user_id": user_id,
        "text": text,
        "sent_at": sent_at.isoformat() if isinstance(sent_at, datetime) else sent_at,
    }
    if conversation_id is not None:
        kwargs["conversation_id"] = conversation_id
    inbox.remember(get_redis(), kwargs)  # first: if the send fails or the broker loses it, the sweep re-sends
    return send_ingest(kwargs, app)


def update_profile(
    *,
    user_id: str,
    updated_at: datetime | str,
    timezone: str,
    locale: str,
    is_minor: bool,
    do_not_disturb: str | None,
    active_hours: str,
    notifications: bool,
    app: Celery | None = None,
) -> str:
    """Send the user's whole profile as of ``updated_at`` to ``ella.update_profile``; return the Celery task id.

    Every field is required (a snapshot, so the newest one wins whole): ``updated_at`` with a time zone,
    ``timezone`` an IANA name, ``locale`` like ``en_GB``, windows as local ``"HH:MM-HH:MM"`` (may wrap
    midnight; ``do_not_disturb=None`` for none). A snapshot older than the stored one changes nothing.
    """
    if app is None:
        from workers.app import app as default_app

        app = default_app
    kwargs: dict[str, Any] = {
        "user_id": user_id,
        "updated_at": updated_at.isoformat() if isinstance(updated_at, datetime) else updated_at,
        "timezone": timezone,
        "locale": locale,
        "is_minor": is_minor,
        "do_not_disturb": do_not_disturb,
        "active_hours": active_hours,
        "notifications": notifications,
    }
    result = app.send_task(
        TaskName.UPDATE_PROFILE,
        kwargs=kwargs,
        queue=queue_for(TaskName.UPDATE_PROFILE, get_settings()),
        kwargsrepr=repr({"user_id": user_id, "updated_at": kwargs["updated_at"]}),  # not where they live, nor age
    )
    return result.id


def forget_user(*, user_id: str, app: Celery | None = None) -> str:
    """Erase the user everywhere (``ella.forget_user``, the right to be forgotten); return the Celery task id.

    Messages of the user already queued are answered and then erased; any that arrives later (a redelivery, a
    re-send) is refused, not answered. Asking twice is safe. Anonymous counts the law asks for are kept.
    """
    if app is None:
        from workers.app import app as default_app

        app = default_app
    result = app.send_task(
        TaskName.FORGET_USER,
        kwargs=_signed(TaskName.FORGET_USER, {"user": user_id}),
        queue=queue_for(TaskName.FORGET_USER, get_settings()),
        kwargsrepr=repr({"user": "<erased>"}),  # Flower and the logs never show whom
    )
    return result.id


def _memory_request(task: TaskName, kwargs: dict[str, Any], app: Celery | None) -> str:
    if app is None:
        from workers.app import app as default_app

        app = default_app
    shown = {k: kwargs[k] for k in ("request_id", "item") if k in kwargs}  # never the value or the reason
    kwargs = _signed(task, kwargs)
    result = app.send_task(task, kwargs=kwargs, queue=queue_for(task, get_settings()), kwargsrepr=repr(shown))
    return result.id


def _signed(task: TaskName, kwargs: dict[str, Any]) -> dict[str, Any]:
    """``kwargs`` with the request's signature (``ella.signing``) when ``ELLA_GATEWAY_SIGNING_KEY`` is set: a
    forget, export, correction or memory page is refused without it where the workers have the key."""
    secret = get_settings().gateway_signing_key
    return signed(secret.get_secret_value() if secret is not None else None, task, kwargs)


def export_user(*, request_id: str, user_id: str, reason: str = "", app: Celery | None = None) -> str:
    """Ask for everything Ella holds about the user (an access or portability request); the answer (kind
    ``answer``, ``in_reply_to`` = ``request_id``) carries the document as JSON under ``export``."""
    return _memory_request(TaskName.EXPORT_USER, {"request_id": request_id, "user_id": user_id, "reason": reason}, app)


def forget_memory(*, request_id: str, user_id: str, item: str, reason: str = "", app: Celery | None = None) -> str:
    """Forget one item, ``"memory:<id>"`` or ``"fact:<id>"`` (ids as the export names them), and everything that
    holds its words; answered ``done`` with the ids changed, or ``refused`` with an error code."""
    kwargs = {"request_id": request_id, "user_id": user_id, "item": item, "reason": reason}
    return _memory_request(TaskName.FORGET_MEMORY, kwargs, app)


def correct_fact(
    *, request_id: str, user_id: str, item: str, value: str, reason: str = "", app: Celery | None = None
) -> str:
    """Correct one fact about the user (``"fact:<id>"``) to ``value``: the fact is superseded, its history kept.
    A fact of Ella's own world is refused (``user_words_into_canon``)."""
    kwargs = {"request_id": request_id, "user_id": user_id, "item": item, "value": value, "reason": reason}
    return _memory_request(TaskName.CORRECT_FACT, kwargs, app)


def list_memory(
    *,
    request_id: str,
    user_id: str,
    kind: str,
    limit: int = 20,
    cursor: str | None = None,
    include_past: bool = False,
    app: Celery | None = None,
) -> str:
    """One page (``limit`` 1 to 100) of the user's ``fact``, ``memory`` or ``thought`` items, newest first; pass the
    answer's ``next_cursor`` as ``cursor`` for the next page. ``include_past``: superseded and retired facts too."""
    kwargs: dict[str, Any] = {"request_id": request_id, "user_id": user_id, "kind": kind, "limit": limit,
                              "include_past": include_past}  # fmt: skip
    if cursor is not None:
        kwargs["cursor"] = cursor
    return _memory_request(TaskName.LIST_MEMORY, kwargs, app)


def search_memory(
    *,
    request_id: str,
    user_id: str,
    kind: str,
    query: str,
    limit: int = 20,
    cursor: str | None = None,
    include_past: bool = False,
    app: Celery | None = None,
) -> str:
    """As ``list_memory``, only the items whose text holds ``query`` (case-insensitive)."""
    kwargs: dict[str, Any] = {"request_id": request_id, "user_id": user_id, "kind": kind, "query": query,
                              "limit": limit, "include_past": include_past}  # fmt: skip
    if cursor is not None:
        kwargs["cursor"] = cursor
    return _memory_request(TaskName.SEARCH_MEMORY, kwargs, app)


def outbox_reader(group: str, consumer: str, *, start_id: str = "0") -> OutboxReader:
    """A consumer-group reader of the outbox stream on the configured Redis."""
    return OutboxReader(get_redis(), group, consumer, start_id=start_id)

"""Structured logs: JSON lines in workers, each carrying the task id and a pseudonym of the user in scope.

Why: the operator on call greps one user's or one task's story across three queues; a log line without
those two is noise at 3 a.m. But a log line is not where a user's id or words belong: log files are copied,
shipped and kept beyond an erasure's reach. So the user is named by ``user``, a pseudonym: the first 12 hex
characters of the user's tombstone key (HMAC-SHA256 of the id with ``ELLA_FORGET_HMAC_KEY``, as
``models.erasure.tombstone_key`` and the erasure's own log lines), which the operator can compute from an id and
nobody can reverse without the key. And whatever a client sent (a Node client sets no ``kwargsrepr``; a message
may name the user in its text), the filter rewrites a line that spells the current task's user id or text:
the id becomes the pseudonym, the text ``<text>``. Celery's own "received"/"succeeded"/"failed" lines print
``argsrepr``/``kwargsrepr``, which ``workers.envelopes`` rewrites on receipt to the kwargs' names only.
"""

from __future__ import annotations

import contextvars
import hashlib
import hmac
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

from pythonjsonlogger.json import JsonFormatter

current_user_id: contextvars.ContextVar[str | None] = contextvars.ContextVar("current_user_id", default=None)

FIELDS = "%(asctime)s %(levelname)s %(name)s %(message)s %(process)d %(task_id)s %(task_name)s %(user_id)s"
MIN_REDACTED_TEXT = 6  # a shorter text ("hi") would blank out common words of other lines; it says nothing either
_TEXT_KWARGS = ("text", "description", "value", "reason", "body")


@lru_cache(maxsize=4096)
def pseudonym(user_id: str) -> str:
    """``u:`` and the first 12 hex characters of the user's tombstone key (see the module docstring)."""
    from workers.settings import get_settings

    secret = get_settings().forget_hmac_key.get_secret_value().encode("utf-8")
    digest = hmac.new(secret, user_id.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()
    return f"u:{digest[:12]}"


def _task_context() -> tuple[str | None, str | None, dict[str, Any]]:
    try:
        from celery import current_task

        if current_task and current_task.request and current_task.request.id:
            kwargs = current_task.request.kwargs
            return current_task.request.id, current_task.name, kwargs if isinstance(kwargs, dict) else {}
    except ImportError:
        pass
    return None, None, {}


def _redact(record: logging.LogRecord, secrets: dict[str, str]) -> None:
    """Rewrite the record's message when it spells one of ``secrets`` (value -> what is shown instead)."""
    try:
        message = record.getMessage()
    except (TypeError, ValueError):
        return
    shown = _without(message, secrets)
    if shown != message:
        record.msg, record.args = shown, None
    if record.exc_info:  # the traceback, formatted now so that it can be rewritten too
        record.exc_text = _without(logging.Formatter().formatException(record.exc_info), secrets)
        record.exc_info = None
    data = getattr(record, "data", None)  # Celery's trace lines carry their context there (our JSON prints it)
    if isinstance(data, dict):
        record.data = {k: _without(v, secrets) if isinstance(v, str) else v for k, v in data.items()}


def _without(text: str, secrets: dict[str, str]) -> str:
    for secret, replacement in secrets.items():
        if secret in text:
            text = text.replace(secret, replacement)
    return text


class ContextFilter(logging.Filter):
    """Stamp every record with the running Celery task's id and name and the pseudonym of the user being served,
    and keep that user's id and the task's text out of the message."""

    def filter(self, record: logging.LogRecord) -> bool:
        task_id, task_name, kwargs = _task_context()
        user_id = current_user_id.get()
        if not user_id and isinstance(kwargs.get("user_id"), str):
            user_id = kwargs["user_id"][:128]
        secrets: dict[str, str] = {}
        for name in _TEXT_KWARGS:
            value = kwargs.get(name)
            if isinstance(value, str) and len(value) >= MIN_REDACTED_TEXT:
                secrets[value] = "<text>"
        if user_id:
            secrets[user_id] = pseudonym(user_id)
        if secrets:
            _redact(record, secrets)
        given = getattr(record, "user_id", None)
        if isinstance(given, str) and given and not given.startswith("u:"):
            given = pseudonym(given)  # a caller's ``extra={"user_id": ...}`` is pseudonymised too
        record.task_id = getattr(record, "task_id", None) or task_id
        record.task_name = getattr(record, "task_name", None) or task_name
        record.user_id = given or (pseudonym(user_id) if user_id else None)
        return True


@contextmanager
def user_scope(user_id: str | None) -> Iterator[None]:
    token = current_user_id.set(user_id)
    try:
        yield
    finally:
        current_user_id.reset(token)


def json_formatter() -> logging.Formatter:
    return JsonFormatter(
        FIELDS, rename_fields={"levelname": "level", "asctime": "ts", "name": "logger", "user_id": "user"}
    )


def install(logger: logging.Logger, as_json: bool) -> None:
    """Put the context filter (and the JSON formatter if asked) on every handler of ``logger``."""
    for handler in logger.handlers:
        if not any(isinstance(f, ContextFilter) for f in handler.filters):
            handler.addFilter(ContextFilter())
        if as_json:
            handler.setFormatter(json_formatter())

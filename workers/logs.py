"""Structured logs: JSON lines in workers, each carrying the task id and the user id in scope.

Why: the operator on call greps one user's or one task's story across three queues; a log line without
those two ids is noise at 3 a.m.
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Iterator
from contextlib import contextmanager

from pythonjsonlogger.json import JsonFormatter

current_user_id: contextvars.ContextVar[str | None] = contextvars.ContextVar("current_user_id", default=None)

FIELDS = "%(asctime)s %(levelname)s %(name)s %(message)s %(process)d %(task_id)s %(task_name)s %(user_id)s"


class ContextFilter(logging.Filter):
    """Stamp every record with the running Celery task's id and name and the user being served."""

    def filter(self, record: logging.LogRecord) -> bool:
        task_id = task_name = None
        user_id = current_user_id.get()
        try:
            from celery import current_task

            if current_task and current_task.request and current_task.request.id:
                task_id, task_name = current_task.request.id, current_task.name
                kwargs = current_task.request.kwargs
                if isinstance(kwargs, dict) and isinstance(kwargs.get("user_id"), str) and not user_id:
                    user_id = kwargs["user_id"][:128]
        except ImportError:
            pass
        record.task_id = getattr(record, "task_id", None) or task_id
        record.task_name = getattr(record, "task_name", None) or task_name
        record.user_id = getattr(record, "user_id", None) or user_id
        return True


@contextmanager
def user_scope(user_id: str | None) -> Iterator[None]:
    token = current_user_id.set(user_id)
    try:
        yield
    finally:
        current_user_id.reset(token)


def json_formatter() -> logging.Formatter:
    return JsonFormatter(FIELDS, rename_fields={"levelname": "level", "asctime": "ts", "name": "logger"})


def install(logger: logging.Logger, as_json: bool) -> None:
    """Put the context filter (and the JSON formatter if asked) on every handler of ``logger``."""
    for handler in logger.handlers:
        if not any(isinstance(f, ContextFilter) for f in handler.filters):
            handler.addFilter(ContextFilter())
        if as_json:
            handler.setFormatter(json_formatter())

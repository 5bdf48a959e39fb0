"""The ingest task sent by name: the gateway's first send, and the inbox sweep's re-send of a message the broker
lost (``tasks.inbox``).

Why in the process wiring and not in the gateway's client: the sweep is a task, and a task imports nothing of the
entry points above it (``tests/test_architecture.py``); the client re-exports it. By name (``send_task``), so the
sender imports none of our tasks nor their database code.
"""

from __future__ import annotations

from typing import Any

from celery import Celery

from adapters.settings import get_settings
from workers.routing import TaskName, queue_for


def send_ingest(kwargs: dict[str, Any], app: Celery | None = None) -> str:
    """``send_task`` of ``ella.ingest_message``; workers log the ids and the text's length, never the words."""
    if app is None:
        from workers.app import app as default_app

        app = default_app
    text = kwargs.get("text")
    shown = {**kwargs, "text": f"<{len(text)} chars>" if isinstance(text, str) else "<not text>"}
    result = app.send_task(
        TaskName.INGEST_MESSAGE,
        kwargs=kwargs,
        queue=queue_for(TaskName.INGEST_MESSAGE, get_settings()),
        kwargsrepr=repr(shown),
    )
    return result.id

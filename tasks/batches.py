"""The Message Batches service's periodic tasks; the service itself is ``adapters/model_batches.py``."""

from __future__ import annotations

from typing import Any

from adapters.model_batches import flush_pending, poll
from workers.app import app
from workers.reliability import ReliableTask
from workers.routing import TaskName


@app.task(name=TaskName.FLUSH_MODEL_BATCHES, base=ReliableTask, bind=True)
def flush_model_batches(self: ReliableTask) -> dict[str, Any]:
    """Send what is queued (a flush claims items under lock, so two at once send disjoint sets)."""
    return flush_pending().as_dict()


@app.task(name=TaskName.POLL_MODEL_BATCHES, base=ReliableTask, bind=True)
def poll_model_batches(self: ReliableTask) -> dict[str, Any]:
    """Apply what has ended (a poll applies only what is still waiting on the batch it reads)."""
    return poll().as_dict()

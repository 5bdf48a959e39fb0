"""A consumer step that fails to start: the worker's "Unrecoverable error" path (loaded only by test workers)."""

from __future__ import annotations

from typing import Any

from celery import bootsteps

from workers.app import app


class BrokenStep(bootsteps.StartStopStep):
    requires = ("celery.worker.consumer.tasks:Tasks",)

    def start(self, parent: Any) -> None:
        raise RuntimeError("a consumer step that cannot start (test)")


app.steps["consumer"].add(BrokenStep)

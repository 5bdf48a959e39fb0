"""Every task's route: the broker queue it runs on, from the queue roles and the settings.

Why one module: a queue is a capacity decision (the inbound queue must never wait behind a batch job); the
names and roles are plain values in ``ella.task_names`` (re-exported here for the tasks and entry points), and
this module turns them into Celery's ``task_routes``. Importing it imports nothing of ours but those names.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ella.task_names import QUEUE_OF, Queue, TaskName

if TYPE_CHECKING:
    from adapters.settings import Settings

__all__ = ["QUEUE_OF", "Queue", "TaskName", "queue_for", "task_routes"]


def queue_for(task: TaskName, settings: Settings) -> str:
    """The broker queue ``task`` runs on."""
    return QUEUE_OF[task].name_in(settings)


def task_routes(settings: Settings) -> dict[str, dict[str, str]]:
    """Celery's ``task_routes``: every task to its queue."""
    return {str(task): {"queue": queue_for(task, settings)} for task in TaskName}

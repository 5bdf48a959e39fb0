"""Every periodic job in one place, each with an expiry so a backlog never replays stale runs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from celery.schedules import crontab

if TYPE_CHECKING:
    from workers.settings import Settings


def beat_schedule(settings: Settings) -> dict[str, dict[str, Any]]:
    return {
        "close-due-conversations": {
            "task": "ella.close_due_conversations",
            "schedule": 60.0,
            "options": {"queue": settings.queue_cognition, "expires": 55},
        },
        "resend-unanswered-messages": {
            "task": "ella.resend_unanswered_messages",
            "schedule": settings.inbox_sweep_interval_s,
            "options": {"queue": settings.queue_inbound, "expires": settings.inbox_sweep_interval_s},
        },
        "poll-model-batches": {
            "task": "ella.poll_model_batches",
            "schedule": 60.0,
            "options": {"queue": settings.queue_batch, "expires": 55},
        },
        "resolve-contested-facts": {
            "task": "ella.resolve_contested_facts",
            "schedule": crontab(minute=30, hour=3, day_of_week="sunday"),
            "options": {"queue": settings.queue_batch, "expires": 6 * 3600},
        },
        "boundary-regression": {
            "task": "ella.boundary_regression",
            "schedule": crontab(minute=15, hour=2),
            "options": {"queue": settings.queue_batch, "expires": 6 * 3600},
        },
        "flush-model-batches": {
            "task": "ella.flush_model_batches",
            "schedule": 300.0,
            "options": {"queue": settings.queue_batch, "expires": 290},
        },
    }

"""Every periodic job in one place, each with an expiry so a backlog never replays stale runs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from celery.schedules import crontab

from workers.routing import Queue, TaskName

if TYPE_CHECKING:
    from adapters.settings import Settings


def beat_schedule(settings: Settings) -> dict[str, dict[str, Any]]:
    return {
        "close-due-conversations": {
            "task": TaskName.CLOSE_DUE_CONVERSATIONS,
            "schedule": 60.0,
            "options": {"queue": Queue.COGNITION.name_in(settings), "expires": 55},
        },
        "resend-unanswered-messages": {
            "task": TaskName.RESEND_UNANSWERED_MESSAGES,
            "schedule": settings.inbox_sweep_interval_s,
            "options": {"queue": Queue.INBOUND.name_in(settings), "expires": settings.inbox_sweep_interval_s},
        },
        "send-pending-effects": {
            "task": TaskName.SEND_PENDING_EFFECTS,
            "schedule": settings.inbox_sweep_interval_s,
            "options": {"queue": Queue.INBOUND.name_in(settings), "expires": settings.inbox_sweep_interval_s},
        },
        # The erasures' second passes: due ones whose countdown task the broker lost (tasks/privacy.py).
        "forget-users-again": {
            "task": TaskName.FORGET_USERS_AGAIN,
            "schedule": 60.0,
            "options": {"queue": Queue.INBOUND.name_in(settings), "expires": 55},
        },
        "poll-model-batches": {
            "task": TaskName.POLL_MODEL_BATCHES,
            "schedule": 60.0,
            "options": {"queue": Queue.BATCH.name_in(settings), "expires": 55},
        },
        "resolve-contested-facts": {
            "task": TaskName.RESOLVE_CONTESTED_FACTS,
            "schedule": crontab(minute=30, hour=3, day_of_week="sunday"),
            "options": {"queue": Queue.BATCH.name_in(settings), "expires": 6 * 3600},
        },
        "boundary-regression": {
            "task": TaskName.BOUNDARY_REGRESSION,
            "schedule": crontab(minute=15, hour=2),
            "options": {"queue": Queue.BATCH.name_in(settings), "expires": 6 * 3600},
        },
        "make-followups": {
            "task": TaskName.MAKE_FOLLOWUPS,
            "schedule": 900.0,
            "options": {"queue": Queue.BATCH.name_in(settings), "expires": 890},
        },
        "make-generic-checkins": {
            "task": TaskName.MAKE_GENERIC_CHECKINS,
            "schedule": crontab(minute=45, hour="*/6"),
            "options": {"queue": Queue.BATCH.name_in(settings), "expires": 3 * 3600},
        },
        "dispatch-notifications": {
            "task": TaskName.DISPATCH_NOTIFICATIONS,
            "schedule": settings.notification_dispatch_interval_s,
            "options": {"queue": Queue.BATCH.name_in(settings), "expires": settings.notification_dispatch_interval_s},
        },
        # The digest, the chapters and the arcs: runs opened per UTC hour slot, paged into chunk tasks.
        "plan-jobs": {
            "task": TaskName.PLAN_JOBS,
            "schedule": 300.0,
            "options": {"queue": Queue.BATCH.name_in(settings), "expires": 290},
        },
        # Retention: the logs' rows older than their settings (tasks/retention.py), at a quiet hour.
        "prune-logs": {
            "task": TaskName.PRUNE_LOGS,
            "schedule": crontab(minute=40, hour=4),
            "options": {"queue": Queue.BATCH.name_in(settings), "expires": 6 * 3600},
        },
        "flush-model-batches": {
            "task": TaskName.FLUSH_MODEL_BATCHES,
            "schedule": 300.0,
            "options": {"queue": Queue.BATCH.name_in(settings), "expires": 290},
        },
    }

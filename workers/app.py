"""The Celery app ``workers.app:app`` and its configuration.

Why everything is here: one small module an operator can read to know how tasks are delivered, retried,
timed out and routed. The numbers come from settings and nest as DESIGN.md requires.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

from celery import Celery, signals
from kombu import Queue

from beat_schedule import beat_schedule
from workers import db, logs
from workers.redis_conn import kombu_url, redis_url
from workers.routing import task_routes
from workers.settings import Settings, get_settings

TASK_MODULES = [
    "tasks.ingest",
    "tasks.conversations",
    "tasks.inbox",
    "tasks.memory",
    "tasks.ledger",
    "tasks.guard",
    "tasks.batches",
    "tasks.notifications",
    "tasks.followups",
    "tasks.profile",
]


def celery_config(settings: Settings) -> dict[str, Any]:
    url = redis_url(settings)
    transport = {
        "visibility_timeout": settings.visibility_timeout_s,
        "unacked_restore_interval": settings.unacked_restore_interval_s,
        "unacked_restore_throttle": settings.unacked_restore_throttle,
        "unacked_mutex_expire": settings.unacked_mutex_expire_s,
    }
    return {
        "broker_url": kombu_url(url),
        "result_backend": kombu_url(url),
        "broker_transport_options": transport,
        "result_backend_transport_options": {"visibility_timeout": settings.visibility_timeout_s},
        "visibility_timeout": settings.visibility_timeout_s,
        "broker_connection_retry_on_startup": True,
        "task_serializer": "json",
        "result_serializer": "json",
        "accept_content": ["json"],
        "result_accept_content": ["json"],
        "task_acks_late": True,
        "task_reject_on_worker_lost": True,
        "worker_prefetch_multiplier": 1,
        "worker_cancel_long_running_tasks_on_connection_loss": True,
        "task_time_limit": settings.task_time_limit_s,
        "task_soft_time_limit": settings.task_soft_time_limit_s,
        "task_ignore_result": True,
        "result_expires": settings.result_expires_s,
        "task_queues": [Queue(name) for name in settings.queues],
        "task_default_queue": settings.queue_cognition,
        "task_routes": task_routes(settings),
        "task_create_missing_queues": False,
        "worker_hijack_root_logger": True,
        "worker_redirect_stdouts": True,
        "beat_scheduler": "redbeat.RedBeatScheduler",
        "redbeat_redis_url": url,
        "redbeat_key_prefix": f"{settings.redis_key_prefix}:redbeat:",
        "redbeat_lock_timeout": 5 * 60,
        "beat_schedule": beat_schedule(settings),
        "timezone": "UTC",
        "enable_utc": True,
    }


app = Celery("ella", include=TASK_MODULES)
# Lazy: the configuration (and the embedded Redis it may start) is resolved on first use, so importing the
# app (the gateway client does) costs nothing.
app.add_defaults(lambda: celery_config(get_settings()))


def _json_logs() -> bool:
    setting = get_settings().log_json
    return True if setting is None else setting


@signals.after_setup_logger.connect
@signals.after_setup_task_logger.connect
def _structured_logs(logger: logging.Logger, **_: Any) -> None:
    logs.install(logger, as_json=_json_logs())


@signals.worker_init.connect
def _refuse_stale_schema(**_: Any) -> None:
    """A worker on a schema that is behind would fail on every task; refuse to start instead."""
    try:
        db.require_current_schema()
    except db.SchemaOutOfDate as exc:
        logging.getLogger("workers.app").critical("%s", exc)
        print(f"ella worker: {exc}", file=sys.stderr)
        raise SystemExit(3) from exc


@signals.worker_init.connect
def _warn_deprecated_models(**_: Any) -> None:
    for tier, warning in get_settings().deprecated_models().items():
        logging.getLogger("workers.app").warning("model for %s: %s", tier, warning)


@signals.worker_process_init.connect
def _dispose_engine_after_fork(**_: Any) -> None:
    db.dispose_after_fork()

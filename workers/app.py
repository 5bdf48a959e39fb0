"""The Celery app ``workers.app:app`` and its configuration.

Why everything is here: one small module an operator can read to know how tasks are delivered, retried,
timed out and routed. The numbers come from settings and nest as DESIGN.md requires.
"""

from __future__ import annotations

import gc
import logging
import sys
from collections.abc import Callable
from typing import Any

import redis
from celery import Celery, signals
from kombu import Queue

from adapters import db
from adapters.redis_conn import kombu_url, redis_url
from adapters.settings import Settings, get_settings
from beat_schedule import beat_schedule
from workers import broker_patches, envelopes, logs
from workers.routing import task_routes

TASK_MODULES = [
    "tasks.ingest",
    "tasks.conversations",
    "tasks.inbox",
    "tasks.effects",
    "tasks.memory",
    "tasks.ledger",
    "tasks.guard",
    "tasks.batches",
    "tasks.jobs",
    "tasks.images",
    "tasks.chapters",
    "tasks.arcs",
    "tasks.notifications",
    "tasks.followups",
    "tasks.digest",
    "tasks.profile",
    "tasks.privacy",
    "tasks.memory_requests",
    "tasks.reembed",
    "tasks.retention",
]


log = logging.getLogger("workers.app")

broker_patches.install()  # a torn-down broker connection leaves its deliveries unacked, never kills the worker


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
        # Task events on by themselves: Flower's Redis user may not broadcast ``enable_events`` (no remote control,
        # deploy/redis/users.acl.template), and its dashboard and task list are built from these events.
        "worker_send_task_events": True,
        "task_reject_on_worker_lost": True,
        "worker_prefetch_multiplier": 1,
        "worker_consumer": "workers.consumer:EllaConsumer",  # reconnects within seconds (see that module)
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
        # A beat that dies without releasing its lock (Redis down at the time) blocks its successor until the
        # lock expires; short, and extended on every tick (at most beat_max_loop_interval_s apart).
        "redbeat_lock_timeout": settings.beat_lock_timeout_s,
        "beat_max_loop_interval": settings.beat_max_loop_interval_s,
        "beat_schedule": beat_schedule(settings),
        "timezone": "UTC",
        "enable_utc": True,
    }


class EllaCelery(Celery):  # type: ignore[misc]
    def send_task(self, *args: Any, **options: Any) -> Any:
        """Send as Celery does, but with no time limits in the message: the worker that runs a task applies its own
        (``task_time_limit`` and ``task_soft_time_limit``, from its settings).

        Why: Celery 5.7's ``send_task`` (and ``apply_async``, which calls it) merges a registered task's execution
        options into the message, its time limits bound from the *sender's* configuration, and a message's limits
        win over the worker's. So a worker emitting effects, beat or the CLI stamped their own limits on every task
        they sent, and a batch worker given longer limits than the inbound ones still cut the inbound ones' tasks
        short (the tests saw it: workers given 120 s ran their messages on the test process's 5 s). No caller
        here asks for per-message limits; an explicit None is Celery's way to send none."""
        options["time_limit"] = None
        options["soft_time_limit"] = None
        return super().send_task(*args, **options)

    def start(self, argv: list[str] | None = None) -> Any:
        """Run the ``celery`` command and exit with its status (``ella worker``, ``ella beat`` call this).

        Why: Celery's ``app.start`` runs click with ``standalone_mode=False`` and *returns* the exit code, so a
        worker that stopped on "Unrecoverable error" (code 1) left ``ella worker`` exiting 0 (``Celery.start``
        drops even that return value: it is re-done here, as in Celery 5.7), and an
        ``on-failure`` restart policy did not bring it back.
        """
        from celery.bin.celery import celery
        from click.exceptions import Exit

        celery.params[0].default = self  # as Celery.start does
        try:
            code = celery.main(args=sys.argv if argv is None else argv, standalone_mode=False)
        except Exit as exc:
            code = exc.exit_code
        finally:
            celery.params[0].default = None
        if isinstance(code, int) and code:
            raise SystemExit(code)
        return code


app = EllaCelery("ella", include=TASK_MODULES)
# Lazy: the configuration (and the embedded Redis it may start) is resolved on first use, so importing the
# app (the gateway client does) costs nothing.
app.add_defaults(lambda: celery_config(get_settings()))
# A malformed message on our queues is a dead letter, never a dead worker (``app.tasks`` read per message, not now).
envelopes.install(lambda name: name in app.tasks)

if "flower.command" in sys.modules:  # loaded by the `celery` command, which may be `celery ... flower`:
    from workers import flower_auth  # Flower then answers nothing without credentials (see that module)

    flower_auth.install()


def _json_logs() -> bool:
    setting = get_settings().log_json
    return True if setting is None else setting


@signals.after_setup_logger.connect
@signals.after_setup_task_logger.connect
def _structured_logs(logger: logging.Logger, **_: Any) -> None:
    logs.install(logger, as_json=_json_logs())


def refuse_unnamed_offline(process: str) -> None:
    """Exit (status 2) with the reason on stderr when ``Settings.offline_refusal`` says this process must not run."""
    reason = get_settings().offline_refusal()
    if reason is None:
        return
    logging.getLogger("workers.app").critical("%s", reason)
    print(f"ella {process}: {reason}", file=sys.stderr, flush=True)
    raise SystemExit(2)


@signals.worker_init.connect
def _refuse_offline_worker(**_: Any) -> None:
    refuse_unnamed_offline("worker")


@signals.worker_init.connect
def _refuse_unsigned_production(**_: Any) -> None:
    """``Settings.signing_refusal``: a production worker without the gateway's signing key exits (status 2)."""
    reason = get_settings().signing_refusal()
    if reason is not None:
        logging.getLogger("workers.app").critical("%s", reason)
        print(f"ella worker: {reason}", file=sys.stderr, flush=True)
        raise SystemExit(2)


@signals.worker_init.connect
def _create_outbox_groups(**_: Any) -> None:
    """The gateways' consumer groups (``ELLA_OUTBOX_GROUPS``), made here because the gateway's Redis user may not
    run ``XGROUP CREATE`` (deploy/redis/users.acl.template: a group of its own from id 0 would read every reply
    the stream holds). A group that exists is left as it is; Redis down: the next worker start makes it."""
    from adapters.outbox_stream import ensure_groups
    from adapters.redis_conn import get_redis

    try:
        ensure_groups(get_redis(), get_settings().outbox_stream, get_settings().outbox_groups)
    except redis.RedisError as exc:
        logging.getLogger("workers.app").warning("outbox groups not created (%s): the next start tries again", exc)


@signals.beat_init.connect
def _refuse_offline_beat(**_: Any) -> None:
    refuse_unnamed_offline("beat")


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


@signals.worker_init.connect
def _warm_the_guard(**_: Any) -> None:
    """The guard loaded in the main process, before the pool forks (``ella.guard.classifier.prepare``), with the
    sentence encoder it shares with memory (one copy of its weights for every child)."""
    from adapters.embedding_cache import share_with_the_guard
    from ella.guard.classifier import prepare

    share_with_the_guard()
    prepare()


@signals.worker_init.connect
def _freeze_the_heap(**_: Any) -> None:
    """Move everything loaded so far (the app, the tables, the guard, the encoder) out of the garbage collector's
    reach (``gc.freeze``), after the warm-up above and before the pool forks. Why: Celery's prefork pool runs a
    full ``gc.collect()`` before it forks each child (celery#2927), which walked that whole heap every time, 0.35 s
    of CPU per child at start-up; and a child's collections no longer write to the pages it shares with the parent
    (the use Python's docs give ``gc.freeze`` for), so the children keep sharing the encoder's memory."""
    gc.freeze()


@signals.worker_process_init.connect
def _dispose_engine_after_fork(**_: Any) -> None:
    db.dispose_after_fork()


BROKER_DOWN_ERRORS = (redis.ConnectionError, redis.TimeoutError, redis.exceptions.BusyLoadingError)


def outage_tolerant_tick(scheduler: Any, retry_s: float) -> Callable[..., float]:
    """Wrap ``scheduler.tick`` so a Redis outage makes beat wait and retry instead of exiting.

    Why: redbeat's tick reads the schedule and extends its lock in Redis; a ``ConnectionError`` there ends
    ``celery beat`` (it did on 3 of 3 outages), and with Redis's AOF its lock outlived it. Here an outage is a
    warning and a retry every ``retry_s``; when Redis is back, a lock that expired or vanished meanwhile
    (``LockNotOwnedError``, or no lock because Redis was down at start) is taken again through redbeat's own
    acquire, which waits while another live beat holds it, so two beats still never run together.
    """
    from redbeat.schedulers import acquire_distributed_beat_lock

    original = scheduler.tick

    class _Service:  # what redbeat's beat_init handler reads: ``sender.scheduler``
        def __init__(self) -> None:
            self.scheduler = scheduler

    def tick(*args: Any, **kwargs: Any) -> float:
        try:
            if getattr(scheduler, "lock_key", None) and getattr(scheduler, "lock", None) is None:
                log.warning("beat: taking the redbeat lock %s", scheduler.lock_key)
                acquire_distributed_beat_lock(sender=_Service())
            return float(original(*args, **kwargs))
        except BROKER_DOWN_ERRORS as exc:
            log.warning("beat: Redis unreachable (%s: %s); retrying in %.0fs", type(exc).__name__, exc, retry_s)
            return retry_s
        except redis.exceptions.LockNotOwnedError:
            log.warning("beat: the redbeat lock expired while Redis was away; taking it again")
            scheduler.lock = None
            return 0.1

    return tick


@signals.beat_init.connect
def _survive_redis_outages(sender: Any = None, **_: Any) -> None:
    scheduler = getattr(sender, "scheduler", None)
    if scheduler is not None:
        scheduler.tick = outage_tolerant_tick(scheduler, retry_s=min(5.0, get_settings().beat_max_loop_interval_s))

"""The base class of every Ella task: late acks, a redelivery cap, dead letters, retries for transient faults.

Why: with ``acks_late`` and ``reject_on_worker_lost`` a task whose worker dies is delivered again, which is
what makes a ``kill -9`` lose nothing; but a task that kills its worker every time would then loop forever.
Deliveries are counted by (task id, retry number) in Redis; past ``max_deliveries`` the task goes to the
dead-letter table instead of running again. Malformed payloads go there at once and are never retried.
Model errors: transient ones (429, 529, 5xx, timeouts) become Celery retries with backoff and jitter,
honouring Retry-After; permanent ones (400, 401, 403) are dead-lettered with the reason, not retried.
"""

from __future__ import annotations

import logging
from typing import Any

import redis
from celery import Task
from sqlalchemy.exc import OperationalError

from ella.contract import MalformedPayload
from ella.llm.types import PermanentModelError, TransientModelError
from workers.dead_letters import record_dead_letter
from workers.llm import retry_delay, usage_batch
from workers.redis_conn import get_redis
from workers.settings import get_settings

log = logging.getLogger(__name__)

TRANSIENT_ERRORS: tuple[type[BaseException], ...] = (
    OperationalError,
    redis.ConnectionError,
    redis.TimeoutError,
)


class DeadLettered(Exception):
    """The task was recorded in ``dead_letters`` and will not run again.

    Raised rather than returned so that Celery records the task as FAILURE, with this reason, where operators
    look (Flower, the ``task-failed`` event, the result backend); the message is still acknowledged (late acks
    ack a failure) and nothing retries it. ``throws`` marks it as expected: no traceback in the worker log.
    """

    def __init__(self, reason: str, dead_letter_id: int | None = None) -> None:
        super().__init__(reason, dead_letter_id)  # both in args: Celery rebuilds it from them on the client
        self.reason = reason
        self.dead_letter_id = dead_letter_id

    def __str__(self) -> str:
        return f"dead-lettered (dead_letters.id={self.dead_letter_id}): {self.reason}"


def delivery_key(task_id: str, retries: int) -> str:
    return f"{get_settings().redis_key_prefix}:deliveries:{task_id}:{retries}"


class ReliableTask(Task):
    """Idempotent tasks only: a task using this base may run more than once for one message."""

    acks_late = True
    reject_on_worker_lost = True
    autoretry_for = TRANSIENT_ERRORS
    retry_backoff = 2
    retry_backoff_max = 300
    retry_jitter = True
    max_retries = 8
    throws = (DeadLettered,)

    def dead_letter(self, reason: str, args: Any, kwargs: Any) -> DeadLettered:
        """Record this delivery in ``dead_letters``; the exception to raise so that it shows as failed."""
        row_id = record_dead_letter(self.name, self.request.id, reason, args, kwargs)
        return DeadLettered(reason, row_id)

    def _count_delivery(self) -> int | None:
        req = self.request
        key = delivery_key(req.id, req.retries or 0)
        ttl = get_settings().visibility_timeout_s * (get_settings().max_deliveries + 2)
        try:
            pipe = get_redis().pipeline()
            pipe.incr(key)
            pipe.expire(key, ttl)
            count, _ = pipe.execute()
        except redis.RedisError as exc:
            # The cap is a safety net; without Redis the broker is down too and nothing is delivered anyway.
            log.warning("could not count deliveries of %s: %s", req.id, exc)
            return None
        return int(count)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        req = self.request
        if not req.called_directly and req.id:
            count = self._count_delivery()
            cap = get_settings().max_deliveries
            if count is not None and count > cap:
                reason = (
                    f"redelivery cap: delivered {count} times (cap {cap}) without finishing; "
                    "its worker was lost each time"
                )
                raise self.dead_letter(reason, args, kwargs)
        try:
            with usage_batch():
                return super().__call__(*args, **kwargs)
        except MalformedPayload as exc:
            raise self.dead_letter(f"malformed payload: {exc.reason}", args, kwargs) from exc
        except TransientModelError as exc:
            cap = self.model_retries()
            if (req.retries or 0) < cap:
                raise self.retry(exc=exc, countdown=retry_delay(exc, req.retries or 0), max_retries=cap) from exc
            raise self.dead_letter(f"model unavailable after {cap} retries: {exc}", args, kwargs) from exc
        except PermanentModelError as exc:
            raise self.dead_letter(f"model refused the request (not retried): {exc}", args, kwargs) from exc

    def model_retries(self) -> int:
        """Celery retries after a transient model error (429, 529, 5xx, timeout)."""
        return get_settings().llm_task_max_retries

    def after_return(self, status: str, retval: Any, task_id: str, args: Any, kwargs: Any, einfo: Any) -> None:
        """The task finished (well or not) in this delivery: forget its delivery count."""
        if task_id and status != "RETRY":
            try:
                get_redis().delete(delivery_key(task_id, self.request.retries or 0))
            except redis.RedisError as exc:
                log.warning("could not clear delivery count of %s: %s", task_id, exc)

    def on_failure(self, exc: BaseException, task_id: str, args: Any, kwargs: Any, einfo: Any) -> None:
        """Out of retries, a hard time limit, or a bug: the operator finds it in the dead-letter table."""
        if isinstance(exc, DeadLettered):
            return  # recorded when it was raised
        record_dead_letter(self.name, task_id, f"failed: {type(exc).__name__}: {exc}", args, kwargs)

"""The base class of every Ella task: late acks, a redelivery cap, dead letters, retries for transient faults.

Why: with ``acks_late`` and ``reject_on_worker_lost`` a task whose worker dies is delivered again, which is
what makes a ``kill -9`` lose nothing; but a task that kills its worker every time would then loop forever.
Deliveries are counted by (task id, retry number) in Redis; past ``max_deliveries`` the task goes to the
dead-letter table instead of running again. Malformed payloads go there at once and are never retried.
Model errors: transient ones (429, 529, 5xx, timeouts) become Celery retries with backoff and jitter,
honouring Retry-After; permanent ones (400, 401, 403) are dead-lettered with the reason, not retried.
Every dead letter of a gateway task is also answered on the outbox stream (kind ``rejected``, a stable code:
``ella.rejections``, published by ``adapters.dead_letters``), so the gateway never waits on silence.
"""

from __future__ import annotations

import logging
from typing import Any

import redis
from celery import Task
from celery.canvas import Signature
from celery.exceptions import Reject
from celery.utils.time import get_exponential_backoff_interval
from kombu.exceptions import OperationalError as BrokerUnreachable
from sqlalchemy.exc import OperationalError, StatementError

from adapters.dead_letters import record_dead_letter
from adapters.llm import retry_delay, usage_batch
from adapters.redis_conn import get_redis
from adapters.settings import get_settings
from ella.contract import MalformedPayload
from ella.llm.types import PermanentModelError, TransientModelError

log = logging.getLogger(__name__)

TRANSIENT_ERRORS: tuple[type[BaseException], ...] = (
    OperationalError,
    redis.ConnectionError,
    redis.TimeoutError,
)


# What publishing a retry raises when the broker is unreachable (kombu re-raises connection errors as its own).
RETRY_NOT_SENT_ERRORS: tuple[type[BaseException], ...] = (
    BrokerUnreachable,
    redis.ConnectionError,
    redis.TimeoutError,
    ConnectionError,
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


def hide_sql_parameters(exc: BaseException) -> None:
    """Make a SQLAlchemy error print its statement without the bound values (a user's words, often).

    Why here and not only on the engine: the error is formatted where Celery logs a retry or a failure, and
    in the dead-letter reason; setting SQLAlchemy's own ``hide_parameters`` flag on the exception (and on the
    ones it was raised from) covers every one of those places.
    """
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, StatementError):
            current.hide_parameters = True
        current = current.__cause__ or current.__context__


class ReliableTask(Task):
    """Idempotent tasks only: a task using this base may run more than once for one message."""

    acks_late = True
    reject_on_worker_lost = True
    # Transient faults are retried in __call__ (not Celery's autoretry_for), because the backoff cap is read
    # from settings at each retry: it must stay below the visibility timeout (see Settings).
    retry_backoff = 2
    max_retries = 8
    throws = (DeadLettered,)

    def signature_from_request(
        self, request: Any = None, args: Any = None, kwargs: Any = None, queue: Any = None, **extra_options: Any
    ) -> Signature:
        """The retry's message, showing what the first delivery showed in logs (never the user's words).

        Why: Celery builds a retry from the request and drops ``argsrepr``/``kwargsrepr``, so every retry's
        "Task received" line printed the full kwargs, message text included (1,493 lines for one message in
        a PostgreSQL outage). A request that came without them shows only its argument names.
        """
        request = self.request if request is None else request
        signature: Signature = super().signature_from_request(request, args, kwargs, queue, **extra_options)
        shown_args = getattr(request, "argsrepr", None)
        shown_kwargs = getattr(request, "kwargsrepr", None)
        sent_kwargs = signature.kwargs if isinstance(signature.kwargs, dict) else {}
        signature.options["argsrepr"] = shown_args if shown_args is not None else f"<{len(signature.args or ())} args>"
        signature.options["kwargsrepr"] = (
            shown_kwargs if shown_kwargs is not None else repr({key: "…" for key in sent_kwargs})
        )
        return signature

    def retry(self, *args: Any, **kwargs: Any) -> Any:
        """Celery's ``Task.retry``; a retry that could not be sent leaves the delivery to be run again.

        Why: when publishing the retry's message fails, Celery raises ``Reject(requeue=False)``, and the worker
        then drops the delivery from Redis's unacked hash: with the broker away (a Redis fault is both what
        made the task retry and what the retry is sent to) the task was lost whenever Redis was back by the
        time of the reject. ``requeue=True`` puts it back on its queue instead; if Redis is still away that
        fails too, and the delivery stays unacked for ``restore_visible`` (after the visibility timeout), or
        for the inbox sweep if it is an inbound message. It runs again with the same retry count.
        """
        try:
            return super().retry(*args, **kwargs)
        except Reject as exc:
            if exc.requeue or not isinstance(exc.reason, RETRY_NOT_SENT_ERRORS):
                raise
            log.warning(
                "could not send the retry of %s (%s: %s); its delivery is requeued instead",
                self.request.id,
                type(exc.reason).__name__,
                exc.reason,
            )
            raise Reject(exc.reason, requeue=True) from exc

    def transient_retry(self, exc: BaseException) -> BaseException:
        """Celery's retry after a database or Redis fault: exponential backoff, full jitter, capped by settings."""
        retries = self.request.retries or 0
        countdown = get_exponential_backoff_interval(
            factor=self.retry_backoff,
            retries=retries,
            maximum=int(get_settings().effective_retry_backoff_max_s),
            full_jitter=True,
        )
        return self.retry(exc=exc, countdown=countdown)

    def dead_letter(self, reason: str, args: Any, kwargs: Any, *, in_reply_to: str | None = None) -> DeadLettered:
        """Record this delivery in ``dead_letters`` (and, for a gateway task, its ``rejected`` stream entry:
        ``adapters.dead_letters``); the exception to raise so that it shows as failed. ``in_reply_to``: the
        request's id when ``kwargs`` no longer carry it."""
        recorded = record_dead_letter(self.name, self.request.id, reason, args, kwargs, in_reply_to=in_reply_to)
        return DeadLettered(recorded.reason, recorded.id)

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
                delay = min(retry_delay(exc, req.retries or 0), get_settings().effective_llm_retry_max_s)
                raise self.retry(exc=exc, countdown=delay, max_retries=cap) from exc
            raise self.dead_letter(f"model unavailable after {cap} retries: {exc}", args, kwargs) from exc
        except PermanentModelError as exc:
            raise self.dead_letter(f"model refused the request (not retried): {exc}", args, kwargs) from exc
        except TRANSIENT_ERRORS as exc:
            hide_sql_parameters(exc)
            raise self.transient_retry(exc) from exc
        except Exception as exc:
            hide_sql_parameters(exc)
            raise

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

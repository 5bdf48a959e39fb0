"""Mends to kombu's Redis transport so that a torn-down broker connection never kills a worker.

Why a module of its own: there are several paths, each a method of kombu's Redis ``QoS`` or ``Channel``, and
each mend needs the same question answered ("can this channel still reach Redis?"); ``workers.app`` installs
them once, at import, before any worker or client makes a channel. Remove each one when kombu handles it.

The failure: when Redis goes away, Celery's consumer collects the broken connection (kombu sets the
transport's ``client`` to None), closes its channels (``channel.connection`` becomes None, the channel's
Redis pool is dropped) and reconnects with a new channel. Deliveries of the old channel are still running in
the pool; when one finishes, Celery acks it, or rejects it (a task whose ``self.retry`` could not publish the
retry raises ``Reject``: ``ReliableTask.transient_retry`` during an outage), through the *old* channel. kombu
then rebuilds a pool from ``channel.connection.client`` and raises ``AttributeError: 'NoneType' object has no
attribute 'client'`` (or ``'hostname'`` once only the transport is gone). That is not a connection error, so
``Message.ack_log_error``/``reject_log_error`` and ``kombu.common.ignore_errors`` let it through and the
worker stops on "Unrecoverable error" (8 worker deaths over 4 Redis faults in ``make chaos``).

Upstream: celery/kombu#83 (the same ``_connparams`` AttributeError on a channel whose connection is None),
celery/kombu#690 and its fix #721 (``Consumer.__exit__`` on a channel whose ``connection`` was set to None:
mended there, not in the Redis QoS), celery/kombu#582 (the ``hostname`` variant on channel close) and the
same traceback through ``Channel._put`` in a kombu 5 deployment (digitalfabrik/opendrift-leeway-webgui#119).
No fix in kombu 5.7.0 (pinned in constraints.txt).

A second path loses tasks rather than killing the worker, and is mended here too: Celery's cancellation of the
running tasks at a connection loss fails on the result backend (the same Redis) and then acks them as revoked.

What the mends do, and why nothing is lost: a delivery that cannot be acked, rejected or restored because its
channel is gone stays in Redis's ``unacked`` hash, exactly as after a ``kill -9``; every worker's
``restore_visible`` (each ``unacked_restore_interval_s``) requeues it once its visibility timeout has passed,
and an inbound message is also re-sent by the inbox sweep. A task that already finished may so run twice:
Ella's tasks are idempotent for that reason (``ReliableTask``). Any other path that would build a pool on a
dead channel (``restore_by_tag``, ``restore_visible``, ``_put``, ``_size``) gets ``redis.ConnectionError``
instead of ``AttributeError``: a connection error, which kombu and Celery already treat as recoverable.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import redis
from celery.worker.request import Request
from kombu.transport import redis as kombu_redis
from kombu.transport import virtual

log = logging.getLogger("workers.broker_patches")

_original_conn_or_acquire = kombu_redis.Channel.conn_or_acquire
_original_restore_unacked = kombu_redis.QoS.restore_unacked
_original_ack = kombu_redis.QoS.ack
_original_reject = kombu_redis.QoS.reject
_original_announce_cancelled = Request._announce_cancelled


def channel_cannot_reach_redis(channel: Any) -> bool:
    """True when kombu would have to build a new pool for ``channel`` and has nothing to build it from.

    An existing pool still works (it reconnects by itself when Redis is back), so only a channel without one
    and without its connection (closed: ``connection`` is None; collected: ``connection.client`` is None) is
    unreachable. That is exactly when ``Channel._connparams`` raises ``AttributeError``.
    """
    if getattr(channel, "_pool", None) is not None:
        return False
    transport = getattr(channel, "connection", None)
    return transport is None or getattr(transport, "client", None) is None


def delivery_belongs_to_no_channel(channel: Any) -> bool:
    """True when an ack or reject through ``channel`` must not touch Redis: the channel was closed or is dead.

    Why a closed channel too: closing it handed its unacked deliveries over (restored to their queue, or left in
    the unacked hash for ``restore_visible`` when Redis was away); a late ack through it would delete a
    delivery another consumer now owns or is about to get, and a task Celery terminated at the connection loss
    would be lost. A close that failed half-way (Redis away during the restore) still marks it closed.
    """
    return bool(getattr(channel, "closed", False)) or channel_cannot_reach_redis(channel)


class ChannelGone(redis.ConnectionError):
    """The channel's broker connection was torn down; a connection error, so every caller treats it as one."""


@contextmanager
def _conn_or_acquire_unless_gone(self: kombu_redis.Channel, client: Any = None) -> Iterator[Any]:
    if client is None and channel_cannot_reach_redis(self):
        raise ChannelGone("the broker connection of this channel was torn down (Redis went away)")
    with _original_conn_or_acquire(self, client) as acquired:
        yield acquired


def _restore_unacked_unless_connection_gone(self: kombu_redis.QoS, client: Any = None) -> Any:
    """Closing a channel with unacked deliveries restores them; on a dead channel, leave them to restore_visible."""
    if client is None and channel_cannot_reach_redis(self.channel):
        log.warning(
            "broker connection already closed: %d unacked delivery(ies) left for the visibility-timeout restore",
            len(self._delivered),
        )
        self._delivered.clear()
        return None
    return _original_restore_unacked(self, client)


def _ack_unless_connection_gone(self: kombu_redis.QoS, delivery_tag: str) -> None:
    """Ack; on a closed or dead channel, forget the delivery locally and leave it in ``unacked`` (it will run
    again: a task that had finished runs twice, which ``ReliableTask``'s idempotence allows)."""
    if delivery_belongs_to_no_channel(self.channel):
        log.warning(
            "broker connection already closed: delivery %s could not be acked; "
            "it stays unacked and is redelivered after the visibility timeout",
            delivery_tag,
        )
        virtual.QoS.ack(self, delivery_tag)
        return
    _original_ack(self, delivery_tag)


def _reject_unless_connection_gone(self: kombu_redis.QoS, delivery_tag: str, requeue: bool = False) -> None:
    """Reject; on a closed or dead channel, leave the delivery in ``unacked`` whatever ``requeue`` says.

    Why also for ``requeue=False``: the rejects that reach a dead channel are those of an outage (a retry that
    could not be sent: see ``ReliableTask.retry``); dropping the message then would lose the task.
    """
    if delivery_belongs_to_no_channel(self.channel):
        log.warning(
            "broker connection already closed: delivery %s could not be rejected (requeue=%s); "
            "it stays unacked and is redelivered after the visibility timeout",
            delivery_tag,
            requeue,
        )
        virtual.QoS.ack(self, delivery_tag)
        return
    _original_reject(self, delivery_tag, requeue=requeue)


def _announce_cancelled_even_without_a_result_backend(self: Request, emit_retry: bool = True) -> None:
    """Celery's ``Request._announce_cancelled``, which marks the request cancelled even when the backend fails.

    Why: on a connection loss Celery terminates the running late-ack tasks ("cannot be acknowledged after a
    connection loss ... Terminating it instead") and announces each cancelled by storing a RETRY state in the
    result backend, which is the same Redis, away; that raised before ``_already_cancelled`` was set, so the
    terminated task was then taken for a revoked one and *acked* ("Failed to cancel active request"): 16 of 32
    tasks lost over 4 Redis outages in ``test_a_worker_whose_tasks_retry_while_redis_is_away_...``. Marked
    cancelled, its delivery stays unacked and is redelivered. The error still reaches Celery's warning.
    """
    try:
        _original_announce_cancelled(self, emit_retry=emit_retry)
    finally:
        self._already_cancelled = True


def install() -> None:
    """Patch kombu's Redis transport (idempotent: each original is kept once, at this module's import)."""
    kombu_redis.Channel.conn_or_acquire = _conn_or_acquire_unless_gone  # type: ignore[method-assign,assignment]
    kombu_redis.QoS.restore_unacked = _restore_unacked_unless_connection_gone  # type: ignore[method-assign]
    kombu_redis.QoS.ack = _ack_unless_connection_gone  # type: ignore[method-assign]
    kombu_redis.QoS.reject = _reject_unless_connection_gone  # type: ignore[method-assign]
    Request._announce_cancelled = _announce_cancelled_even_without_a_result_backend  # type: ignore[method-assign]

"""Committed outbox records onto the outbox stream, once each, and the row marked published.

Why apart from the tasks: every kind of outgoing text (a reply now, a notification later) is first committed
as an ``outbox_records`` row and only then published; a redelivered task re-publishes the same row, and the
stream's Lua script (``adapters.outbox_stream``) makes that a no-op, or publishes it again if Redis lost it.

Why a publish waits for Redis: a reply committed while Redis is down used to fail its task, whose retry could
not reach the broker either, so nothing published it until the inbox sweep an hour later. The worker that
committed it holds it and publishes it when Redis answers again (retrying the publish, not the task: the
model call and the transaction are done).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TypeVar

import redis
from redis.backoff import ExponentialWithJitterBackoff
from sqlalchemy import select

from adapters.db import autocommit_scope
from adapters.outbox_stream import publish_once
from adapters.redis_conn import get_redis
from ella.contract import OutboxEntry
from models.base import utcnow
from models.conversation import Conversation
from models.outbox import OutboxRecord, stream_entry
from models.pending_effects import mark_published
from models.turns import reply_to

log = logging.getLogger(__name__)

T = TypeVar("T")
REDIS_DOWN = (redis.ConnectionError, redis.TimeoutError)  # BusyLoadingError (Redis replaying its AOF) is one too


def outbox_entry(record: OutboxRecord, external_id: str | None = None) -> OutboxEntry:
    """The record's stream entry; ``external_id``: its conversation's gateway id when the caller holds it."""
    return stream_entry(record, external_conversation_id(record) if external_id is None else external_id)


def external_conversation_id(record: OutboxRecord) -> str:
    """The gateway's id of the record's conversation ("" when it sent none): the id the gateway knows."""
    if record.conversation_id is None:
        return ""
    with autocommit_scope() as session:
        found = session.scalar(
            select(Conversation.external_id).where(
                Conversation.id == record.conversation_id, Conversation.user_id == record.user_id
            )
        )
    return found or ""


def when_redis_answers(call: Callable[[], T], wait_s: float, what: str) -> T:
    """``call()``, repeated with backoff (capped at 2 s, so it runs within seconds of Redis's return) while Redis is
    unreachable, for up to ``wait_s``; then the last error. ``call`` must be idempotent (a timed-out call may
    have run)."""
    backoff = ExponentialWithJitterBackoff(base=0.2, cap=2.0)
    deadline = time.monotonic() + wait_s
    failures = 0
    while True:
        try:
            return call()
        except REDIS_DOWN as exc:
            failures += 1
            pause = max(backoff.compute(failures), 0.05)
            if time.monotonic() + pause > deadline:
                raise
            if failures == 1 or failures % 30 == 0:
                log.warning("%s: Redis unreachable (%s); retrying for up to %.0f s", what, exc, wait_s)
            time.sleep(pause)


def publish(
    record: OutboxRecord,
    wait_s: float = 0.0,
    external_id: str | None = None,
    then: Callable[[], list[int]] | None = None,
) -> str:
    """Publish a committed outbox record once and note it on the row; the stream id.

    ``wait_s``: how long to keep retrying while Redis is unreachable. A new stream id (Redis lost the entry the
    row names, and it was published again) replaces the one on the row. ``external_id``: the conversation's
    gateway id, when the caller holds it (else one query). ``then``: runs once the entry is on the stream and
    names the ``pending_effects`` rows it sent (the turn's effects), which are settled with the publish mark.
    """
    entry, recorded = outbox_entry(record, external_id), record.stream_id
    stream_id = when_redis_answers(
        lambda: publish_once(get_redis(), entry, recorded_id=recorded), wait_s, f"publishing outbox {record.uid}"
    )
    settled = then() if then is not None else []
    if stream_id != recorded or record.published_at is None or settled:
        # a failure here fails the task: its redelivery republishes idempotently and sends the unsettled rows
        # again, which their tasks ignore (each is idempotent)
        with autocommit_scope() as session:
            mark_published(session, record, record.published_at or utcnow(), stream_id, settled)
    return stream_id


def publish_stored_reply(user_id: str, message_id: str, wait_s: float = 0.0) -> str | None:
    """The repeat-delivery path: publish the reply recorded for this user's ``message_id`` unless the stream has it.

    Redis decides, not the row's ``published_at``: after Redis lost the entry (a failover, an OS crash inside
    the fsync second) a re-sent message must reach the user; the Lua script still makes a second publish of an
    entry the stream holds a no-op.
    """
    with autocommit_scope() as session:
        record = reply_to(session, user_id, message_id)
    if record is None:
        return None
    return publish(record, wait_s)

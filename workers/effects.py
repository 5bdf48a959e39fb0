"""Sending what a commit owes (``models.pending_effects``): right after the commit, and again by the sweep.

Why one sender for every path: the first delivery of a turn, its repeat delivery, the inbox sweep that
publishes a reply committed while Redis was down, the notification dispatch and the conversation sweep all end
the same way: the rows their commit wrote are sent, then deleted. A send that fails (the broker is unreachable)
leaves the row for ``ella.send_pending_effects``, which retries it with backoff; a kill between the send and
the delete sends it twice, which the receiving tasks' idempotence makes harmless.

Tasks are sent through their registered task object (``apply_async``), so Celery checks the kwargs against the
task's signature at send time, as ``workers.events`` does, and the queue comes from ``workers.routing``.

A row's effects go in one batch (kombu's ``Producer.batch``: one producer, one Redis pipeline for them all), not one
producer, client and round trip per effect: an ordinary turn owes two (its memory and its facts) and this was a
second broker round trip on every message. A batch that fails sends none of the row for certain
(``BatchPublishError``: delivery is uncertain, and kombu retries no batch), so the row stays for the sweep, as a
failed single send did; a send the sweep repeats is harmless (the receiving tasks are idempotent).
"""

from __future__ import annotations

import importlib
import logging
from datetime import datetime, timedelta
from typing import Any

from kombu.exceptions import BatchPublishError
from kombu.exceptions import OperationalError as KombuOperationalError
from redis import RedisError

from adapters.db import autocommit_scope, session_scope
from adapters.settings import get_settings
from models.base import utcnow
from models.pending_effects import (
    Effect,
    Owed,
    PendingEffects,
    claim,
    drop_unpublished,
    due,
    owed_for,
    owed_of,
    settle,
)
from workers.routing import TaskName, queue_for

log = logging.getLogger(__name__)

UNPUBLISHED_KEPT = timedelta(days=30)  # longer than any notification stays fresh (its hard expiry)
SEND_ERRORS: tuple[type[BaseException], ...] = (RedisError, KombuOperationalError, BatchPublishError, OSError)


def task_named(name: str) -> Any:
    """The registered task ``name``, importing the task modules on first use (a process that never ran a
    worker, such as a test or the CLI, has not imported them)."""
    from workers.app import TASK_MODULES, app

    if name not in app.tasks:
        for module in TASK_MODULES:
            importlib.import_module(module)
    return app.tasks[name]


def emit(effect: Effect, producer: Any = None) -> None:
    """Send one effect to its task's queue (through ``producer`` when given: a batch's, ``emit_together``)."""
    options: dict[str, Any] = {"queue": queue_for(TaskName(effect.task), get_settings())}
    if effect.kwargsrepr is not None:
        options["kwargsrepr"] = effect.kwargsrepr
    if producer is not None:
        options["producer"] = producer
    task_named(effect.task).apply_async(kwargs=effect.kwargs, **options)


def emit_together(effects: list[Effect]) -> None:
    """Send ``effects`` in one batch: one producer and one Redis pipeline (see the module). Raises what a send
    raises (``SEND_ERRORS``); then none of them was sent for certain."""
    if len(effects) == 1:
        emit(effects[0])  # nothing to share
        return
    from workers.app import app

    with app.producer_or_acquire() as producer, producer.batch():
        for effect in effects:
            emit(effect, producer)


def emit_owed(owed: list[Owed]) -> list[int]:
    """Send each row's effects (one batch a row); the ids of the rows whose effects all went (the caller settles
    those). A row whose send fails stays for the sweep (logged once here)."""
    sent: list[int] = []
    for row in owed:
        try:
            if row.effects:
                emit_together(list(row.effects))
        except SEND_ERRORS as exc:
            log.warning("effects of %s not sent (%s: %s); the sweep sends them", row.source, type(exc).__name__, exc)
            continue
        sent.append(row.id)
    return sent


def emit_rows(rows: list[PendingEffects]) -> list[int]:
    """``emit_owed`` for the rows a committing session holds (flushed, so with their ids: no query)."""
    return emit_owed([owed_of(row) for row in rows]) if rows else []


def send(owed: list[Owed]) -> int:
    """Send each row's effects, then delete the rows that were sent; the number of rows settled. A row whose
    send fails stays for the sweep; the others are settled."""
    sent = emit_owed(owed)
    if sent:
        try:
            with autocommit_scope() as session:  # one DELETE, no BEGIN/COMMIT round trips (SQLite: a short lock)
                settle(session, sent)
        except Exception as exc:  # noqa: BLE001 - sent: at worst the sweep sends them again, harmlessly
            log.warning("sent effects of %d row(s) not marked settled: %s", len(sent), exc)
            return 0
    return len(sent)


def send_rows(rows: list[PendingEffects]) -> int:
    """After a commit: send the rows it wrote, as the committing session holds them (flushed, so with their ids;
    no query to read them back)."""
    return send([owed_of(row) for row in rows]) if rows else 0


def send_owed_by(user_id: str, source: str) -> int:
    """A repeat delivery or the inbox sweep: send what this user's ``source`` still owes (often nothing)."""
    with autocommit_scope() as session:
        owed = owed_for(session, user_id, source)
    return send(owed)


def backoff(attempts: int) -> timedelta:
    """How long a row the sweep took waits before the sweep takes it again (if its send failed)."""
    base = get_settings().inbox_sweep_interval_s
    return timedelta(seconds=min(base * (2 ** min(attempts, 10)), 3600.0))


def sweep(limit: int = 500, now: datetime | None = None) -> dict[str, int]:
    """One pass of ``ella.send_pending_effects``: every row whose grace has passed, claimed and sent; rows that
    wait on a record never published are dropped once no notification could still be that old."""
    now = now or utcnow()
    with session_scope() as session:
        dropped = drop_unpublished(session, now - UNPUBLISHED_KEPT)
    with autocommit_scope() as session:
        rows = due(session, now, limit)
    taken: list[Owed] = []
    for row in rows:
        with session_scope() as session:
            if claim(session, row, now, backoff(row.attempts)):
                taken.append(row)
    settled = send(taken)
    counts = {"due": len(rows), "taken": len(taken), "sent": settled, "dropped": dropped}
    if settled:
        log.warning("sent the effects of %d commit(s) a fault had left owed", settled)
    return counts

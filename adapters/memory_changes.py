"""After a commit, the ``memory_changed`` notices it recorded go on the outbox stream (``models.memory_changes``).

Why a session hook, as ``adapters.world_invalidation`` does for the world cache: notices are recorded wherever a
listed item changes (a node's insert, a fact extracted, forgotten or corrected), by tasks, by the operator's
commands, by scripts; the hook publishes them wherever the change committed, so no caller can forget to. It is
installed by ``adapters.db`` when it makes its first session.

Only what the outermost commit made durable is published: a notice recorded inside a savepoint that rolled back
(a refused request) was expunged with it and is skipped. Publishing never fails the commit it follows: a Redis
that is down leaves the notice's pending row for ``ella.send_pending_effects`` (``ella.publish_memory_changed``, in
``tasks.memory_requests``, then publishes it), and the stream's per-record marker makes a second publish
of the same notice a no-op.
"""

from __future__ import annotations

import logging

from sqlalchemy import event, inspect
from sqlalchemy.orm import Session

from adapters.outbox_stream import publish_once
from adapters.redis_conn import get_redis
from adapters.settings import get_settings
from models.base import utcnow
from models.memory_changes import NOTED, configure
from models.outbox import OutboxRecord, stream_entry
from models.pending_effects import PendingEffects, mark_published

log = logging.getLogger(__name__)

configure(lambda: get_settings().memory_changed_words, lambda: get_settings().effects_grace_s)


def publish_noted(session: Session, noted: list[tuple[OutboxRecord, PendingEffects | None]]) -> int:
    """Publish committed notices, note each on its row and settle its pending row, in a new transaction on the
    committing session's database; how many were published.

    Why not ``adapters.publishing.publish``: this module is installed by ``adapters.db``, which ``publish``'s
    module imports (an import circle); a notice names no conversation, so the entry is the row as it is."""
    published: list[tuple[OutboxRecord, PendingEffects | None, str]] = []
    for record, row in noted:
        try:
            published.append((record, row, publish_once(get_redis(), stream_entry(record))))
        except Exception as exc:  # noqa: BLE001 - the pending row stays: the sweep publishes it
            log.warning("memory_changed notice %s not published (%s); the sweep publishes it", record.uid,
                        type(exc).__name__)  # fmt: skip
    if not published:
        return 0
    try:
        with Session(session.get_bind()) as after, after.begin():
            for record, row, stream_id in published:  # each one statement on PostgreSQL, as a turn's publish mark
                mark_published(after, record, utcnow(), stream_id, [row.id] if row is not None else [])
    except Exception as exc:  # noqa: BLE001 - published: at worst the sweep publishes it again, a no-op
        log.warning("published notices not marked settled: %s", type(exc).__name__)
    return len(published)


@event.listens_for(Session, "after_commit")
def _publish_after_commit(session: Session) -> None:
    if session.in_nested_transaction():
        return  # a savepoint released: nothing is durable until the outermost commit
    noted: list[tuple[OutboxRecord, PendingEffects | None]] = session.info.pop(NOTED, [])
    durable = [(record, row) for record, row in noted if inspect(record).persistent]
    if durable:
        publish_noted(session, durable)


@event.listens_for(Session, "after_rollback")
def _drop_rolled_back(session: Session) -> None:
    """A whole transaction rolled back: nothing it noted exists (a savepoint's rollback expunges its own)."""
    if not session.in_nested_transaction():
        session.info.pop(NOTED, None)

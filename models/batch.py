"""Message Batches bookkeeping: a batch per submission, an item per ``custom_id``, applied at most once.

The item row is the idempotency key: it is created before submission (insert-or-nothing on ``custom_id``),
and ``applied_at`` is set in the same transaction as whatever applying the result writes, so a poll that
runs twice, or a worker killed mid-poll, applies each result once.

A batch row is written (``submitting``) and its items claimed *before* the provider is called, and gets the
provider's id (``in_progress``) after: no transaction stays open across the HTTP call, and a worker killed in
between leaves a ``submitting`` row that a later flush finds stale and whose items it puts back in the queue.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import ForeignKey, Index, Integer, String, Text, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from models.base import Base, BigId, UTCDateTime, dialect_insert, utcnow

if TYPE_CHECKING:
    from ella.llm.batches import NewBatchItem

# ModelBatch.status
SUBMITTING = "submitting"  # claimed its items; the provider has not (yet) confirmed it
IN_PROGRESS = "in_progress"  # the provider has it; poll until it ends
ENDED = "ended"  # every result read and applied (or sent back to the queue)
FAILED = "failed"  # the provider refused it or it was abandoned while submitting; its items went back

# ModelBatchItem.status
PENDING = "pending"
SUBMITTED = "submitted"
APPLIED = "applied"
FAILSAFE = "failsafe"  # the output was invalid: nothing was applied
GAVE_UP = "gave_up"  # errored, expired or canceled too often (or its handler failed); dead-lettered

_MAX_TEXT = 10_000  # characters of an error kept on the row
_INSERT_CHUNK = 500  # rows per INSERT: SQLite caps the bound parameters of one statement


class ModelBatch(Base):
    __tablename__ = "model_batches"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    provider: Mapped[str] = mapped_column(String(16))
    provider_batch_id: Mapped[str | None] = mapped_column(String(128), unique=True)
    status: Mapped[str] = mapped_column(String(16), default="in_progress", index=True)  # SUBMITTING .. FAILED above
    submitted_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    ended_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    item_count: Mapped[int] = mapped_column(Integer, default=0)


class ModelBatchItem(Base):
    __tablename__ = "model_batch_items"
    __table_args__ = (Index("ix_model_batch_items_status_purpose", "status", "purpose"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    custom_id: Mapped[str] = mapped_column(String(64), unique=True)
    batch_id: Mapped[int | None] = mapped_column(ForeignKey("model_batches.id", ondelete="SET NULL"), index=True)
    purpose: Mapped[str] = mapped_column(String(64), comment="which handler applies the result")
    kind: Mapped[str] = mapped_column(String(32))
    user_id: Mapped[str | None] = mapped_column(String(128))
    variables: Mapped[str] = mapped_column(Text, comment="JSON")
    context: Mapped[str] = mapped_column(Text, default="{}", comment="JSON")
    # pending -> submitted -> applied | failsafe | gave_up (errored/canceled/expired go back to pending)
    status: Mapped[str] = mapped_column(String(16), default="pending")
    submissions: Mapped[int] = mapped_column(Integer, default=0)
    result: Mapped[str | None] = mapped_column(Text, comment="JSON of the validated output")
    error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    applied_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


def enqueue_items(session: Session, purpose: str, items: Iterable[NewBatchItem]) -> list[str]:
    """Insert each item as ``pending`` unless its ``custom_id`` exists (whatever its state); return those inserted.

    So re-enqueueing is a no-op: an applied result is never asked for again, a queued one not twice.
    """
    now = utcnow()
    rows: dict[str, dict[str, Any]] = {}
    for item in items:
        rows.setdefault(
            item.custom_id,
            {
                "custom_id": item.custom_id,
                "purpose": purpose,
                "kind": item.kind,
                "user_id": item.user_id,
                "variables": json.dumps(item.variables, ensure_ascii=False, sort_keys=True),
                "context": json.dumps(item.context or {}, ensure_ascii=False, sort_keys=True),
                "status": PENDING,
                "submissions": 0,
                "created_at": now,
            },
        )
    insert = dialect_insert(session)
    values = list(rows.values())
    inserted: list[str] = []
    for start in range(0, len(values), _INSERT_CHUNK):
        stmt = (
            insert(ModelBatchItem)
            .values(values[start : start + _INSERT_CHUNK])
            .on_conflict_do_nothing(index_elements=["custom_id"])
            .returning(ModelBatchItem.custom_id)
        )
        inserted.extend(session.scalars(stmt))
    return inserted


def pending_items(session: Session, limit: int) -> list[ModelBatchItem]:
    """The oldest ``limit`` pending items, locked; ``SKIP LOCKED`` lets two flushes claim disjoint sets."""
    return list(
        session.scalars(
            select(ModelBatchItem)
            .where(ModelBatchItem.status == PENDING)
            .order_by(ModelBatchItem.id)
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
    )


def start_batch(session: Session, provider: str, items: Sequence[ModelBatchItem]) -> ModelBatch:
    """A ``submitting`` batch owning ``items``, each marked submitted under it with one more submission."""
    batch = ModelBatch(provider=provider, status=SUBMITTING, submitted_at=utcnow(), item_count=len(items))
    session.add(batch)
    session.flush()
    for item in items:
        item.status = SUBMITTED
        item.batch_id = batch.id
        item.submissions += 1
    return batch


def confirm_batch(session: Session, batch_id: int, provider_batch_id: str) -> None:
    """The provider accepted the batch: poll it from now on."""
    batch = session.get_one(ModelBatch, batch_id)
    batch.provider_batch_id = provider_batch_id
    batch.status = IN_PROGRESS


def fail_batch(session: Session, batch_id: int) -> list[ModelBatchItem]:
    """Mark a batch that never reached the provider (or may not have) ``failed``; return its waiting items, locked.

    The caller decides what becomes of each item (back to ``pending``, or given up).
    """
    batch = session.get_one(ModelBatch, batch_id, with_for_update=True)
    batch.status = FAILED
    batch.ended_at = utcnow()
    return items_in_batch(session, batch_id)


def end_batch(session: Session, batch_id: int) -> None:
    batch = session.get_one(ModelBatch, batch_id)
    batch.status = ENDED
    batch.ended_at = utcnow()


def batches_in_status(
    session: Session, status: str, provider: str | None = None, before: datetime | None = None
) -> list[ModelBatch]:
    """Batches in ``status``, oldest first; of one provider, or submitted before a time, when given."""
    query = select(ModelBatch).where(ModelBatch.status == status).order_by(ModelBatch.id)
    if provider is not None:
        query = query.where(ModelBatch.provider == provider)
    if before is not None:
        query = query.where(ModelBatch.submitted_at < before)
    return list(session.scalars(query))


def in_progress_batches(session: Session, provider: str) -> list[ModelBatch]:
    """What a poll asks the provider about."""
    return batches_in_status(session, IN_PROGRESS, provider)


def items_in_batch(session: Session, batch_id: int) -> list[ModelBatchItem]:
    """The items still waiting on this batch (submitted under it and not yet settled), locked."""
    return list(
        session.scalars(
            select(ModelBatchItem)
            .where(ModelBatchItem.batch_id == batch_id, ModelBatchItem.status == SUBMITTED)
            .order_by(ModelBatchItem.id)
            .with_for_update()
        )
    )


def lock_item(session: Session, custom_id: str) -> ModelBatchItem | None:
    """The item row, locked until the transaction ends: the guard that applies a result at most once."""
    return session.scalars(
        select(ModelBatchItem)
        .where(ModelBatchItem.custom_id == custom_id)
        .with_for_update()
        .execution_options(populate_existing=True)
    ).one_or_none()


def variables_of(item: ModelBatchItem) -> dict[str, Any]:
    return dict(json.loads(item.variables))


def context_of(item: ModelBatchItem) -> dict[str, Any]:
    return dict(json.loads(item.context or "{}"))


def payload_of(item: ModelBatchItem) -> dict[str, Any]:
    """An item as a dead letter carries it: enough to see what it was and to queue it again."""
    return {
        "custom_id": item.custom_id,
        "purpose": item.purpose,
        "kind": item.kind,
        "user_id": item.user_id,
        "submissions": item.submissions,
        "variables": variables_of(item),
        "context": context_of(item),
    }


# --- what becomes of an item (the caller holds its lock) ------------------------------------------------------


def send_back(item: ModelBatchItem, reason: str) -> None:
    """No answer this time: queue it again for the next flush; the submission counts."""
    item.status = PENDING
    item.error = reason[:_MAX_TEXT]


def release(item: ModelBatchItem, reason: str | None = None) -> None:
    """Back to the queue as if it had never been sent: the submission does not count."""
    item.status = PENDING
    item.submissions -= 1
    if reason is not None:
        item.error = reason[:_MAX_TEXT]


def give_up(item: ModelBatchItem, reason: str, output_json: str | None = None) -> None:
    """Final: nothing is applied; ``output_json`` keeps a valid output whose handler failed, for a replay."""
    item.status = GAVE_UP
    item.error = reason[:_MAX_TEXT]
    if output_json is not None:
        item.result = output_json


def mark_failsafe(item: ModelBatchItem, reason: str) -> None:
    """Final: the output failed its kind's schema, so nothing is applied and nothing stored."""
    item.status = FAILSAFE
    item.error = reason[:_MAX_TEXT]


def mark_applied(item: ModelBatchItem, output_json: str) -> None:
    """The handler's writes are in this transaction; they commit together with this."""
    item.status = APPLIED
    item.result = output_json
    item.error = None
    item.applied_at = utcnow()

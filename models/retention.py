"""What the retention job may remove from each append-only log, one small batch at a time.

Why per table: the logs serve different readers, and some rows back delivery guarantees (README, Retention):
- ``model_calls``, ``boundary_events``, ``memory_audit``, ``world_fact_events``: rows older than the cutoff
  are deleted. Nothing operational reads them past a few weeks (spend reports, the operator's page, the user's
  export, the audit trail); ``crisis_referrals``, the anonymous counts of the yearly report, is not one of them.
- ``inbound_messages``: the row is the ingest idempotency key (a repeat delivery of its ``message_id``, however
  late, must find it and send nothing twice), so it stays; only its words are cleared.
- ``outbox_records``: a published record is deleted; one not yet published is still to be sent, and one that a
  pending effect waits on (``pending_effects.after_outbox_id``, cascading) is kept with it. A late repeat of the
  message it answered then finds the message stored and no reply to re-publish: nothing is sent twice.

Each batch is one statement on at most ``limit`` rows, oldest first through an index on the time column
(migration 0024), so a batch's transaction is short and a run can stop anywhere: the next one carries on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, exists, select, update
from sqlalchemy.orm import Session

from models.audit import MemoryAudit
from models.boundary import BoundaryEvent
from models.ledger import FactEvent
from models.message import InboundMessage
from models.outbox import OutboxRecord
from models.pending_effects import PendingEffects
from models.usage import ModelCall

CLEARED = ""  # what a message's words become


@dataclass(frozen=True)
class Rule:
    """One log's retention: its table, the setting with its days, and one batch of its pruning."""

    table: str
    setting: str
    action: str  # "deleted" | "cleared": what the counts mean
    batch: Callable[[Session, datetime, int], int]


def _delete_older(model: Any, column: Any, *conditions: Any) -> Callable[[Session, datetime, int], int]:
    def batch(session: Session, cutoff: datetime, limit: int) -> int:
        oldest = select(model.id).where(column < cutoff, *conditions).order_by(column, model.id).limit(limit)
        stmt = delete(model).where(model.id.in_(oldest)).execution_options(synchronize_session=False)
        return int(session.execute(stmt).rowcount or 0)  # type: ignore[attr-defined]

    return batch


def clear_message_words(session: Session, cutoff: datetime, limit: int) -> int:
    """Clear the words of up to ``limit`` messages received before ``cutoff``, oldest first; the rows stay."""
    m = InboundMessage
    oldest = select(m.id).where(m.received_at < cutoff, m.text != CLEARED).order_by(m.received_at, m.id).limit(limit)
    stmt = update(m).where(m.id.in_(oldest)).values(text=CLEARED).execution_options(synchronize_session=False)
    return int(session.execute(stmt).rowcount or 0)  # type: ignore[attr-defined]


_published_and_owing_nothing = (
    OutboxRecord.published_at.is_not(None),
    ~exists().where(PendingEffects.after_outbox_id == OutboxRecord.id),
)

RULES: tuple[Rule, ...] = (
    Rule("model_calls", "retention_model_calls_days", "deleted", _delete_older(ModelCall, ModelCall.created_at)),
    Rule(
        "boundary_events", "retention_boundary_events_days", "deleted", _delete_older(BoundaryEvent, BoundaryEvent.at)
    ),
    Rule("inbound_messages", "retention_inbound_messages_days", "cleared", clear_message_words),
    Rule(
        "outbox_records",
        "retention_outbox_records_days",
        "deleted",
        _delete_older(OutboxRecord, OutboxRecord.created_at, *_published_and_owing_nothing),
    ),
    Rule("memory_audit", "retention_memory_audit_days", "deleted", _delete_older(MemoryAudit, MemoryAudit.at)),
    Rule("world_fact_events", "retention_world_fact_events_days", "deleted", _delete_older(FactEvent, FactEvent.at)),
)

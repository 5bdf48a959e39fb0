"""Indexes for the retention job: each pruned log's rows found oldest first without a table scan

``models.retention`` clears or deletes rows older than an operator's setting, a small batch at a time, oldest
first; these are the time columns it scans that had no index of their own. ``model_calls.created_at`` and
``boundary_events.at`` had one already. The messages' index is partial (rows whose words are not cleared yet),
so the cleared rows, which stay for exactly-once delivery, are not walked again on every run.

On PostgreSQL each index is built CONCURRENTLY, outside the migration's transaction: these tables take a write
per message, and a plain CREATE INDEX would hold their writes for the whole build.

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0024"
down_revision: str | None = "0023"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

WITH_TEXT = "text <> ''"
INDEXES: list[tuple[str, str, str, str | None]] = [
    ("ix_inbound_messages_received_at_with_text", "inbound_messages", "received_at", WITH_TEXT),
    ("ix_outbox_records_created_at", "outbox_records", "created_at", None),
    ("ix_memory_audit_at", "memory_audit", "at", None),
    ("ix_world_fact_events_at", "world_fact_events", "at", None),
]


def upgrade() -> None:
    postgresql = op.get_bind().dialect.name == "postgresql"
    for name, table, column, where in INDEXES:
        partial = {"sqlite_where": sa.text(where), "postgresql_where": sa.text(where)} if where else {}
        if postgresql:
            with op.get_context().autocommit_block():
                op.create_index(name, table, [column], postgresql_concurrently=True, if_not_exists=True, **partial)
        else:
            op.create_index(name, table, [column], **partial)


def downgrade() -> None:
    postgresql = op.get_bind().dialect.name == "postgresql"
    for name, table, _column, _where in reversed(INDEXES):
        if postgresql:
            with op.get_context().autocommit_block():
                op.drop_index(name, table_name=table, postgresql_concurrently=True, if_exists=True)
        else:
            op.drop_index(name, table_name=table)

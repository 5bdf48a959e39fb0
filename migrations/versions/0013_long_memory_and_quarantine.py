"""memory_nodes: long memory (only planning thoughts expire) and quarantine (held turns stay out of prompts)

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-01

Existing rows:
* every thought that is not a plan had ``expires_at = created + 30 days``: cleared (an insight never expires);
* a plan gets the rule of ``ella.memory.plans``: expired at the close of the user's first conversation that began
  after it was made, else kept live for the next one (old plans never carried a day of their own);
* a message the guard routed as manipulation (its inbound boundary event) and its memory node are held as
  ``manipulation``; a romantic or physical one as ``boundary``. The rule that also holds any stored text the
  manipulation rules fire on runs on new rows only (the guard is Python, not SQL).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

HELD = """
    SELECT b.message_id FROM boundary_events b
    WHERE b.direction = 'inbound' AND b.message_id IS NOT NULL AND b.category IN ({categories})
"""
MANIPULATION = HELD.format(categories="'manipulation'")
BOUNDARY = HELD.format(categories="'romantic_avowal', 'physical_escalation'")
CRISIS = HELD.format(categories="'emotional_crisis'")


def upgrade() -> None:
    comment = "manipulation: kept for the record, never in a prompt | boundary (ella.memory.quarantine)"
    with op.batch_alter_table("memory_nodes") as batch:
        batch.add_column(sa.Column("quarantine", sa.String(16), nullable=True, comment=comment))
    with op.batch_alter_table("inbound_messages") as batch:
        batch.add_column(
            sa.Column(
                "quarantine",
                sa.String(16),
                nullable=True,
                comment="why its words never enter a prompt: manipulation | boundary (ella.memory.quarantine)",
            )
        )
    op.execute(
        "UPDATE memory_nodes SET expires_at = NULL WHERE node_type = 'thought' "
        "AND (dedupe_key IS NULL OR dedupe_key NOT LIKE 'plan:%')"
    )
    op.execute(
        """
        UPDATE memory_nodes SET expires_at = (
            SELECT MIN(c.closed_at) FROM conversations c
            WHERE c.user_id = memory_nodes.user_id AND c.closed_at IS NOT NULL
              AND c.started_at > memory_nodes.created_at
        )
        WHERE node_type = 'thought' AND dedupe_key LIKE 'plan:%'
        """
    )
    for table, column in (("inbound_messages", "message_id"), ("memory_nodes", "source_message_id")):
        op.execute(
            f"UPDATE {table} SET quarantine = 'manipulation' WHERE {column} IN ({MANIPULATION}) "
            f"AND {column} NOT IN ({CRISIS})"
        )
        op.execute(
            f"UPDATE {table} SET quarantine = 'boundary' WHERE quarantine IS NULL AND {column} IN ({BOUNDARY}) "
            f"AND {column} NOT IN ({CRISIS})"
        )


def downgrade() -> None:
    with op.batch_alter_table("inbound_messages") as batch:
        batch.drop_column("quarantine")
    with op.batch_alter_table("memory_nodes") as batch:
        batch.drop_column("quarantine")

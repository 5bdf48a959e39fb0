"""memory_nodes: indexes for the per-process retrieval cache (newest node, nodes after an id, accessed since)

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-30
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_memory_nodes_user_id_id", "memory_nodes", ["user_id", "id"])
    op.create_index("ix_memory_nodes_user_id_last_accessed_at", "memory_nodes", ["user_id", "last_accessed_at"])


def downgrade() -> None:
    op.drop_index("ix_memory_nodes_user_id_last_accessed_at", table_name="memory_nodes")
    op.drop_index("ix_memory_nodes_user_id_id", table_name="memory_nodes")

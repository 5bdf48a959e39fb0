"""world_versions: a per-user counter every committed write to a lazy-world subject bumps

The lazy world's Redis cache used to trust a warm watermark until it went stale; a write whose after-commit
invalidation was lost (Redis unreachable, the writer killed after its commit) was served with the old value for
up to the subject's staleness (4 h for the mood). The cache now records the version it was computed from and a
read compares it with this row (one primary-key lookup). Users without a row are at version 0: nothing to fill.

Revision ID: 0021
Revises: 0019
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0021"
down_revision: str | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "world_versions",
        sa.Column("user_id", sa.String(128), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("version", sa.BigInteger(), nullable=False, comment="bumped by every world-subject write"),
    )


def downgrade() -> None:
    op.drop_table("world_versions")

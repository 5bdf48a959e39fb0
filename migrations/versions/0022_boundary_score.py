"""boundary_events.score: the guard's learned stage logs the probability behind each of its verdicts

The learned stage (``ella.guard.semantic``) grades its findings: sure ones take the hand-written route, a suspected
crisis gets a check-in. Each fire keeps the probability behind it, so the nightly regression and an operator can
see how close a verdict was to its threshold. Rules' fires have none (NULL): nothing to fill.

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0022"
down_revision: str | None = "0021"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("boundary_events") as batch:
        batch.add_column(
            sa.Column("score", sa.Float(), nullable=True, comment="the learned stage's probability; NULL for a rule")
        )


def downgrade() -> None:
    with op.batch_alter_table("boundary_events") as batch:
        batch.drop_column("score")

"""world_facts: consolidation (retired with a reason and an outcome)

A fact the user's words retire keeps why in ``status_note`` (and its status event's note), as every status
change already did. What was missing is what came of an event that happened: "the interview went great"
retires "has upcoming: job interview", and the row keeps the outcome the user told. Rows retired before this
revision get NULL: nothing recorded an outcome for them.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("world_facts") as batch:
        batch.add_column(
            sa.Column("outcome", sa.Text(), nullable=True, comment="a retired event: what came of it, as the user told")
        )


def downgrade() -> None:
    with op.batch_alter_table("world_facts") as batch:
        batch.drop_column("outcome")

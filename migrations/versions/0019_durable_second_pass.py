"""forgotten_users: the erasure's second pass, recorded on the tombstone so that a lost broker cannot lose it

The second pass of ``ella.forget_user`` was only a countdown task in Redis, 600 s out: a Redis restart without
AOF, or a kill within AOF's fsync second, lost it, and what tasks in flight wrote after the first pass stayed.
Now the first pass records ``second_pass_due_at`` and the id (``pending_user_id``, which the pass clears with
``second_pass_done_at``), and ``ella.forget_users_again`` (beat) runs every due pass the countdown did not.
Rows before this revision: NULL (their second pass has run or is still a countdown task naming the user).

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("forgotten_users") as batch:
        batch.add_column(
            sa.Column(
                "pending_user_id",
                sa.String(128),
                nullable=True,
                comment="the erased id, only until the second pass is done",
            )
        )
        batch.add_column(
            sa.Column(
                "first_task_id",
                sa.String(255),
                nullable=True,
                comment="the first pass's Celery task id: the second pass's ack names it",
            )
        )
        batch.add_column(sa.Column("second_pass_due_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("second_pass_done_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("forgotten_users") as batch:
        batch.drop_column("second_pass_done_at")
        batch.drop_column("second_pass_due_at")
        batch.drop_column("first_task_id")
        batch.drop_column("pending_user_id")

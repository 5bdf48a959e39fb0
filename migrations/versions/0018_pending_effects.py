"""pending_effects: the tasks a commit owes, written in the commit (a transactional outbox for emits)

A committed turn owes its memory, its facts, the memo of a conversation it closed and the pictures its reply
named; a sent notification owes Ella's memory of it; a closed conversation owes its memo. Each such commit now
writes one row listing those emits; the committing path sends them and deletes the row, and
``ella.send_pending_effects`` (beat) sends what a kill or a broker outage left behind (``models.pending_effects``).

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "pending_effects",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), primary_key=True, autoincrement=True),
        sa.Column("user_id", sa.String(128), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column(
            "source",
            sa.String(200),
            nullable=False,
            comment="what the effects derive from: a message_id, notification:<id>, conversation:<id>",
        ),
        sa.Column("effects", sa.Text(), nullable=False, comment="JSON list of {task, kwargs, kwargsrepr}"),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("next_at", sa.DateTime(timezone=True), nullable=False, comment="when the sweep may send it"),
        sa.Column("attempts", sa.Integer(), nullable=False, server_default="0"),
        sa.Column(
            "after_outbox_id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            sa.ForeignKey("outbox_records.id", ondelete="CASCADE"),
            nullable=True,
            comment="sent only once this outbox record is published: Ella remembers a notification the user got",
        ),
    )
    op.create_index("ix_pending_effects_next_at", "pending_effects", ["next_at"])
    op.create_index("ix_pending_effects_user_id_source", "pending_effects", ["user_id", "source"])


def downgrade() -> None:
    op.drop_index("ix_pending_effects_user_id_source", table_name="pending_effects")
    op.drop_index("ix_pending_effects_next_at", table_name="pending_effects")
    op.drop_table("pending_effects")

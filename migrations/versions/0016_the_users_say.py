"""memory_audit, outbox_records.seen and users.memory_epoch: the user's say over their memory, what each reply saw

``memory_audit`` records every forget, retirement, correction and export (who, when, why, which ids; never the
forgotten words). ``outbox_records.seen`` is the JSON map, per prompt section, of the ids of the memories,
facts, self-log entries, chapter and arc a reply's prompt carried (NULL for rows written before this revision
and for notifications). ``users.memory_epoch`` moves on every forget of one memory, so the per-process
retrieval caches rebuild that user's index.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "memory_audit",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), primary_key=True, autoincrement=True),
        sa.Column("user_id", sa.String(128), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("actor", sa.String(120), nullable=False, comment="user | gateway | operator:<name>"),
        sa.Column(
            "action", sa.String(32), nullable=False, comment="forget_memory | retire_fact | correct_fact | export"
        ),
        sa.Column("target", sa.String(64), nullable=False, comment="memory:<id> | fact:<id> | user"),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("detail", sa.Text(), nullable=False, comment="JSON: ids it touched, never the words"),
        sa.Column("request_id", sa.String(200), nullable=True, comment="the message or request that asked"),
    )
    op.create_index("ix_memory_audit_user_id_at", "memory_audit", ["user_id", "at"])
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("memory_epoch", sa.Integer(), server_default="0", nullable=False))
    with op.batch_alter_table("outbox_records") as batch:
        batch.add_column(
            sa.Column(
                "seen",
                sa.Text(),
                nullable=True,
                comment="JSON: section -> ids of what the reply's prompt carried (ella.seen)",
            )
        )


def downgrade() -> None:
    with op.batch_alter_table("outbox_records") as batch:
        batch.drop_column("seen")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("memory_epoch")
    op.drop_index("ix_memory_audit_user_id_at", table_name="memory_audit")
    op.drop_table("memory_audit")

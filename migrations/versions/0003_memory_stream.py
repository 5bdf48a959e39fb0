"""memory stream

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-29
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "memory_nodes",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("user_id", sa.String(length=128), nullable=False),
        sa.Column("node_type", sa.String(length=8), nullable=False, comment="event | chat | thought"),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_accessed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("subject", sa.String(length=200), nullable=False),
        sa.Column("predicate", sa.String(length=120), nullable=False),
        sa.Column("object", sa.String(length=400), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("embedding", sa.LargeBinary(), nullable=False, comment="float32, L2-normalised"),
        sa.Column("embedding_model", sa.String(length=64), nullable=False),
        sa.Column("poignancy", sa.SmallInteger(), nullable=False),
        sa.Column("keywords", sa.Text(), nullable=False, comment="JSON list"),
        sa.Column("depth", sa.SmallInteger(), nullable=False),
        sa.Column("evidence", sa.Text(), nullable=False, comment="JSON: node ids, or a chat's transcript"),
        sa.Column("source_message_id", sa.String(length=200), nullable=True),
        sa.Column("conversation_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True),
        sa.Column("dedupe_key", sa.String(length=200), nullable=True),
        sa.ForeignKeyConstraint(
            ["conversation_id"],
            ["conversations.id"],
            name=op.f("fk_memory_nodes_conversation_id_conversations"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_memory_nodes_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_memory_nodes")),
        sa.UniqueConstraint("dedupe_key", name=op.f("uq_memory_nodes_dedupe_key")),
    )
    with op.batch_alter_table("memory_nodes", schema=None) as batch_op:
        batch_op.create_index("ix_memory_nodes_user_id_created_at", ["user_id", "created_at"], unique=False)
        batch_op.create_index(
            "ix_memory_nodes_user_id_node_type_created_at", ["user_id", "node_type", "created_at"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("memory_nodes", schema=None) as batch_op:
        batch_op.drop_index("ix_memory_nodes_user_id_node_type_created_at")
        batch_op.drop_index("ix_memory_nodes_user_id_created_at")

    op.drop_table("memory_nodes")

"""usage ledger and message batches

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "model_batches",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("provider", sa.String(length=16), nullable=False),
        sa.Column("provider_batch_id", sa.String(length=128), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("submitted_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("item_count", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_model_batches")),
        sa.UniqueConstraint("provider_batch_id", name=op.f("uq_model_batches_provider_batch_id")),
    )
    with op.batch_alter_table("model_batches", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_model_batches_status"), ["status"], unique=False)

    op.create_table(
        "model_calls",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("user_id", sa.String(length=128), nullable=True),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("tier", sa.String(length=32), nullable=False),
        sa.Column("model", sa.String(length=64), nullable=False),
        sa.Column("provider", sa.String(length=16), nullable=False),
        sa.Column("batch", sa.Boolean(), nullable=False, comment="served by the Message Batches API"),
        sa.Column("input_tokens", sa.Integer(), nullable=False),
        sa.Column("output_tokens", sa.Integer(), nullable=False),
        sa.Column("cache_write_tokens", sa.Integer(), nullable=False),
        sa.Column("cache_read_tokens", sa.Integer(), nullable=False),
        sa.Column("latency_ms", sa.Float(), nullable=False),
        sa.Column("outcome", sa.String(length=24), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_model_calls")),
    )
    with op.batch_alter_table("model_calls", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_model_calls_created_at"), ["created_at"], unique=False)
        batch_op.create_index("ix_model_calls_user_id_created_at", ["user_id", "created_at"], unique=False)

    op.create_table(
        "model_batch_items",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("custom_id", sa.String(length=64), nullable=False),
        sa.Column("batch_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True),
        sa.Column("purpose", sa.String(length=64), nullable=False, comment="which handler applies the result"),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("user_id", sa.String(length=128), nullable=True),
        sa.Column("variables", sa.Text(), nullable=False, comment="JSON"),
        sa.Column("context", sa.Text(), nullable=False, comment="JSON"),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("submissions", sa.Integer(), nullable=False),
        sa.Column("result", sa.Text(), nullable=True, comment="JSON of the validated output"),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("applied_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["batch_id"],
            ["model_batches.id"],
            name=op.f("fk_model_batch_items_batch_id_model_batches"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_model_batch_items")),
        sa.UniqueConstraint("custom_id", name=op.f("uq_model_batch_items_custom_id")),
    )
    with op.batch_alter_table("model_batch_items", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_model_batch_items_batch_id"), ["batch_id"], unique=False)
        batch_op.create_index("ix_model_batch_items_status_purpose", ["status", "purpose"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("model_batch_items", schema=None) as batch_op:
        batch_op.drop_index("ix_model_batch_items_status_purpose")
        batch_op.drop_index(batch_op.f("ix_model_batch_items_batch_id"))

    op.drop_table("model_batch_items")
    with op.batch_alter_table("model_calls", schema=None) as batch_op:
        batch_op.drop_index("ix_model_calls_user_id_created_at")
        batch_op.drop_index(batch_op.f("ix_model_calls_created_at"))

    op.drop_table("model_calls")
    with op.batch_alter_table("model_batches", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_model_batches_status"))

    op.drop_table("model_batches")

"""initial schema: users, conversations, inbound messages, outbox records, dead letters

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "dead_letters",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("task_name", sa.String(length=200), nullable=False),
        sa.Column("task_id", sa.String(length=64), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("payload", sa.Text(), nullable=False),
        sa.Column("user_id", sa.String(length=128), nullable=True),
        sa.Column("message_id", sa.String(length=200), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_dead_letters")),
    )
    with op.batch_alter_table("dead_letters", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_dead_letters_created_at"), ["created_at"], unique=False)
        batch_op.create_index(batch_op.f("ix_dead_letters_task_id"), ["task_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_dead_letters_user_id"), ["user_id"], unique=False)

    op.create_table(
        "users",
        sa.Column("id", sa.String(length=128), nullable=False, comment="the gateway's user id"),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("timezone", sa.String(length=64), nullable=False),
        sa.Column("dnd_start_minute", sa.SmallInteger(), nullable=False),
        sa.Column("dnd_end_minute", sa.SmallInteger(), nullable=False),
        sa.Column("active_start_minute", sa.SmallInteger(), nullable=False),
        sa.Column("active_end_minute", sa.SmallInteger(), nullable=False),
        sa.Column("is_minor", sa.Boolean(), nullable=False),
        sa.Column("importance_trigger_curr", sa.Integer(), nullable=False),
        sa.Column("importance_trigger_max", sa.Integer(), nullable=False),
        sa.CheckConstraint(
            "dnd_start_minute BETWEEN 0 AND 1439 AND dnd_end_minute BETWEEN 0 AND 1439"
            " AND active_start_minute BETWEEN 0 AND 1439 AND active_end_minute BETWEEN 0 AND 1439",
            name=op.f("ck_users_minutes_of_day"),
        ),
        sa.CheckConstraint("importance_trigger_max > 0", name=op.f("ck_users_trigger_max_positive")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_users")),
    )
    op.create_table(
        "conversations",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("user_id", sa.String(length=128), nullable=False),
        sa.Column("external_id", sa.String(length=200), nullable=True, comment="the gateway's conversation id"),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_message_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("close_due_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("close_reason", sa.String(length=32), nullable=True),
        sa.Column("turn_count", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_conversations_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_conversations")),
    )
    with op.batch_alter_table("conversations", schema=None) as batch_op:
        batch_op.create_index(
            "ix_conversations_close_due_open",
            ["close_due_at"],
            unique=False,
            sqlite_where=sa.text("closed_at IS NULL"),
            postgresql_where=sa.text("closed_at IS NULL"),
        )
        batch_op.create_index(
            "uq_conversations_open_per_user",
            ["user_id"],
            unique=True,
            sqlite_where=sa.text("closed_at IS NULL"),
            postgresql_where=sa.text("closed_at IS NULL"),
        )

    op.create_table(
        "inbound_messages",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("message_id", sa.String(length=200), nullable=False),
        sa.Column("user_id", sa.String(length=128), nullable=False),
        sa.Column("conversation_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("task_id", sa.String(length=64), nullable=True),
        sa.ForeignKeyConstraint(
            ["conversation_id"],
            ["conversations.id"],
            name=op.f("fk_inbound_messages_conversation_id_conversations"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_inbound_messages_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_inbound_messages")),
        sa.UniqueConstraint("message_id", name=op.f("uq_inbound_messages_message_id")),
    )
    with op.batch_alter_table("inbound_messages", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_inbound_messages_conversation_id"), ["conversation_id"], unique=False)
        batch_op.create_index("ix_inbound_messages_user_id_sent_at", ["user_id", "sent_at"], unique=False)

    op.create_table(
        "outbox_records",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("uid", sa.String(length=36), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False, comment="reply | notification"),
        sa.Column("user_id", sa.String(length=128), nullable=False),
        sa.Column("conversation_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True),
        sa.Column(
            "in_reply_to",
            sa.String(length=200),
            nullable=True,
            comment="message_id answered; one reply per inbound message",
        ),
        sa.Column("route", sa.String(length=16), nullable=False, comment="generated | canned | fallback"),
        sa.Column("category", sa.String(length=32), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("published_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("stream_id", sa.String(length=32), nullable=True),
        sa.ForeignKeyConstraint(
            ["conversation_id"],
            ["conversations.id"],
            name=op.f("fk_outbox_records_conversation_id_conversations"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_outbox_records_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_outbox_records")),
        sa.UniqueConstraint("in_reply_to", name=op.f("uq_outbox_records_in_reply_to")),
        sa.UniqueConstraint("uid", name=op.f("uq_outbox_records_uid")),
    )
    with op.batch_alter_table("outbox_records", schema=None) as batch_op:
        batch_op.create_index("ix_outbox_records_user_id_created_at", ["user_id", "created_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("outbox_records", schema=None) as batch_op:
        batch_op.drop_index("ix_outbox_records_user_id_created_at")

    op.drop_table("outbox_records")
    with op.batch_alter_table("inbound_messages", schema=None) as batch_op:
        batch_op.drop_index("ix_inbound_messages_user_id_sent_at")
        batch_op.drop_index(batch_op.f("ix_inbound_messages_conversation_id"))

    op.drop_table("inbound_messages")
    with op.batch_alter_table("conversations", schema=None) as batch_op:
        batch_op.drop_index(
            "uq_conversations_open_per_user",
            sqlite_where=sa.text("closed_at IS NULL"),
            postgresql_where=sa.text("closed_at IS NULL"),
        )
        batch_op.drop_index(
            "ix_conversations_close_due_open",
            sqlite_where=sa.text("closed_at IS NULL"),
            postgresql_where=sa.text("closed_at IS NULL"),
        )

    op.drop_table("conversations")
    op.drop_table("users")
    with op.batch_alter_table("dead_letters", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_dead_letters_user_id"))
        batch_op.drop_index(batch_op.f("ix_dead_letters_task_id"))
        batch_op.drop_index(batch_op.f("ix_dead_letters_created_at"))

    op.drop_table("dead_letters")

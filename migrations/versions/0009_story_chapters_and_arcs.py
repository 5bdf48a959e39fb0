"""story chapters and relationship arcs: a chapter per user and week (with its thought node), an arc per user
and month (history kept)

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TS = sa.DateTime(timezone=True)
_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "story_chapters",
        sa.Column("id", _ID, autoincrement=True, nullable=False),
        sa.Column("user_id", sa.String(length=128), nullable=False),
        sa.Column("period", sa.String(length=16), nullable=False, comment="the local ISO week, 2026-W48"),
        sa.Column("period_start", _TS, nullable=False),
        sa.Column("period_end", _TS, nullable=False, comment="the arc of the month it ends in reads it"),
        sa.Column("title", sa.String(length=200), nullable=False),
        sa.Column("summary", sa.Text(), nullable=False),
        sa.Column("key_moments", sa.Text(), nullable=False, comment='JSON: [{"text", "node_ids"}]'),
        sa.Column("cited_node_ids", sa.Text(), nullable=False, comment="JSON: every node id the moments cite"),
        sa.Column("thought_node_id", _ID, nullable=True),
        sa.Column("created_at", _TS, nullable=False),
        sa.ForeignKeyConstraint(
            ["thought_node_id"],
            ["memory_nodes.id"],
            name=op.f("fk_story_chapters_thought_node_id_memory_nodes"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_story_chapters_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_story_chapters")),
        sa.UniqueConstraint("user_id", "period", name=op.f("uq_story_chapters_user_id_period")),
    )
    op.create_table(
        "relationship_arcs",
        sa.Column("id", _ID, autoincrement=True, nullable=False),
        sa.Column("user_id", sa.String(length=128), nullable=False),
        sa.Column("period", sa.String(length=16), nullable=False, comment="the local month, 2026-10"),
        sa.Column(
            "stage", sa.String(length=16), nullable=False, comment="new | warming | steady | strained | drifting"
        ),
        sa.Column("trajectory", sa.String(length=80), nullable=False),
        sa.Column("mindful_of", sa.Text(), nullable=False),
        sa.Column("chapter_ids", sa.Text(), nullable=False, comment="JSON: the story_chapters ids it read"),
        sa.Column("previous_period", sa.String(length=16), nullable=True, comment="the arc it followed, if any"),
        sa.Column("created_at", _TS, nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_relationship_arcs_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_relationship_arcs")),
        sa.UniqueConstraint("user_id", "period", name=op.f("uq_relationship_arcs_user_id_period")),
    )


def downgrade() -> None:
    op.drop_table("relationship_arcs")
    op.drop_table("story_chapters")

"""image anchors: one row per version of an entity's picture for one user (one current per user and entity)

Revision ID: 0011
Revises: 0009
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TS = sa.DateTime(timezone=True)
_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
_CURRENT = "superseded_at IS NULL"


def upgrade() -> None:
    op.create_table(
        "image_anchors",
        sa.Column("id", _ID, autoincrement=True, nullable=False),
        sa.Column("user_id", sa.String(length=128), nullable=False),
        sa.Column(
            "entity", sa.String(length=120), nullable=False, comment="what the picture shows: loch, cottage_door"
        ),
        sa.Column("version", sa.Integer(), nullable=False, comment="1 for the first render, +1 per canon redraw"),
        sa.Column("sha256", sa.String(length=64), nullable=False, comment="the bytes' file name in the image store"),
        sa.Column("prompt", sa.Text(), nullable=False),
        sa.Column("fact_id", _ID, nullable=True, comment="the ledger fact it was drawn from"),
        sa.Column("created_at", _TS, nullable=False),
        sa.Column("superseded_at", _TS, nullable=True, comment="set when a canon redraw replaced it"),
        sa.ForeignKeyConstraint(
            ["fact_id"], ["world_facts.id"], name=op.f("fk_image_anchors_fact_id_world_facts"), ondelete="SET NULL"
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_image_anchors_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_image_anchors")),
        sa.UniqueConstraint("user_id", "entity", "version", name=op.f("uq_image_anchors_user_id_entity_version")),
    )
    with op.batch_alter_table("image_anchors", schema=None) as batch_op:
        batch_op.create_index("ix_image_anchors_sha256", ["sha256"], unique=False)
        batch_op.create_index(
            "uq_image_anchors_current",
            ["user_id", "entity"],
            unique=True,
            postgresql_where=sa.text(_CURRENT),
            sqlite_where=sa.text(_CURRENT),
        )


def downgrade() -> None:
    with op.batch_alter_table("image_anchors", schema=None) as batch_op:
        batch_op.drop_index("uq_image_anchors_current")
        batch_op.drop_index("ix_image_anchors_sha256")
    op.drop_table("image_anchors")

"""image_anchors.shown_at and outbox_records.images: a picture's reference reaches the gateway, once

The first reply that shows an anchored place or companion carries the picture's reference (id, entity, version,
content hash, media type) on its outbox entry (``outbox_records.images``, JSON), and the anchor records that it
was given (``image_anchors.shown_at``), so no later reply carries it again. Rows before this revision: NULL (an
anchor drawn before it is given with the next reply that names it).

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("image_anchors") as batch:
        batch.add_column(
            sa.Column(
                "shown_at",
                sa.DateTime(timezone=True),
                nullable=True,
                comment="when a reply first carried its reference to the gateway",
            )
        )
    with op.batch_alter_table("outbox_records") as batch:
        batch.add_column(
            sa.Column("images", sa.Text(), nullable=True, comment="JSON: the image references the entry carries")
        )


def downgrade() -> None:
    with op.batch_alter_table("outbox_records") as batch:
        batch.drop_column("images")
    with op.batch_alter_table("image_anchors") as batch:
        batch.drop_column("shown_at")

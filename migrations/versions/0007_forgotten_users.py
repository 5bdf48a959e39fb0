"""forgotten users: the erased users' tombstones

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "forgotten_users",
        sa.Column("key", sa.String(length=64), nullable=False, comment="HMAC-SHA256(secret, user id), hex"),
        sa.Column("forgotten_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_forgotten_users")),
    )


def downgrade() -> None:
    op.drop_table("forgotten_users")

"""provenance: engine, model, prompt kind and version on every row of Ella's inner life

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-01
"""

from collections.abc import Sequence

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass

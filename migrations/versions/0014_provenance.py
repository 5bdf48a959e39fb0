"""provenance: engine, model, prompt kind and version on every row of Ella's inner life

Rows stored before this revision get NULL in all four columns, not a made-up value: nothing recorded what made
them (the model-usage table names the provider of each call but not the row a call produced), and ``unknown``
written into the column would read as a fact. The readers (``ella inspect``, ``ella memory show``) show a NULL
engine as ``unknown``, and ``ella.provenance.shown_in_prompts`` treats it as not rule-made.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = (
    "memory_nodes",
    "world_facts",
    "self_log",
    "story_chapters",
    "relationship_arcs",
    "notification_candidates",
)
COLUMNS = (
    ("engine", 16, "anthropic | offline | rules | operator"),
    ("model_id", 64, "the model that answered; empty for rules"),
    ("prompt_kind", 32, "the prompt kind, or the rule's name"),
    ("prompt_version", 16, "short hash of the kind's prompt"),
)


def upgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table) as batch:
            for name, width, comment in COLUMNS:
                batch.add_column(sa.Column(name, sa.String(width), nullable=True, comment=comment))


def downgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table) as batch:
            for name, _, _ in reversed(COLUMNS):
                batch.drop_column(name)

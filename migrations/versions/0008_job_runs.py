"""job runs: the proactive jobs' runs, chunks and per-user marks; users found by time zone

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "job_runs",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("job", sa.String(length=16), nullable=False, comment="digest | chapters | arcs"),
        sa.Column(
            "period", sa.String(length=32), nullable=False, comment="the UTC hour slot whose local triggers it plans"
        ),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("zones", sa.Text(), nullable=False, comment="JSON: due time zone -> the period label"),
        sa.Column("cursor", sa.String(length=128), nullable=True, comment="keyset: the last user id paged"),
        sa.Column("users_total", sa.Integer(), nullable=False, comment="users paged into chunks"),
        sa.Column("users_done", sa.Integer(), nullable=False),
        sa.Column("chunks_total", sa.Integer(), nullable=False),
        sa.Column("chunks_done", sa.Integer(), nullable=False),
        sa.Column("requests", sa.Integer(), nullable=False, comment="requests queued"),
        sa.Column("idle", sa.Integer(), nullable=False, comment="users with nothing new: no request"),
        sa.Column("failed", sa.Integer(), nullable=False, comment="users dead-lettered"),
        sa.Column("started_at", _TS, nullable=False),
        sa.Column("updated_at", _TS, nullable=False),
        sa.Column("finished_at", _TS, nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_job_runs")),
        sa.UniqueConstraint("job", "period", name=op.f("uq_job_runs_job_period")),
    )
    op.create_index(op.f("ix_job_runs_state"), "job_runs", ["state"])
    op.create_table(
        "job_chunks",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("run_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("after_user", sa.String(length=128), nullable=False, comment="keyset: users after this id ..."),
        sa.Column("through_user", sa.String(length=128), nullable=False, comment="... up to and including this one"),
        sa.Column("users", sa.Integer(), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("requests", sa.Integer(), nullable=False),
        sa.Column("idle", sa.Integer(), nullable=False),
        sa.Column("failed", sa.Integer(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("created_at", _TS, nullable=False),
        sa.Column("done_at", _TS, nullable=True),
        sa.ForeignKeyConstraint(
            ["run_id"], ["job_runs.id"], name=op.f("fk_job_chunks_run_id_job_runs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_job_chunks")),
        sa.UniqueConstraint("run_id", "seq", name=op.f("uq_job_chunks_run_id_seq")),
    )
    op.create_index(op.f("ix_job_chunks_state"), "job_chunks", ["state"])
    op.create_table(
        "job_marks",
        sa.Column("user_id", sa.String(length=128), nullable=False),
        sa.Column("job", sa.String(length=16), nullable=False),
        sa.Column("period", sa.String(length=16), nullable=False, comment="the last period a request was queued for"),
        sa.Column("requested_at", _TS, nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name=op.f("fk_job_marks_user_id_users"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("user_id", "job", name=op.f("pk_job_marks")),
    )
    op.create_index(op.f("ix_users_timezone"), "users", ["timezone", "id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_users_timezone"), table_name="users")
    op.drop_table("job_marks")
    op.drop_index(op.f("ix_job_chunks_state"), table_name="job_chunks")
    op.drop_table("job_chunks")
    op.drop_index(op.f("ix_job_runs_state"), table_name="job_runs")
    op.drop_table("job_runs")

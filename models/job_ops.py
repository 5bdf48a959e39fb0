"""What an operator asks about the proactive jobs (``ella jobs``): batch items per status, the jobs' dead
letters, a run's chunks that failed, the users a pass still has to page.

Why a module apart from ``models.runs``: these are read-only reports across three stores (runs, batch items,
dead letters); the runner's own tables and their writes stay in ``models.runs``.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ella.jobs import USER_FAILED_TASK
from ella.llm.batches import GAVE_UP_TASK
from models.batch import ModelBatchItem
from models.dead_letter import DeadLetter
from models.runs import JobChunk, JobRun
from models.user import User

JOB_USER_TASK = USER_FAILED_TASK  # one user a chunk could not plan
BATCH_ITEM_TASK = GAVE_UP_TASK  # a Message Batches request given up


def batch_items_by_status(session: Session, purposes: Collection[str]) -> dict[str, Counter[str]]:
    """purpose -> status -> items (pending, submitted, applied, failsafe, gave_up), one grouped query."""
    rows = session.execute(
        select(ModelBatchItem.purpose, ModelBatchItem.status, func.count())
        .where(ModelBatchItem.purpose.in_(sorted(purposes)))
        .group_by(ModelBatchItem.purpose, ModelBatchItem.status)
    )
    out: dict[str, Counter[str]] = {purpose: Counter() for purpose in purposes}
    for purpose, status, count in rows:
        out[purpose][status] += count
    return out


@dataclass(frozen=True)
class JobFailure:
    """One failure an operator should see: which job, where it came from, when, and why."""

    job: str
    source: str  # "chunk", "ella.job_user" or "ella.model_batch_item"
    at: datetime | None
    what: str  # the chunk (run slot and seq), the user, or the request's custom_id
    reason: str


def _payload(row: DeadLetter) -> dict[str, Any]:
    try:
        decoded = json.loads(row.payload)
    except json.JSONDecodeError:
        return {}
    kwargs = decoded.get("kwargs") if isinstance(decoded, dict) else None
    return kwargs if isinstance(kwargs, dict) else {}


def job_dead_letters(session: Session, jobs: Collection[str], limit: int = 10, scan: int = 500) -> list[JobFailure]:
    """The newest dead letters of the jobs' users (``ella.job_user``) and batch items (``ella.model_batch_item``
    whose purpose is a job), newest first; reads the newest ``scan`` rows of those two task names."""
    rows = session.scalars(
        select(DeadLetter)
        .where(DeadLetter.task_name.in_([JOB_USER_TASK, BATCH_ITEM_TASK]))
        .order_by(DeadLetter.created_at.desc(), DeadLetter.id.desc())
        .limit(scan)
    )
    out: list[JobFailure] = []
    for row in rows:
        kwargs = _payload(row)
        job = kwargs.get("job") if row.task_name == JOB_USER_TASK else kwargs.get("purpose")
        if job not in jobs:
            continue
        if row.task_name == JOB_USER_TASK:
            what = kwargs.get("user_id") or row.user_id
        else:
            what = kwargs.get("custom_id")
        out.append(JobFailure(str(job), row.task_name, row.created_at, str(what or ""), row.reason))
        if len(out) >= limit:
            break
    return out


def failed_chunks(session: Session, limit: int = 10) -> list[JobFailure]:
    """The newest chunks that failed as a whole or dead-lettered some of their users, with their run's job."""
    rows = session.execute(
        select(JobChunk, JobRun.job, JobRun.period)
        .join(JobRun, JobRun.id == JobChunk.run_id)
        .where((JobChunk.error.is_not(None)) | (JobChunk.failed > 0))
        .order_by(JobChunk.done_at.desc(), JobChunk.id.desc())
        .limit(limit)
    )
    return [
        JobFailure(
            job,
            "chunk",
            chunk.done_at,
            f"{period} chunk {chunk.seq}",
            chunk.error or f"{chunk.failed} of {chunk.users} users dead-lettered",
        )
        for chunk, job, period in rows
    ]


def users_left(session: Session, zones: Sequence[str], after: str | None) -> int:
    """How many users of ``zones`` a run whose cursor is ``after`` has still to page (a progress bar's total)."""
    if not zones:
        return 0
    query = select(func.count()).select_from(User).where(User.timezone.in_(list(zones)))
    if after is not None:
        query = query.where(User.id > after)
    return int(session.scalar(query) or 0)

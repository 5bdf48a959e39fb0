"""Runs of the proactive jobs: what a planner paged through, in chunks, and what each chunk queued.

Why a run table and not one giant chord: at 100,000 users a fan-out must survive a crash, a redelivery and a
second beat. A run is one (job, slot) and is unique, so a second planner finds the same row. It records the
keyset ``cursor`` of the last user paged: a planner that dies resumes after it. Each page becomes a chunk row
(unique per run and sequence number) before its task is sent, and a chunk is marked done in the same
transaction that queues its requests, so a redelivered chunk task finds it done and queues nothing twice.
``job_marks`` keeps, per user and job, the last period requested: "anything new since the last digest?" is
read against it, and only users who got a request have a mark (an idle user writes nothing).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import ForeignKey, Integer, String, Text, UniqueConstraint, func, select, update
from sqlalchemy.orm import Mapped, Session, mapped_column

from models.base import Base, BigId, UTCDateTime, dialect_insert, utcnow
from models.erasure import register_table
from models.user import User

# JobRun.state
PLANNING = "planning"  # paging users into chunks
PLANNED = "planned"  # every chunk row exists; chunks may still be running
DONE = "done"  # every chunk done or failed

# JobChunk.state
QUEUED = "queued"
CHUNK_DONE = "done"
CHUNK_FAILED = "failed"  # the chunk as a whole failed (its users were dead-lettered one by one otherwise)


class JobRun(Base):
    __tablename__ = "job_runs"
    __table_args__ = (UniqueConstraint("job", "period"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    job: Mapped[str] = mapped_column(String(16), comment="digest | chapters | arcs")
    period: Mapped[str] = mapped_column(String(32), comment="the UTC hour slot whose local triggers it plans")
    state: Mapped[str] = mapped_column(String(16), default=PLANNING, index=True)
    zones: Mapped[str] = mapped_column(Text, default="{}", comment="JSON: due time zone -> the period label")
    cursor: Mapped[str | None] = mapped_column(String(128), comment="keyset: the last user id paged")
    users_total: Mapped[int] = mapped_column(Integer, default=0, comment="users paged into chunks")
    users_done: Mapped[int] = mapped_column(Integer, default=0)
    chunks_total: Mapped[int] = mapped_column(Integer, default=0)
    chunks_done: Mapped[int] = mapped_column(Integer, default=0)
    requests: Mapped[int] = mapped_column(Integer, default=0, comment="requests queued")
    idle: Mapped[int] = mapped_column(Integer, default=0, comment="users with nothing new: no request")
    failed: Mapped[int] = mapped_column(Integer, default=0, comment="users dead-lettered")
    started_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime())

    @property
    def due_zones(self) -> dict[str, str]:
        return dict(json.loads(self.zones or "{}"))


class JobChunk(Base):
    __tablename__ = "job_chunks"
    __table_args__ = (UniqueConstraint("run_id", "seq"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("job_runs.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column(Integer)
    after_user: Mapped[str] = mapped_column(String(128), comment="keyset: users after this id ...")
    through_user: Mapped[str] = mapped_column(String(128), comment="... up to and including this one")
    users: Mapped[int] = mapped_column(Integer, default=0)
    state: Mapped[str] = mapped_column(String(16), default=QUEUED, index=True)
    requests: Mapped[int] = mapped_column(Integer, default=0)
    idle: Mapped[int] = mapped_column(Integer, default=0)
    failed: Mapped[int] = mapped_column(Integer, default=0)
    error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    done_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class JobMark(Base):
    __tablename__ = "job_marks"

    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    job: Mapped[str] = mapped_column(String(16), primary_key=True)
    period: Mapped[str] = mapped_column(String(16), comment="the last period a request was queued for")
    requested_at: Mapped[datetime] = mapped_column(UTCDateTime())


# --- runs ------------------------------------------------------------------------------------------------------


def last_period(session: Session, job: str) -> str | None:
    """The latest slot a run of ``job`` was opened for (slot labels sort as time)."""
    return session.scalar(select(func.max(JobRun.period)).where(JobRun.job == job))


def user_zones(session: Session) -> list[str]:
    """Every time zone some user has: a few hundred names, read from the index, not the users."""
    return list(session.scalars(select(User.timezone).distinct()))


def open_run(session: Session, job: str, period: str, zones: dict[str, str]) -> None:
    """Create the run of (job, slot) unless it exists; a second planner's insert does nothing."""
    now = utcnow()
    values: dict[str, object] = {"job": job, "period": period, "state": PLANNING, "started_at": now}
    values |= {"zones": json.dumps(zones, sort_keys=True), "updated_at": now}
    insert = dialect_insert(session)(JobRun).values(values)
    session.execute(insert.on_conflict_do_nothing(index_elements=["job", "period"]))


def unfinished_runs(session: Session, job: str) -> list[JobRun]:
    return list(session.scalars(select(JobRun).where(JobRun.job == job, JobRun.state != DONE).order_by(JobRun.period)))


def lock_run(session: Session, run_id: int) -> JobRun:
    """The run, locked: one planner pages it at a time (``SELECT ... FOR UPDATE``; SQLite serialises writers)."""
    return session.get_one(JobRun, run_id, with_for_update=True, populate_existing=True)


def page_users(session: Session, zones: Sequence[str], after: str | None, limit: int) -> list[str]:
    """One keyset page of the ids of users in ``zones``, after ``after``; ids only, so a page costs little."""
    query = select(User.id).where(User.timezone.in_(list(zones))).order_by(User.id).limit(limit)
    if after is not None:
        query = query.where(User.id > after)
    return list(session.scalars(query))


def add_chunk(session: Session, run: JobRun, user_ids: Sequence[str]) -> JobChunk:
    """The next chunk of ``run`` (its users are ``user_ids``, a keyset page) and the run's cursor past it."""
    chunk = JobChunk(
        run_id=run.id,
        seq=run.chunks_total,
        after_user=run.cursor or "",
        through_user=user_ids[-1],
        users=len(user_ids),
        state=QUEUED,
        created_at=utcnow(),
    )
    session.add(chunk)
    run.cursor = user_ids[-1]
    run.chunks_total += 1
    run.users_total += len(user_ids)
    run.updated_at = utcnow()
    session.flush()
    return chunk


def finish_planning(session: Session, run: JobRun) -> None:
    run.state = PLANNED
    run.updated_at = utcnow()
    _maybe_done(run)


def _maybe_done(run: JobRun) -> None:
    if run.state == PLANNED and run.chunks_done >= run.chunks_total:
        run.state = DONE
        run.finished_at = utcnow()


def stale_chunks(session: Session, run_id: int, older_than: datetime) -> list[JobChunk]:
    """Chunks still queued since before ``older_than``: their task was lost between commit and send."""
    return list(
        session.scalars(
            select(JobChunk)
            .where(JobChunk.run_id == run_id, JobChunk.state == QUEUED, JobChunk.created_at < older_than)
            .order_by(JobChunk.seq)
        )
    )


def lock_chunk(session: Session, chunk_id: int) -> JobChunk | None:
    return session.get(JobChunk, chunk_id, with_for_update=True, populate_existing=True)


def chunk_users(session: Session, chunk: JobChunk, zones: Sequence[str]) -> list[tuple[str, str]]:
    """The chunk's users that still exist, with their zone now (a user who moved zone since is planned by
    the slot of their new zone, or by this one: the request id keeps it to one request a period)."""
    query = (
        select(User.id, User.timezone)
        .where(User.id > chunk.after_user, User.id <= chunk.through_user, User.timezone.in_(list(zones)))
        .order_by(User.id)
    )
    return [(uid, tz) for uid, tz in session.execute(query)]


def close_chunk(
    session: Session, run_id: int, chunk: JobChunk, *, requests: int, idle: int, failed: int, error: str | None = None
) -> None:
    """Mark the chunk done (or failed) and add its counts to the run, in the caller's transaction."""
    chunk.state = CHUNK_FAILED if error else CHUNK_DONE
    chunk.requests, chunk.idle, chunk.failed, chunk.error = requests, idle, failed, error
    chunk.done_at = utcnow()
    run = lock_run(session, run_id)
    run.chunks_done += 1
    run.users_done += chunk.users
    run.requests += requests
    run.idle += idle
    run.failed += failed
    run.updated_at = utcnow()
    _maybe_done(run)


# --- marks -----------------------------------------------------------------------------------------------------


def marks(session: Session, job: str, user_ids: Sequence[str]) -> dict[str, datetime]:
    """user id -> when the last request of ``job`` was queued for them (absent: never)."""
    rows = session.execute(
        select(JobMark.user_id, JobMark.requested_at).where(JobMark.job == job, JobMark.user_id.in_(list(user_ids)))
    )
    return {uid: at for uid, at in rows}


def set_marks(session: Session, job: str, periods: dict[str, str], at: datetime) -> None:
    """Record that ``job`` queued a request for each user (user id -> period label) at ``at``."""
    if not periods:
        return
    rows = [{"user_id": uid, "job": job, "period": label, "requested_at": at} for uid, label in periods.items()]
    stmt = dialect_insert(session)(JobMark).values(rows)
    latest = {"period": stmt.excluded.period, "requested_at": stmt.excluded.requested_at}
    stmt = stmt.on_conflict_do_update(index_elements=["user_id", "job"], set_=latest)
    session.execute(stmt)


# --- operators -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Progress:
    """A run as ``ella jobs`` shows it: done/total, the rate so far and the time left at that rate."""

    run: JobRun
    rate_per_s: float
    remaining_s: float | None


def progress(run: JobRun, now: datetime) -> Progress:
    elapsed = max(((run.finished_at or now) - run.started_at).total_seconds(), 1e-3)  # a finished run's own pace
    rate = run.users_done / elapsed
    left = run.users_total - run.users_done
    remaining = None if run.state == DONE else (left / rate if rate > 0 else None)
    return Progress(run, rate, remaining)


def recent_runs(session: Session, limit: int = 20, job: str | None = None) -> list[JobRun]:
    query = select(JobRun).order_by(JobRun.started_at.desc(), JobRun.id.desc()).limit(limit)
    if job is not None:
        query = query.where(JobRun.job == job)
    return list(session.scalars(query))


# --- erasure: chunk bounds and cursors are user ids ---------------------------------------------------------------


def _predecessor(session: Session, user_id: str) -> str:
    """The greatest user id below ``user_id`` (the user's row is gone by now), or "" if none: as a keyset
    bound it selects exactly the users ``user_id`` did, so a resumed run or a redelivered chunk is unchanged."""
    return session.scalar(select(func.max(User.id)).where(User.id < user_id)) or ""


@register_table("job_chunks")
def _erase_chunk_bounds(session: Session, user_id: str) -> int:
    stand_in = _predecessor(session, user_id)
    count = 0
    for column in (JobChunk.after_user, JobChunk.through_user):
        result = session.execute(update(JobChunk).where(column == user_id).values({column.key: stand_in}))
        count += int(getattr(result, "rowcount", 0) or 0)
    return count


@register_table("job_runs")
def _erase_run_cursor(session: Session, user_id: str) -> int:
    stand_in = _predecessor(session, user_id)
    result = session.execute(update(JobRun).where(JobRun.cursor == user_id).values(cursor=stand_in))
    return int(getattr(result, "rowcount", 0) or 0)

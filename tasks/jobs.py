"""The fan-out of the proactive jobs (digest, chapters, arcs): a planner on beat, then one task per chunk.

Why this shape, and not a per-user cron or a giant chord: at 100,000 users the work must survive a crash, a
redelivery and a second beat, and cost nothing for an idle user. So:

* Beat runs ``ella.plan_jobs`` every few minutes. For each job it opens a run per UTC hour slot not yet
  planned (``ella.jobs.slots_to_plan``; a beat that was down catches up within a bound). A run plans the users
  whose local trigger falls in its slot (``ella.jobs.due_zones``): the digest at 07:00 on their own clock.
* A run pages those users by keyset, ids only, and writes each page as a chunk row and advances its cursor in
  one transaction, *then* sends the chunk's task. A planner that dies resumes from the cursor; two planners
  lock the run row and page it in turn; a chunk row whose task was lost is sent again later.
* A chunk task hands its due users to the job's planner (``ella.jobs.register_job_planner``), queues the
  requests it returns through the Batches service under their stable ids, records the users' marks and closes
  the chunk, all in one transaction: a redelivered chunk finds itself closed and does nothing, and a request
  id already queued is never queued again. One user whose planning fails is dead-lettered, not the chunk.

The Batches service (``adapters/model_batches.py``) submits and applies; beat's flush and poll drive it.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
from sqlalchemy.orm import Session

from adapters import metrics
from adapters.db import session_scope
from adapters.dead_letters import record_dead_letter
from adapters.model_batches import submit
from adapters.settings import get_settings
from ella.jobs import (
    USER_FAILED_TASK,
    ChunkPlan,
    Job,
    JobPlanner,
    Member,
    due_zones,
    planner_for,
    slot_from_label,
    slot_label,
    slots_to_plan,
    trigger_in_slot,
    zone_of,
)
from ella.llm.types import TransientModelError
from models import runs
from models.base import utcnow
from workers.app import app
from workers.reliability import TRANSIENT_ERRORS, ReliableTask
from workers.routing import TaskName, queue_for

log = logging.getLogger(__name__)

CHUNK_FAILED_TASK = USER_FAILED_TASK

# Send a chunk's task (after its row committed): Celery normally; the CLI and the benchmark run it in-process.
ChunkSender = Callable[[int, str, str], None]


def _now(at: str) -> datetime:
    return datetime.fromisoformat(at).astimezone(UTC) if at else utcnow()


def _send_chunk(chunk_id: int, job: str, period: str) -> None:
    run_job_chunk.apply_async(
        kwargs={"chunk_id": chunk_id, "job": job, "period": period},
        queue=queue_for(TaskName.RUN_JOB_CHUNK, get_settings()),
    )


def open_runs(job: Job, now: datetime) -> list[str]:
    """Open the runs of every slot of ``job`` not yet planned, up to now; return their slot labels."""
    settings = get_settings()
    with session_scope() as session:
        last = runs.last_period(session, job)
        slots = slots_to_plan(slot_from_label(last) if last else None, now, timedelta(hours=settings.job_catch_up_h))
        if not slots:
            return []
        zones = runs.user_zones(session)
        for slot in slots:
            due = due_zones(job, zones, slot)
            runs.open_run(session, job, slot_label(slot), {zone: period.label for zone, period in due.items()})
    return [slot_label(slot) for slot in slots]


def page_run(run_id: int, send: ChunkSender = _send_chunk) -> int:
    """Page one run's users into chunks until it is planned; return the chunks this call added.

    Each page is one transaction (chunk row + cursor) under the run's lock, and its task is sent after the
    commit: a crash between the two leaves a queued chunk that ``resend_stale_chunks`` sends again.
    """
    size = get_settings().job_chunk_size
    added = 0
    while True:
        with session_scope() as session:
            run = runs.lock_run(session, run_id)
            if run.state != runs.PLANNING:
                return added
            zones = sorted(run.due_zones)
            ids = runs.page_users(session, zones, run.cursor, size) if zones else []
            if not ids:
                runs.finish_planning(session, run)
                return added
            chunk = runs.add_chunk(session, run, ids)
            chunk_id, job, period = chunk.id, run.job, run.period
        send(chunk_id, job, period)
        added += 1


def resend_stale_chunks(run_id: int, now: datetime, send: ChunkSender = _send_chunk) -> int:
    """Send again the chunks of a run still queued long after their row was written (their task was lost).

    "Long" is past the broker's visibility timeout: by then a task that was sent and not acknowledged has been
    redelivered, so a chunk still queued was never sent or was dead-lettered. A duplicate is harmless: the
    chunk is closed under lock and a second task finds it closed.
    """
    before = now - timedelta(seconds=get_settings().visibility_timeout_s * 2)
    with session_scope() as session:
        run = session.get_one(runs.JobRun, run_id)
        stale = [(c.id, run.job, run.period) for c in runs.stale_chunks(session, run_id, before)]
    for chunk_id, job, period in stale:
        log.warning("job chunk %d of %s %s was never run; sending it again", chunk_id, job, period)
        send(chunk_id, job, period)
    return len(stale)


def plan(job: Job, now: datetime, send: ChunkSender = _send_chunk) -> dict[str, int]:
    """One planner pass for ``job``: open the due slots' runs, page every unfinished run, resend lost chunks."""
    opened = open_runs(job, now)
    totals: Counter[str] = Counter(runs_opened=len(opened))
    with session_scope() as session:
        unfinished = [(run.id, run.state) for run in runs.unfinished_runs(session, job)]
    for run_id, state in unfinished:
        if state == runs.PLANNING:
            totals["chunks"] += page_run(run_id, send)
        totals["resent"] += resend_stale_chunks(run_id, now, send)
    return dict(totals)


# --- one chunk ----------------------------------------------------------------------------------------------------


def _members(job: Job, run: runs.JobRun, users: list[tuple[str, str]]) -> list[Member]:
    slot = slot_from_label(run.period)
    members = []
    for user_id, zone in users:
        period = trigger_in_slot(job, zone_of(zone), slot)
        if period is not None:  # the zone is due in this slot, so it has one; defensive against a moved user
            members.append(Member(user_id, zone, period))
    return members


def _queue(session: Session, job: Job, members: list[Member], chunk_plan: ChunkPlan, now: datetime) -> int:
    """Queue the plan's requests in the chunk's transaction and mark the users who got one."""
    queued = set(submit(job.value, chunk_plan.requests, session=session)) if chunk_plan.requests else set()
    period_of_user = {m.user_id: m.period.label for m in members}
    marked = {
        item.user_id: period_of_user[item.user_id]
        for item in chunk_plan.requests
        if item.custom_id in queued and item.user_id in period_of_user
    }
    runs.set_marks(session, job, marked, now)
    return len(queued)


def _plan_one_by_one(
    session: Session, job: Job, planner: JobPlanner, members: list[Member], now: datetime
) -> tuple[int, int, list[tuple[str, str]]]:
    """The chunk's planner failed: plan each user alone, in a savepoint, so one bad user fails alone."""
    requests = idle = 0
    failures: list[tuple[str, str]] = []
    for member in members:
        try:
            with session.begin_nested():
                one = planner(session, [member], now)
                requests += _queue(session, job, [member], one, now)
                idle += one.idle
        except (TransientModelError, SoftTimeLimitExceeded, *TRANSIENT_ERRORS):
            raise
        except Exception as exc:
            log.exception("%s planning failed for user %s", job.value, member.user_id)
            failures.append((member.user_id, f"{type(exc).__name__}: {exc}"))
    return requests, idle, failures


def run_chunk(chunk_id: int, now: datetime, task_id: str | None = None) -> dict[str, int]:
    """Plan one chunk: requests for its due users, queued once; closed in the same transaction."""
    failures: list[tuple[str, str]] = []
    job_name = ""
    with session_scope() as session:
        chunk = runs.lock_chunk(session, chunk_id)
        if chunk is None or chunk.state != runs.QUEUED:
            return {"already_run": 1}
        run = session.get_one(runs.JobRun, chunk.run_id)
        job = Job(run.job)
        job_name = job.value
        planner = planner_for(job)
        if planner is None:
            raise RuntimeError(f"no planner is registered for job {job.value!r} in this worker")
        members = _members(job, run, runs.chunk_users(session, chunk, sorted(run.due_zones)))
        skipped: Counter[str] = Counter()
        try:
            with session.begin_nested():
                chunk_plan = planner(session, members, now)
                requests = _queue(session, job, members, chunk_plan, now)
                idle = chunk_plan.idle
                skipped = chunk_plan.skipped
        except (TransientModelError, SoftTimeLimitExceeded, *TRANSIENT_ERRORS):
            raise
        except Exception:
            log.exception(
                "job chunk %d (%s %s) failed as a whole; planning its users one by one", chunk_id, job, run.period
            )
            requests, idle, failures = _plan_one_by_one(session, job, planner, members, now)
        runs.close_chunk(session, run.id, chunk, requests=requests, idle=idle, failed=len(failures))
    for user_id, reason in failures:
        record_dead_letter(
            CHUNK_FAILED_TASK, task_id, f"{job_name} planning failed for user {user_id}: {reason}", [],
            {"user_id": user_id, "job": job_name, "chunk_id": chunk_id},
        )  # fmt: skip
    metrics.job_chunk(job_name, len(members), len(failures))
    return {"users": len(members), "requests": requests, "idle": idle, "failed": len(failures), **skipped}


def run_inline(job: Job, now: datetime, on_chunk: Callable[[dict[str, int]], None] | None = None) -> dict[str, int]:
    """The whole pass in this process, chunk after chunk (``ella jobs run``, the benchmark, the demo)."""
    totals: Counter[str] = Counter()

    def send(chunk_id: int, _job: str, _period: str) -> None:
        counts = run_chunk(chunk_id, now)
        totals.update(counts)
        if on_chunk is not None:
            on_chunk(counts)

    totals.update(plan(job, now, send))
    return dict(totals)


# --- the tasks --------------------------------------------------------------------------------------------------------


@app.task(name=TaskName.PLAN_JOBS, base=ReliableTask, bind=True)
def plan_jobs(self: ReliableTask, at: str = "", jobs: list[str] | None = None) -> dict[str, Any]:
    """Beat's planner: each job's due slots opened and paged into chunk tasks (idempotent, resumable)."""
    now = _now(at)
    report: dict[str, Any] = {}
    for name in jobs or [job.value for job in Job]:
        report[name] = plan(Job(name), now)
    log.info("planned the proactive jobs at %s: %s", now.isoformat(), report)
    return report


@app.task(name=TaskName.RUN_JOB_CHUNK, base=ReliableTask, bind=True)
def run_job_chunk(self: ReliableTask, chunk_id: int, job: str = "", period: str = "", at: str = "") -> dict[str, int]:
    """One chunk of a run (``job`` and ``period`` are for Flower and the logs; the row says what to do)."""
    return run_chunk(chunk_id, _now(at), task_id=self.request.id)

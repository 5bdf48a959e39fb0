"""The calendar of the proactive jobs: who is due when, for which period, under which request id.

Why plain functions: "daily" and "weekly" follow each user's time zone, and the rules that decide it (a local
hour skipped or repeated by a clock change, a user in UTC+13, a week that ends on a Sunday evening) are tested
here with no database, worker or clock.

The planner (``tasks/jobs.py``) works in UTC hour slots. A slot plans every user whose local trigger moment
(for example 07:00 on their own calendar) falls inside it, for the period that moment opens (their local day)
or closes (their ISO week, their month). Each local trigger falls in exactly one slot, even across a clock
change, so a user is planned once per period; the request's ``custom_id`` (``request_id``) makes a second
plan of the same user and period a no-op anyway.

A job plugs in with ``register_job_planner``: given a chunk of due users, it says which requests to queue
and how many users had nothing new (an idle user costs no request).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from enum import StrEnum
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ella.llm.batches import NewBatchItem

SLOT = timedelta(hours=1)
USER_FAILED_TASK = "ella.job_user"  # the dead-letter row's task name for one user a chunk could not plan


class Job(StrEnum):
    DIGEST = "digest"
    CHAPTERS = "chapters"
    ARCS = "arcs"


@dataclass(frozen=True)
class Cadence:
    """When a job triggers on a user's own calendar: at ``local_hour``, on ``weekday`` (0 = Monday) or
    ``month_day`` when given, else every day."""

    local_hour: int
    weekday: int | None = None
    month_day: int | None = None

    def matches(self, day: date) -> bool:
        if self.weekday is not None and day.weekday() != self.weekday:
            return False
        return self.month_day is None or day.day == self.month_day


# The digest at 07:00 opens the user's day; the chapter on Monday 03:00 closes their week; the arc on the 2nd
# at 04:00 closes the month before. Early hours: the results are back (within the day, at batch prices) before
# the user's active hours. The arc waits a day past the month's end because a week that ends on the 1st has its
# chapter queued at 03:00 that morning, and a batch may take up to 24 hours to answer.
CADENCES: dict[Job, Cadence] = {
    Job.DIGEST: Cadence(local_hour=7),
    Job.CHAPTERS: Cadence(local_hour=3, weekday=0),
    Job.ARCS: Cadence(local_hour=4, month_day=2),
}

_ID_PREFIX = {Job.DIGEST: "dg", Job.CHAPTERS: "ch", Job.ARCS: "arc"}


@dataclass(frozen=True)
class Period:
    """What one run of a job covers for one user: a label (``2026-11-30``, ``2026-W48``, ``2026-10``) and its
    bounds in UTC. The digest's period is the local day its trigger opens; a chapter's and an arc's is the
    local week or month their trigger closes."""

    label: str
    start: datetime
    end: datetime


@dataclass(frozen=True)
class Member:
    """A due user, as a job's planner receives them: id, time zone and the period to plan."""

    user_id: str
    zone: str
    period: Period


@dataclass
class ChunkPlan:
    """What a job's planner decided for one chunk: the requests to queue, the users with nothing new (no
    request, no cost), and counts of anything else worth showing an operator (``skipped``)."""

    requests: list[NewBatchItem] = field(default_factory=list)
    idle: int = 0
    skipped: Counter[str] = field(default_factory=Counter)


# ``fn(session, members, now) -> ChunkPlan``: loads in ``session`` (the chunk's transaction) and writes nothing;
# the runner queues the requests in that same transaction. Typed loosely: this module knows no SQLAlchemy.
JobPlanner = Callable[[Any, list[Member], datetime], ChunkPlan]
_PLANNERS: dict[str, JobPlanner] = {}


def register_job_planner(job: Job, fn: JobPlanner) -> JobPlanner:
    """Make ``fn`` plan ``job``'s chunks; a job's task module registers it on import."""
    existing = _PLANNERS.get(job)
    if existing is not None and existing is not fn:
        raise ValueError(f"job {job!r} already has a planner: {existing!r}")
    _PLANNERS[job] = fn
    return fn


def planner_for(job: str) -> JobPlanner | None:
    return _PLANNERS.get(job)


def zone_of(name: str) -> ZoneInfo:
    """The user's zone; an unknown name (the profile checks it, but old rows predate that) is UTC."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def slot_of(moment: datetime) -> datetime:
    """The UTC hour slot that holds ``moment``."""
    return moment.astimezone(UTC).replace(minute=0, second=0, microsecond=0)


def slot_label(slot: datetime) -> str:
    return slot.astimezone(UTC).strftime("%Y-%m-%dT%HZ")


def slot_from_label(label: str) -> datetime:
    return datetime.strptime(label, "%Y-%m-%dT%HZ").replace(tzinfo=UTC)


def _local_midnight(day: date, zone: ZoneInfo) -> datetime:
    return datetime.combine(day, time(0), tzinfo=zone).astimezone(UTC)


def period_of(job: Job, trigger_day: date, zone: ZoneInfo) -> Period:
    """The period a trigger on ``trigger_day`` (local) plans: that day; the ISO week before; the month before."""
    if job is Job.DIGEST:
        start, end = trigger_day, trigger_day + timedelta(days=1)
        label = trigger_day.isoformat()
    elif job is Job.CHAPTERS:
        end = trigger_day - timedelta(days=trigger_day.weekday())
        start = end - timedelta(days=7)
        year, week, _ = start.isocalendar()
        label = f"{year}-W{week:02d}"
    else:
        end = trigger_day.replace(day=1)
        start = (end - timedelta(days=1)).replace(day=1)
        label = f"{start.year}-{start.month:02d}"
    return Period(label, _local_midnight(start, zone), _local_midnight(end, zone))


def trigger_in_slot(job: Job, zone: ZoneInfo, slot: datetime) -> Period | None:
    """The period whose local trigger moment falls in ``[slot, slot + 1 h)``, if any.

    The trigger is read as a wall-clock time with ``fold=0``: in a clock change's gap (02:30 that never
    happens) it lands just after the gap, in a repeated hour on its first pass; either way it is one instant,
    so one slot, so the user is planned once.
    """
    cadence = CADENCES[job]
    first = slot.astimezone(zone).date()
    for day in (first - timedelta(days=1), first, first + timedelta(days=1)):
        if not cadence.matches(day):
            continue
        trigger = datetime.combine(day, time(cadence.local_hour), tzinfo=zone).astimezone(UTC)
        if slot <= trigger < slot + SLOT:
            return period_of(job, day, zone)
    return None


def due_zones(job: Job, zones: Iterable[str], slot: datetime) -> dict[str, Period]:
    """Of the time zones users have, those whose trigger falls in ``slot``, each with the period it plans."""
    due: dict[str, Period] = {}
    for name in zones:
        period = trigger_in_slot(job, zone_of(name), slot)
        if period is not None:
            due[name] = period
    return due


def slots_to_plan(last_planned: datetime | None, now: datetime, catch_up: timedelta) -> list[datetime]:
    """The slots a planner tick opens: every slot after the last one planned, up to the one holding ``now``.

    A beat that was down for a while catches up, but never by more than ``catch_up`` (a digest about a day
    long gone is not worth sending); a first tick ever plans only the current slot.
    """
    current = slot_of(now)
    if last_planned is None:
        return [current]
    start = max(slot_of(last_planned) + SLOT, current - catch_up)
    slots = []
    while start <= current:
        slots.append(start)
        start += SLOT
    return slots


def request_id(job: Job, user_id: str, period: Period) -> str:
    """The stable ``custom_id`` of one user's request for one period: the idempotency key of the whole job.

    The user id is hashed: the API allows only ``[a-zA-Z0-9_-]`` and 64 characters, a gateway's ids may hold
    anything, and a provider's batch listing should not name users.
    """
    digest = hashlib.sha256(user_id.encode()).hexdigest()[:24]
    return f"{_ID_PREFIX[job]}-{digest}-{period.label.replace('-', '')}"

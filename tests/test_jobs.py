"""The proactive jobs' calendar and fan-out: local time zones, runs that resume, chunks that run once.

What is pinned: each user's digest triggers once per local day (clock changes included) and each chapter once
per ISO week, arc once per month; a planner that crashes mid-run resumes from its cursor and sends the chunks
it lost; two planners at once, a redelivered chunk and a rerun never queue a user twice for one period; one
user whose planning fails is dead-lettered and the others are planned; idle users cost no request.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import func, select

from adapters.db import session_scope
from ella import jobs
from ella.jobs import Job, Period, request_id
from ella.llm.batches import CUSTOM_ID
from models import DeadLetter, ModelBatchItem, User
from models import runs as run_store
from models.base import utcnow
from tasks import jobs as job_tasks
from tests.support.job_planner import SLOT_NOW, add_users

ZONES = ["UTC", "Europe/London", "America/New_York", "America/Los_Angeles", "Pacific/Auckland", "Asia/Kolkata",
         "Pacific/Kiritimati", "Pacific/Pago_Pago", "Australia/Lord_Howe", "America/St_Johns"]  # fmt: skip


def hours(start: datetime, days: int) -> list[datetime]:
    return [start + timedelta(hours=h) for h in range(days * 24)]


# --- the calendar (plain) ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("zone", ZONES)
def test_a_digest_triggers_once_per_local_day_across_a_year_of_clock_changes(zone):
    tz = ZoneInfo(zone)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    labels = [p.label for slot in hours(start, 400) if (p := jobs.trigger_in_slot(Job.DIGEST, tz, slot))]
    assert len(labels) == len(set(labels)), "a local day planned twice"
    days = [date.fromisoformat(label) for label in labels]
    assert all((b - a).days == 1 for a, b in zip(days, days[1:], strict=False)), "a local day skipped"
    assert len(days) >= 399


@pytest.mark.parametrize("zone", ZONES)
def test_a_chapter_triggers_once_per_local_week_and_an_arc_once_per_month(zone):
    tz = ZoneInfo(zone)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    weeks = [p for slot in hours(start, 365) if (p := jobs.trigger_in_slot(Job.CHAPTERS, tz, slot))]
    months = [p for slot in hours(start, 365) if (p := jobs.trigger_in_slot(Job.ARCS, tz, slot))]
    assert len({p.label for p in weeks}) == len(weeks) in (51, 52, 53)
    assert len({p.label for p in months}) == len(months) == 12
    for week in weeks:  # a week is the seven local days before the Monday trigger
        local_start = week.start.astimezone(tz)
        assert local_start.weekday() == 0 and local_start.hour == 0
        assert week.label == f"{local_start.isocalendar()[0]}-W{local_start.isocalendar()[1]:02d}"
    for month in months:  # a month is the local calendar month before the trigger on the 1st
        local_start, local_end = month.start.astimezone(tz), month.end.astimezone(tz)
        assert (local_start.day, local_start.hour, local_end.day, local_end.hour) == (1, 0, 1, 0)
        assert month.label == f"{local_start.year}-{local_start.month:02d}"


def test_the_digest_follows_the_users_own_morning_not_utcs():
    slot = datetime(2026, 11, 30, 18, tzinfo=UTC)  # 07:00 on 1 December in Auckland (UTC+13)
    due = jobs.due_zones(Job.DIGEST, ["Pacific/Auckland", "UTC", "America/Los_Angeles"], slot)
    assert set(due) == {"Pacific/Auckland"}
    period = due["Pacific/Auckland"]
    assert period.label == "2026-12-01"
    assert period.start == datetime(2026, 11, 30, 11, tzinfo=UTC)  # local midnight
    assert period.end - period.start == timedelta(days=1)
    assert set(jobs.due_zones(Job.DIGEST, ["UTC"], datetime(2026, 11, 30, 7, tzinfo=UTC))) == {"UTC"}
    assert jobs.due_zones(Job.DIGEST, ["America/Los_Angeles"], datetime(2026, 11, 30, 15, tzinfo=UTC))


def test_an_unknown_zone_is_planned_as_utc_rather_than_never():
    assert jobs.due_zones(Job.DIGEST, ["Mars/Olympus"], datetime(2026, 11, 30, 7, tzinfo=UTC))


def test_a_stopped_beat_catches_up_its_missed_slots_within_a_bound():
    now = datetime(2026, 11, 30, 19, 40, tzinfo=UTC)
    assert jobs.slots_to_plan(None, now, timedelta(hours=36)) == [datetime(2026, 11, 30, 19, tzinfo=UTC)]
    assert jobs.slots_to_plan(datetime(2026, 11, 30, 19, tzinfo=UTC), now, timedelta(hours=36)) == []
    missed = jobs.slots_to_plan(datetime(2026, 11, 30, 15, tzinfo=UTC), now, timedelta(hours=36))
    assert [s.hour for s in missed] == [16, 17, 18, 19]
    long_ago = jobs.slots_to_plan(datetime(2026, 11, 1, tzinfo=UTC), now, timedelta(hours=36))
    assert len(long_ago) == 37 and long_ago[0] == datetime(2026, 11, 29, 7, tzinfo=UTC)


def test_request_ids_are_stable_valid_for_the_api_and_name_no_user():
    period = Period("2026-11-30", datetime(2026, 11, 30, tzinfo=UTC), datetime(2026, 12, 1, tzinfo=UTC))
    odd = "ütf 8 · user/with:odd chars " * 10
    first = request_id(Job.DIGEST, odd, period)
    assert first == request_id(Job.DIGEST, odd, period)
    assert CUSTOM_ID.match(first) and "ütf" not in first
    assert first != request_id(Job.DIGEST, odd + "x", period)
    assert first != request_id(Job.CHAPTERS, odd, period)


# --- the fan-out (SQLite and PostgreSQL) ------------------------------------------------------------------------


def queued() -> Counter[str]:
    with session_scope() as s:
        return Counter(s.scalars(select(ModelBatchItem.user_id)))


def the_run() -> run_store.JobRun:
    with session_scope() as s:
        run = s.scalars(select(run_store.JobRun).where(run_store.JobRun.job == "digest")).one()
        s.expunge(run)
        return run


def test_a_run_plans_the_due_zones_users_once_and_idle_users_cost_no_request(migrated_db, planner):
    ids = add_users(30)
    add_users(5, zone="America/Los_Angeles", prefix="la")  # 23:10 there: not due
    report = job_tasks.run_inline(Job.DIGEST, SLOT_NOW)
    assert report["requests"] == 15 and report["idle"] == 15 and report["users"] == 30
    assert queued() == Counter({uid: 1 for uid in ids if int(uid[-1]) % 2 == 0})
    run = the_run()
    assert run.state == run_store.DONE and run.period == "2026-11-30T07Z"
    assert (run.users_total, run.users_done, run.chunks_total, run.chunks_done) == (30, 30, 5, 5)
    assert (run.requests, run.idle, run.failed) == (15, 15, 0)
    with session_scope() as s:
        marks = run_store.marks(s, "digest", ids)
    assert set(marks) == {uid for uid in ids if int(uid[-1]) % 2 == 0}  # only who got a request is marked

    again = job_tasks.run_inline(Job.DIGEST, SLOT_NOW + timedelta(minutes=5))
    assert again.get("requests", 0) == 0 and sum(queued().values()) == 15  # the slot is planned already


def test_a_planner_that_crashes_mid_run_resumes_from_its_cursor_and_sends_the_chunks_it_lost(migrated_db, planner):
    ids = add_users(40)
    sent: list[int] = []

    def crashing_send(chunk_id: int, job: str, period: str) -> None:
        if len(sent) == 2:
            raise SystemExit("worker killed after the third chunk's row committed")
        sent.append(chunk_id)
        job_tasks.run_chunk(chunk_id, SLOT_NOW)

    with pytest.raises(SystemExit):
        job_tasks.plan(Job.DIGEST, SLOT_NOW, crashing_send)
    run = the_run()
    assert run.state == run_store.PLANNING and run.chunks_total == 3 and run.cursor == ids[20]

    def send(chunk_id: int, job: str, period: str) -> None:
        job_tasks.run_chunk(chunk_id, SLOT_NOW)

    job_tasks.plan(Job.DIGEST, SLOT_NOW + timedelta(minutes=5), send)  # resumes the paging
    run = the_run()
    assert run.state == run_store.PLANNED and run.chunks_done == run.chunks_total - 1  # the lost one
    # Past twice the visibility timeout (rows are stamped with the real clock), the lost chunk is sent again.
    assert job_tasks.resend_stale_chunks(run.id, utcnow() + timedelta(hours=1), send) == 1
    run = the_run()
    assert run.state == run_store.DONE and run.users_done == 40 and run.requests == 20
    assert queued() == Counter({uid: 1 for uid in ids if int(uid[-1]) % 2 == 0})
    assert max(planner.seen.values()) == 1  # no user was even looked at twice


def test_two_planners_at_once_page_disjoint_chunks_and_queue_each_user_once(migrated_db, planner):
    ids = add_users(120)
    errors: list[BaseException] = []

    def send(chunk_id: int, job: str, period: str) -> None:
        job_tasks.run_chunk(chunk_id, SLOT_NOW)

    def one_planner() -> None:
        try:
            job_tasks.plan(Job.DIGEST, SLOT_NOW, send)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=one_planner) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert errors == []
    assert queued() == Counter({uid: 1 for uid in ids if int(uid[-1]) % 2 == 0})
    run = the_run()
    assert run.state == run_store.DONE and run.users_done == 120 and run.chunks_done == run.chunks_total
    with session_scope() as s:
        seqs = s.scalars(select(run_store.JobChunk.seq).where(run_store.JobChunk.run_id == run.id)).all()
    assert sorted(seqs) == list(range(len(seqs)))


def test_a_redelivered_chunk_queues_nothing_twice(migrated_db, planner):
    add_users(10)
    chunk_ids: list[int] = []
    job_tasks.plan(Job.DIGEST, SLOT_NOW, lambda chunk_id, job, period: chunk_ids.append(chunk_id))
    first = job_tasks.run_chunk(chunk_ids[0], SLOT_NOW)
    assert first["requests"] == 4
    assert job_tasks.run_chunk(chunk_ids[0], SLOT_NOW) == {"already_run": 1}
    assert sum(queued().values()) == 4


def test_one_bad_user_is_dead_lettered_and_the_rest_of_the_chunk_is_planned(migrated_db, planner):
    ids = add_users(7)
    planner.fail_for = {ids[2]}
    report = job_tasks.run_inline(Job.DIGEST, SLOT_NOW)
    assert report["failed"] == 1 and report["requests"] == 3  # u00000, u00004, u00006; u00002 failed
    assert set(queued()) == {ids[0], ids[4], ids[6]}
    with session_scope() as s:
        letters = s.scalars(select(DeadLetter)).all()
        assert s.scalar(select(func.count()).select_from(run_store.JobChunk)) == 1
    assert len(letters) == 1 and ids[2] in letters[0].reason and "bad row" in letters[0].reason
    assert the_run().failed == 1 and the_run().state == run_store.DONE


def test_forgetting_a_user_keeps_the_chunk_bounds_selecting_the_same_users(migrated_db, planner):
    from models.erasure import erase_user_rows

    ids = add_users(10)
    chunk_ids: list[int] = []
    job_tasks.plan(Job.DIGEST, SLOT_NOW, lambda chunk_id, job, period: chunk_ids.append(chunk_id))
    with session_scope() as s:
        bounds = [(c.after_user, c.through_user) for c in s.scalars(select(run_store.JobChunk).order_by("seq"))]
    assert bounds == [("", ids[6]), (ids[6], ids[9])]
    with session_scope() as s:
        erase_user_rows(s, ids[6])
    with session_scope() as s:
        bounds = [(c.after_user, c.through_user) for c in s.scalars(select(run_store.JobChunk).order_by("seq"))]
    assert bounds == [("", ids[5]), (ids[5], ids[9])]
    for chunk_id in chunk_ids:
        job_tasks.run_chunk(chunk_id, SLOT_NOW)
    assert set(queued()) == {uid for uid in ids if int(uid[-1]) % 2 == 0 and uid != ids[6]}


@pytest.mark.integration
def test_beats_planner_fans_out_into_chunk_tasks_in_a_real_worker_and_the_digest_lands(start_worker, monkeypatch):
    """``ella.plan_jobs`` and ``ella.run_job_chunk`` in a real worker (chunks of 4): the active users' digest
    requests queued once, the idle users' not at all, and the offline flush turns them into candidates."""
    from tests.test_digest import add_fact, make_user
    from workers.app import app

    now = utcnow()
    offset = (7 - now.hour) % 24
    offset = offset - 24 if offset > 14 else offset
    zone = f"Etc/GMT{-offset:+d}" if offset else "UTC"  # where it is 07:xx now (POSIX signs: Etc/GMT-3 is UTC+3)
    active = [make_user() for _ in range(5)]
    idle = [make_user() for _ in range(6)]
    with session_scope() as s:
        for uid in active + idle:
            s.get_one(User, uid).timezone = zone
    for uid in active:
        add_fact(uid, recorded=now - timedelta(hours=2))

    start_worker(env={"ELLA_JOB_CHUNK_SIZE": "4"})
    app.send_task("ella.plan_jobs", kwargs={"jobs": ["digest"]})

    def run_done() -> run_store.JobRun | None:
        with session_scope() as s:
            run = s.scalars(select(run_store.JobRun).where(run_store.JobRun.state == run_store.DONE,
                                                           run_store.JobRun.users_total > 0)).one_or_none()  # fmt: skip
            if run is not None:
                s.expunge(run)
            return run

    from tests.conftest import wait_for

    run = wait_for(run_done, 60, what="the digest run to be planned and its chunks run")
    assert isinstance(run, run_store.JobRun)
    assert (run.users_total, run.chunks_total, run.requests, run.idle) == (11, 3, 5, 6)
    assert queued() == Counter({uid: 1 for uid in active})
    app.send_task("ella.flush_model_batches")

    def candidates() -> set[str]:
        from models import NotificationCandidate

        with session_scope() as s:
            return set(s.scalars(select(NotificationCandidate.user_id).where(NotificationCandidate.kind == "digest")))

    assert wait_for(lambda: candidates() == set(active), 60, what="one digest candidate per active user")
    app.send_task("ella.plan_jobs", kwargs={"jobs": ["digest"]})  # a second beat tick in the same hour
    time.sleep(2)  # not a timed assertion: what a second tick could wrongly queue would be queued by now
    assert queued() == Counter({uid: 1 for uid in active})


def test_each_job_asks_its_seed_tier_configured_in_settings_and_never_a_deprecated_model():
    """The addendum's tiers: the digest and contested resolution on the small model, the distillation (chapters
    and arcs) on the top one; model ids come from settings, and none is past its end of life."""
    from adapters.settings import Settings
    from ella.llm.kinds import KINDS

    job_kinds = ("digest", "contested_verdict", "chapter_distillation", "relationship_arc")
    assert {kind: KINDS[kind].tier for kind in job_kinds} == {
        "digest": "digest", "contested_verdict": "contested_resolve", "chapter_distillation": "narrative_distill",
        "relationship_arc": "narrative_distill",
    }  # fmt: skip
    settings = Settings()
    tiers = settings.model_tiers
    assert "haiku" in tiers["digest"] and "haiku" in tiers["contested_resolve"]
    assert "sonnet" in tiers["narrative_distill"] and tiers["narrative_distill"] != "claude-sonnet-4-5"
    assert settings.deprecated_models() == {}
    assert Settings(model_digest="claude-3-5-haiku-latest").model_tiers["digest"] == "claude-3-5-haiku-latest"


def test_digest_requests_that_error_or_expire_are_resubmitted_then_given_up_through_the_batches_api(
    migrated_db, monkeypatch
):
    """The digest through the loopback Message Batches server: an errored request is sent again and applied on
    its second submission; one that keeps expiring is given up after ``batch_max_submissions`` and
    dead-lettered under the digest purpose; the answered ones become candidates once."""
    import json
    import re

    import tasks.digest  # noqa: F401  (the digest's planner and handler)
    from adapters import model_batches
    from adapters.settings import Settings
    from ella.llm.anthropic_provider import AnthropicProvider
    from ella.llm.port import ModelPort
    from models import NotificationCandidate
    from tests.support.fake_anthropic import FakeAnthropic
    from tests.test_digest import add_fact, make_user

    now = utcnow()
    offset = (7 - now.hour) % 24
    offset = offset - 24 if offset > 14 else offset
    zone = f"Etc/GMT{-offset:+d}" if offset else "UTC"
    users = [make_user() for _ in range(3)]
    with session_scope() as s:
        for uid in users:
            s.get_one(User, uid).timezone = zone
    for uid in users:
        add_fact(uid, recorded=now - timedelta(hours=2))
    assert job_tasks.run_inline(Job.DIGEST, now)["requests"] == 3
    with session_scope() as s:
        ids = {item.user_id: item.custom_id for item in s.scalars(select(ModelBatchItem))}

    def answer(body: dict[str, Any]) -> str:  # cites the first fact the request offered
        offered = re.search(r"id: (\d+)", json.dumps(body))
        assert offered is not None
        cites = {"facts": [int(offered.group(1))], "self_log": [], "thoughts": []}
        return json.dumps({"say": True, "text": "How did the interview go?", "cites": cites})

    with FakeAnthropic() as fake:
        fake.responder = answer
        fake.batch_outcomes = {ids[users[1]]: "errored", ids[users[2]]: "expired"}
        port = ModelPort(AnthropicProvider(api_key="k", base_url=fake.base_url, timeout=5, max_retries=0),
                         Settings().model_tiers)  # fmt: skip
        limit = Settings().batch_max_submissions
        for _ in range(limit):
            model_batches.flush_pending(port)
            model_batches.poll(port)
            fake.batch_outcomes.pop(ids[users[1]], None)  # the error was passing: the next submission answers
    with session_scope() as s:
        status = {item.user_id: (item.status, item.submissions) for item in s.scalars(select(ModelBatchItem))}
        made = Counter(s.scalars(select(NotificationCandidate.user_id).where(NotificationCandidate.kind == "digest")))
        letters = s.scalars(select(DeadLetter)).all()
    assert status == {users[0]: ("applied", 1), users[1]: ("applied", 2), users[2]: ("gave_up", limit)}
    assert made == Counter({users[0]: 1, users[1]: 1})
    assert len(letters) == 1 and letters[0].task_name == "ella.model_batch_item"
    assert letters[0].user_id == users[2] and "expired" in letters[0].reason
    assert json.loads(letters[0].payload)["kwargs"]["purpose"] == "digest"


def test_a_runs_rate_is_its_own_pace_and_a_running_run_says_how_long_is_left():
    """A finished run's rate is over its own duration, not up to now (a 3-user run read an hour later showed
    0.1 users/s); a running one's time left is what is still to do at the pace so far."""
    from types import SimpleNamespace

    start = datetime(2026, 11, 30, 7, tzinfo=UTC)
    done = SimpleNamespace(started_at=start, finished_at=start + timedelta(seconds=10), users_done=100,
                           users_total=100, state=run_store.DONE)  # fmt: skip
    later = run_store.progress(done, start + timedelta(hours=1))  # type: ignore[arg-type]
    assert later.rate_per_s == pytest.approx(10.0) and later.remaining_s is None
    running = SimpleNamespace(started_at=start, finished_at=None, users_done=250, users_total=1000,
                              state=run_store.PLANNED)  # fmt: skip
    now = run_store.progress(running, start + timedelta(seconds=50))  # type: ignore[arg-type]
    assert now.rate_per_s == pytest.approx(5.0) and now.remaining_s == pytest.approx(150.0)

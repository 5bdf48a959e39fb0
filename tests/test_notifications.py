"""Sending notifications: ``ella.dispatch_notifications`` on SQLite and PostgreSQL, real Redis, a real worker.

Exactly once per candidate under a redelivered pass, two dispatchers at once and a worker killed between the
commit and the stream; the held, expired and skipped cases with their reasons; a sent notification as a turn of
the conversation the user's answer continues, and as a memory; ``ella notifications show`` and ``why``.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import event, func, select
from typer.testing import CliRunner

from adapters.db import get_engine, session_scope
from adapters.settings import get_settings
from ella.guard.disclosure import AI_NOTICE
from ella.ledger.facts import NewFact
from ella.reply import OutgoingReply
from models import Conversation, DeadLetter, MemoryNode, NotificationCandidate, OutboxRecord, User
from models.ledger import append, retire
from models.notifications import based_on_json
from models.selflog import SelfLogEntry
from models.turns import open_conversation_history, store_exchange
from tests.conftest import wait_for
from workers.routing import TaskName

pytestmark = pytest.mark.integration


def noon_zone(now: datetime) -> str:
    """A fixed-offset zone where it is about midday at ``now``: inside the default active hours, outside DND."""
    offset = 12 - now.hour
    return "UTC" if offset == 0 else f"Etc/GMT{'-' if offset > 0 else '+'}{abs(offset)}"


def add_user(user_id: str, now: datetime, zone: str | None = None, **columns: object) -> None:
    with session_scope() as s:
        s.add(User(id=user_id, created_at=now, last_seen_at=now, timezone=zone or noon_zone(now), **columns))


def add_candidate(
    user_id: str,
    now: datetime,
    *,
    kind: str = "followup",
    body: str = "How did the interview go?",
    facts: list[int] | None = None,
    self_log: list[int] | None = None,
    fresh_for: timedelta = timedelta(days=3),
    not_before: datetime | None = None,
) -> int:
    with session_scope() as s:
        row = NotificationCandidate(
            user_id=user_id,
            kind=kind,
            body=body,
            based_on=based_on_json(facts or [], self_log or []),
            created_at=now - timedelta(hours=1),
            fresh_until=now + fresh_for,
            not_before=not_before or now - timedelta(minutes=1),
            status="candidate",
            dedupe_key=f"test:{uuid.uuid4().hex}",
        )
        s.add(row)
        s.flush()
        return row.id


def candidate(candidate_id: int) -> NotificationCandidate:
    with session_scope() as s:
        return s.get_one(NotificationCandidate, candidate_id)


def notification_records(user_prefix: str) -> list[OutboxRecord]:
    with session_scope() as s:
        return list(
            s.scalars(
                select(OutboxRecord).where(
                    OutboxRecord.kind == "notification", OutboxRecord.user_id.like(f"{user_prefix}%")
                )
            )
        )


def stream_entries(outbox, user_prefix: str) -> list:
    return [e for e in outbox() if e.kind == "notification" and e.user_id.startswith(user_prefix)]


def queued(user_id: str, candidate_id: int) -> int:
    """Messages to ``ella.perceive`` on this run's cognition queue for this user's candidate (the queue is shared by
    the run's tests, and candidate ids repeat across their databases)."""
    from adapters.redis_conn import get_redis

    source = f"notification:{candidate_id}"
    raws = get_redis().lrange(get_settings().queue_cognition, 0, -1)
    texts = [raw if isinstance(raw, str) else raw.decode() for raw in raws]
    return sum(source in text and repr(user_id) in text for text in texts)


def dispatch(now: datetime) -> dict[str, int]:
    from tasks.notifications import dispatch as run

    return run(now)


@pytest.fixture
def prefix() -> str:
    return f"n{uuid.uuid4().hex[:6]}"


def test_a_due_candidate_is_sent_once_as_a_turn_of_a_new_conversation_and_a_memory(migrated_db, outbox, prefix):
    now = datetime.now(UTC)
    user = f"{prefix}-sam"
    add_user(user, now)
    cid = add_candidate(user, now)

    counts = dispatch(now)

    assert counts.get("sent") == 1
    sent = candidate(cid)
    assert (sent.status, sent.reason, sent.sent_at) == ("sent", None, now)
    [record] = notification_records(prefix)
    assert sent.outbox_record_id == record.id
    assert (record.route, record.category, record.in_reply_to, record.text) == (
        "generated",
        "followup",
        None,
        f"{AI_NOTICE} How did the interview go?",
    )  # fmt: skip  (a notification begins an interaction: it opens with the AI notice)
    assert record.published_at is not None
    with session_scope() as s:
        conv = s.get_one(Conversation, record.conversation_id)
        assert conv.closed_at is None and conv.user_id == user
        reply_window = timedelta(hours=get_settings().notification_reply_window_h)
        assert conv.close_due_at == now + reply_window
        assert s.get_one(User, user).last_notified_at == now
        assert s.get_one(User, user).ai_disclosed_at == now
    [entry] = stream_entries(outbox, prefix)
    assert (entry.text, entry.outbox_id, entry.in_reply_to) == (
        f"{AI_NOTICE} How did the interview go?",
        record.uid,
        "",
    )
    assert queued(user, cid) == 1  # to ella.perceive, with its perception given


def test_a_generic_check_in_goes_out_canned(migrated_db, outbox, prefix):
    now = datetime.now(UTC)
    add_user(f"{prefix}-g", now)
    add_candidate(f"{prefix}-g", now, kind="generic", body="Quiet evening here. Just wanted to check in.")
    dispatch(now)
    [record] = notification_records(prefix)
    assert (record.route, record.category) == ("canned", "generic")


def test_an_answer_within_the_reply_window_continues_the_conversation_that_holds_ellas_question(
    migrated_db, outbox, prefix
):
    now = datetime.now(UTC)
    user = f"{prefix}-sam"
    add_user(user, now)
    # An old conversation, stale since yesterday: the notification closes it and opens its own.
    with session_scope() as s:
        old = Conversation(user_id=user, started_at=now - timedelta(days=1), last_message_at=now - timedelta(days=1),
                           close_due_at=now - timedelta(days=1) + timedelta(minutes=30), turn_count=3)  # fmt: skip
        s.add(old)
        s.flush()
        old_id = old.id
    add_candidate(user, now)
    dispatch(now)
    [record] = notification_records(prefix)
    assert record.conversation_id != old_id
    with session_scope() as s:
        assert s.get_one(Conversation, old_id).closed_at == now - timedelta(days=1) + timedelta(minutes=30)
    timeout = timedelta(seconds=get_settings().conversation_inactivity_timeout_s)
    answered_at = now + timedelta(hours=3)  # long after the inactivity timeout, inside the reply window
    assert timedelta(hours=3) > timeout
    with session_scope() as s:
        reply = store_exchange(s, message_id=f"{prefix}-m1", user_id=user, text="It went great!", sent_at=answered_at,
                               external_conversation_id="gw-1", reply=OutgoingReply("So glad!"), timeout=timeout,
                               user_defaults={}, task_id=None).record  # fmt: skip
        assert reply.conversation_id == record.conversation_id
    with session_scope() as s:
        history = open_conversation_history(s, user)
    assert history == [
        ("assistant", f"{AI_NOTICE} How did the interview go?"),
        ("user", "It went great!"),
        ("assistant", "So glad!"),
    ]


def test_a_notification_opens_with_the_ai_notice_and_the_answer_inside_its_window_is_not_told_again(
    migrated_db, outbox, prefix
):
    from ella.contract import IngestPayload
    from tasks.ingest import ingest

    now = datetime.now(UTC)
    user = f"{prefix}-ai"
    add_user(user, now)
    add_candidate(user, now)
    dispatch(now)
    [record] = notification_records(prefix)
    assert record.text.startswith(AI_NOTICE)
    ingest(IngestPayload(message_id=f"{prefix}-a1", user_id=user, text="It went great!",
                         sent_at=now + timedelta(minutes=40)), task_id=None)  # fmt: skip
    with session_scope() as s:
        answer = s.scalars(select(OutboxRecord).where(OutboxRecord.in_reply_to == f"{prefix}-a1")).one()
    assert answer.conversation_id == record.conversation_id and not answer.text.startswith(AI_NOTICE)


def test_an_answer_after_the_reply_window_starts_a_new_conversation(migrated_db, outbox, prefix):
    now = datetime.now(UTC)
    user = f"{prefix}-late"
    add_user(user, now)
    add_candidate(user, now)
    dispatch(now)
    [record] = notification_records(prefix)
    late = now + timedelta(hours=get_settings().notification_reply_window_h, minutes=1)
    timeout = timedelta(seconds=get_settings().conversation_inactivity_timeout_s)
    with session_scope() as s:
        reply = store_exchange(s, message_id=f"{prefix}-m1", user_id=user, text="hi", sent_at=late,
                               external_conversation_id=None, reply=OutgoingReply("hello"), timeout=timeout,
                               user_defaults={}, task_id=None).record  # fmt: skip
        assert reply.conversation_id != record.conversation_id
        closed = s.get_one(Conversation, record.conversation_id)
        assert (closed.close_reason, closed.closed_at) == ("inactive", late - timedelta(minutes=1))


def test_a_redelivered_dispatch_sends_nothing_twice(migrated_db, outbox, prefix):
    now = datetime.now(UTC)
    ids = []
    for i in range(5):
        add_user(f"{prefix}-{i}", now)
        ids.append(add_candidate(f"{prefix}-{i}", now))
    assert dispatch(now).get("sent") == 5
    assert dispatch(now).get("sent", 0) == 0  # the same pass delivered again
    assert dispatch(now + timedelta(minutes=5)).get("sent", 0) == 0
    assert len(notification_records(prefix)) == 5
    assert Counter(e.user_id for e in stream_entries(outbox, prefix)) == {f"{prefix}-{i}": 1 for i in range(5)}
    assert all(queued(f"{prefix}-{i}", cid) == 1 for i, cid in enumerate(ids))


def test_two_dispatchers_at_once_send_each_candidate_exactly_once(migrated_db, outbox, prefix):
    now = datetime.now(UTC)
    users = [f"{prefix}-{i:02d}" for i in range(40)]
    for user in users:
        add_user(user, now)
        add_candidate(user, now)
    results: list[dict[str, int]] = []
    errors: list[BaseException] = []
    start = threading.Barrier(2)

    def run() -> None:
        try:
            start.wait()
            results.append(dispatch(now))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    assert sum(r.get("sent", 0) for r in results) == 40
    records = notification_records(prefix)
    assert Counter(r.user_id for r in records) == dict.fromkeys(users, 1)
    assert Counter(e.user_id for e in stream_entries(outbox, prefix)) == dict.fromkeys(users, 1)
    with session_scope() as s:
        assert s.scalar(select(func.count()).select_from(DeadLetter)) == 0


def test_a_worker_killed_between_commit_and_publish_is_published_once_by_the_next_pass(
    migrated_db, outbox, prefix, monkeypatch
):
    from tasks import notifications

    now = datetime.now(UTC)
    add_user(f"{prefix}-k", now)
    cid = add_candidate(f"{prefix}-k", now)
    with monkeypatch.context() as m:
        m.setattr(notifications.Pass, "deliver", lambda self, sent: None)  # dies after the commit
        assert dispatch(now).get("sent") == 1
    [record] = notification_records(prefix)
    assert record.published_at is None and stream_entries(outbox, prefix) == []
    assert candidate(cid).status == "sent"

    assert dispatch(now + timedelta(minutes=5)).get("republished") == 1
    assert dispatch(now + timedelta(minutes=10)).get("republished", 0) == 0
    assert len(stream_entries(outbox, prefix)) == 1
    [record] = notification_records(prefix)
    assert record.published_at is not None
    assert queued(f"{prefix}-k", cid) == 1


def test_a_record_left_unpublished_past_its_candidates_expiry_is_never_published(
    migrated_db, outbox, prefix, monkeypatch
):
    from tasks import notifications

    now = datetime.now(UTC)
    add_user(f"{prefix}-late", now)
    add_candidate(f"{prefix}-late", now, fresh_for=timedelta(minutes=30))
    with monkeypatch.context() as m:
        m.setattr(notifications.Pass, "deliver", lambda self, sent: None)  # dies after the commit
        assert dispatch(now).get("sent") == 1
    assert dispatch(now + timedelta(hours=1)).get("republished", 0) == 0  # stale by then: the hard expiry holds
    assert stream_entries(outbox, prefix) == []


def test_no_index_names_outbox_published_at_so_a_replys_publish_stays_a_heap_only_update(migrated_db):
    """Every reply's publish sets ``published_at``; an index that names it (even in a partial index's predicate)
    makes PostgreSQL rewrite every index of the row on that UPDATE (measured: about 7% of ingest throughput)."""
    from sqlalchemy import inspect

    from adapters.db import get_engine

    for index in inspect(get_engine()).get_indexes("outbox_records"):
        assert "published_at" not in index["column_names"], index
        predicate = " ".join(str(value) for value in index.get("dialect_options", {}).values())
        assert "published_at" not in predicate, index


def test_a_stale_candidate_is_expired_with_the_reason(migrated_db, outbox, prefix):
    now = datetime.now(UTC)
    add_user(f"{prefix}-x", now)
    stale = add_candidate(f"{prefix}-x", now, fresh_for=timedelta(seconds=-1))
    waiting = add_candidate(f"{prefix}-x", now, not_before=now + timedelta(hours=5), fresh_for=timedelta(hours=-2))
    assert dispatch(now).get("expired") == 2
    for cid in (stale, waiting):
        row = candidate(cid)
        assert row.status == "expired" and row.reason.startswith("expired")
    assert notification_records(prefix) == []


def test_a_fact_superseded_or_retired_since_kills_its_candidate_at_send_time(migrated_db, outbox, prefix):
    now = datetime.now(UTC)
    user = f"{prefix}-f"
    add_user(user, now)
    with session_scope() as s:
        interview = append(s, user, NewFact("user.interview", "is on", "Thursday", "user_claim"), "user")
        assert interview is not None
        fact_id = interview.id
    cid = add_candidate(user, now, facts=[fact_id])
    with session_scope() as s:
        retire(s, user, fact_id, "user", "the interview moved to next week")
    dispatch(now)
    row = candidate(cid)
    assert (row.status, row.reason) == ("skipped", f"grounds_gone: fact {fact_id} no longer live")
    assert notification_records(prefix) == []


def test_a_live_fact_of_another_user_does_not_ground_a_candidate(migrated_db, outbox, prefix):
    now = datetime.now(UTC)
    add_user(f"{prefix}-a", now)
    add_user(f"{prefix}-b", now)
    with session_scope() as s:
        fact = append(s, f"{prefix}-b", NewFact("user.trip", "is on", "Friday", "user_claim"), "user")
        assert fact is not None
        fact_id = fact.id
    cid = add_candidate(f"{prefix}-a", now, facts=[fact_id])
    dispatch(now)
    assert candidate(cid).status == "skipped"


def test_outside_active_hours_a_candidate_waits_with_its_rule_and_is_sent_when_the_window_opens(
    migrated_db, outbox, prefix
):
    now = datetime(2026, 6, 10, 5, 0, tzinfo=UTC)  # 05:00 in UTC: outside 09:00-21:00, after DND ends at 05:00
    user = f"{prefix}-early"
    add_user(user, now, zone="UTC", dnd_start_minute=0, dnd_end_minute=0)
    cid = add_candidate(user, now)
    assert dispatch(now).get("held") == 1
    row = candidate(cid)
    assert (row.status, row.reason, row.not_before) == ("candidate", "outside_active_hours", now + timedelta(hours=4))
    assert dispatch(now + timedelta(hours=3)).get("sent", 0) == 0  # not due yet: not even looked at
    assert dispatch(now + timedelta(hours=4)).get("sent") == 1


def test_a_user_with_notifications_off_has_the_candidate_skipped(migrated_db, outbox, prefix):
    now = datetime.now(UTC)
    add_user(f"{prefix}-off", now, notifications_enabled=False)
    cid = add_candidate(f"{prefix}-off", now)
    dispatch(now)
    assert (candidate(cid).status, candidate(cid).reason) == ("skipped", "notifications_off")


def test_a_user_gets_at_most_one_notification_per_pass_and_the_next_waits_for_the_gap(migrated_db, outbox, prefix):
    now = datetime.now(UTC)
    user = f"{prefix}-two"
    add_user(user, now)
    first, second = add_candidate(user, now), add_candidate(user, now)
    dispatch(now)
    assert candidate(first).status == "sent"
    held = candidate(second)
    assert held.status == "candidate" and held.reason == "in_conversation"  # the notification's own conversation
    assert len(notification_records(prefix)) == 1


def test_one_bad_candidate_never_stops_the_pass(migrated_db, outbox, prefix, monkeypatch):
    from tasks import notifications

    now = datetime.now(UTC)
    add_user(f"{prefix}-zone", now, zone="Mars/Olympus_Mons")  # an unknown zone fails its decision
    bad_zone = add_candidate(f"{prefix}-zone", now)
    good = []
    for i in range(4):
        add_user(f"{prefix}-{i}", now)
        good.append(add_candidate(f"{prefix}-{i}", now))
    poisoned = good.pop()
    real_send = notifications.send

    def send(session, candidates, *args):  # one candidate whose send fails: its page is retried one by one
        if any(c[0] == poisoned for c in candidates):
            raise RuntimeError("poisoned row")
        return real_send(session, candidates, *args)

    monkeypatch.setattr(notifications, "send", send)
    counts = dispatch(now)
    assert counts.get("sent") == 3 and counts.get("failed") == 2
    assert all(candidate(cid).status == "sent" for cid in good)
    for cid in (bad_zone, poisoned):
        row = candidate(cid)
        assert row.status == "candidate" and row.reason.startswith("error:") and row.not_before > now
    with session_scope() as s:
        reasons = list(
            s.scalars(select(DeadLetter.reason).where(DeadLetter.task_name == TaskName.DISPATCH_NOTIFICATIONS))
        )
    assert sorted(r.split(" failed")[0] for r in reasons) == sorted(f"candidate {cid}" for cid in (bad_zone, poisoned))


def test_users_with_nothing_due_cost_no_queries(migrated_db, outbox, prefix):
    now = datetime.now(UTC)

    def statements() -> int:
        seen: list[str] = []
        listener = lambda *args: seen.append(args[2])  # noqa: E731
        event.listen(get_engine(), "before_cursor_execute", listener)
        try:
            dispatch(now)
        finally:
            event.remove(get_engine(), "before_cursor_execute", listener)
        return len(seen)

    add_user(f"{prefix}-0", now)
    few = statements()
    with session_scope() as s:
        s.add_all(User(id=f"{prefix}-{i}", created_at=now, timezone="UTC", last_notified_at=now) for i in range(1, 400))
    assert statements() == few


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_due_candidate_reaches_the_outbox_stream_and_memory_through_a_real_worker(start_worker, outbox, prefix):
    from workers.app import app

    now = datetime.now(UTC)
    user = f"{prefix}-w"
    add_user(user, now)
    cid = add_candidate(user, now)
    start_worker()
    app.send_task(TaskName.DISPATCH_NOTIFICATIONS, queue=get_settings().queue_batch)
    [entry] = wait_for(lambda: stream_entries(outbox, prefix), 30, what="the notification on the outbox stream")
    assert (entry.kind, entry.text) == ("notification", f"{AI_NOTICE} How did the interview go?")

    def memory() -> str | None:
        with session_scope() as s:
            return s.scalar(
                select(MemoryNode.description).where(MemoryNode.dedupe_key == f"perceive:notification:{cid}")
            )

    assert wait_for(memory, 30, what="the memory of reaching out") == "Ella reached out: How did the interview go?"


def test_operators_see_each_candidate_with_its_grounds_and_why_the_next_one_waits(migrated_db, outbox, prefix):
    from cli.main import cli

    now = datetime.now(UTC)
    user = f"{prefix}-op"
    add_user(user, now, zone="America/New_York", active_start_minute=0, active_end_minute=1, dnd_start_minute=0,
             dnd_end_minute=0)  # fmt: skip
    with session_scope() as s:
        fact = append(s, user, NewFact("user.interview", "is on", "Thursday", "user_claim"), "user")
        assert fact is not None
        entry = SelfLogEntry(user_id=user, said_at=now, content="I told Sam I'd keep my fingers crossed.")
        s.add(entry)
        s.flush()
        fact_id, entry_id = fact.id, entry.id
    add_candidate(user, now, facts=[fact_id], self_log=[entry_id], not_before=now + timedelta(hours=2))
    runner = CliRunner()
    shown = runner.invoke(cli, ["notifications", "show", user])
    assert shown.exit_code == 0, shown.output
    for text in ("followup", "candidate", "user.interview", "is on", "Thursday", "fingers crossed"):
        assert text in shown.output
    why = runner.invoke(cli, ["notifications", "why", user])
    assert why.exit_code == 0, why.output
    assert "outside_active_hours" in why.output and "America/New_York" in why.output
    nobody = runner.invoke(cli, ["notifications", "why", f"{prefix}-nobody"])
    assert "nothing to send" in nobody.output
    as_json = runner.invoke(cli, ["notifications", "show", user, "--json"])
    assert json.loads(as_json.output)[0]["grounds"]["facts"][0]["object"] == "Thursday"


def test_the_soft_time_limit_ends_the_pass_instead_of_failing_a_candidate(migrated_db, outbox, prefix, monkeypatch):
    from celery.exceptions import SoftTimeLimitExceeded

    from tasks import notifications

    now = datetime.now(UTC)
    for i in range(2):
        add_user(f"{prefix}-{i}", now)
        add_candidate(f"{prefix}-{i}", now)

    def out_of_time(*args):
        raise SoftTimeLimitExceeded()

    monkeypatch.setattr(notifications, "send", out_of_time)
    with pytest.raises(SoftTimeLimitExceeded):
        dispatch(now)
    with session_scope() as s:
        assert s.scalar(select(func.count()).select_from(DeadLetter)) == 0

"""The daily digest: who gets a request, what the request offers, and what an answer becomes.

Pinned: an idle user costs no request and a user with a new turn, an open follow-up or a fresh planning thought
gets exactly one; notifications off is skipped; a second plan of the same period queues nothing new; an answer
that cites nothing real stores nothing (through the kind's validator and through the handler alone); a grounded
answer stores one candidate the dispatcher's query sees, once per day; its text is guard-checked; the arc and
the latest chapter reach the request. End to end through the offline engine: submit, then ``flush_pending``.
The clock is the real one (the handler stamps candidates with it), so every date here is relative to it.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import select

from adapters import model_batches as batches
from adapters.db import autocommit_scope, session_scope
from adapters.settings import Settings
from ella import digest
from ella.guard import Category, classify
from ella.jobs import Job, Member, period_of, request_id
from ella.ledger.rules import Writer
from ella.llm.kinds import DigestAnswer, OutputError, parse_output
from ella.llm.offline import OfflineProvider
from ella.llm.port import ModelPort, ModelResult
from ella.llm.types import CompletionRequest
from models import BoundaryEvent, NotificationCandidate, User
from models import batch as store
from models.batch import ModelBatchItem
from models.conversation import Conversation
from models.ledger import NewFact, append
from models.memory import MemoryNode
from models.message import InboundMessage
from models.notifications import due_candidates
from models.runs import set_marks
from models.selflog import add_entries
from tests.support.scripted import Scripted

TIERS = Settings().model_tiers
NOW = datetime.now(UTC).replace(microsecond=0)
# The test users live where it is about noon now (POSIX signs: Etc/GMT-3 is three hours ahead of UTC), so that
# "today" cannot end while the module runs: in UTC, a run that crossed midnight had its digests found day_over
# by the handler's real clock, against this module's NOW taken the day before.
_NOON_OFFSET = max(-12, min(14, 12 - NOW.hour))
USER_ZONE = f"Etc/GMT{-_NOON_OFFSET:+d}" if _NOON_OFFSET else "UTC"
TODAY = period_of(Job.DIGEST, NOW.astimezone(ZoneInfo(USER_ZONE)).date(), ZoneInfo(USER_ZONE))
LAST_DIGEST = NOW - timedelta(days=1)


@pytest.fixture(autouse=True)
def digest_tasks() -> None:
    import tasks.digest  # noqa: F401  (registers the planner and the handler)


# --- planting ---------------------------------------------------------------------------------------------------


def make_user(*, notifications: bool = True, marked: datetime | None = LAST_DIGEST) -> str:
    """A user first seen 60 days ago whose last digest request (when ``marked``) was queued at ``marked``."""
    user = f"d-{uuid.uuid4().hex[:8]}"
    with session_scope() as s:
        s.add(User(id=user, created_at=NOW - timedelta(days=60), notifications_enabled=notifications))
        s.flush()
        if marked is not None:
            set_marks(s, Job.DIGEST, {user: (marked.date()).isoformat()}, marked)
    return user


def add_turn(user: str, at: datetime) -> None:
    with session_scope() as s:
        conv = Conversation(user_id=user, started_at=at, last_message_at=at, close_due_at=at + timedelta(minutes=30))
        s.add(conv)
        s.flush()
        s.add(InboundMessage(message_id=uuid.uuid4().hex, user_id=user, conversation_id=conv.id, text="hi", sent_at=at,
                             received_at=at))  # fmt: skip


def add_fact(
    user: str, *, recorded: datetime, opens: datetime = NOW + timedelta(days=1), obj: str = "interview"
) -> int:
    """A dated event of the user's: its follow-up window opens the day after it (``opens``), for three days."""
    new = NewFact(
        "user", "has_upcoming", obj, "user_claim", followup_after=opens, followup_until=opens + timedelta(days=3)
    )
    with session_scope() as s:
        fact = append(s, user, new, Writer.USER, recorded)
        assert fact is not None
        return fact.id


def add_plan(user: str, *, made: datetime, expires: datetime | None = None, text: str = "ask how the move went") -> int:
    """A planning thought as a conversation's close stores it (dedupe key ``plan:<conversation>``)."""
    node = MemoryNode(
        user_id=user, node_type="thought", created_at=made, expires_at=expires or made + timedelta(days=30),
        last_accessed_at=made, subject="Ella", predicate="will ask", object="about the move",
        description=f"For Ella's planning: {text}", embedding=b"\0" * 16, embedding_model="test", poignancy=4,
        depth=1, evidence="[]", dedupe_key=f"plan:{uuid.uuid4().hex}",
    )  # fmt: skip
    with session_scope() as s:
        s.add(node)
        s.flush()
        return node.id


def add_said(user: str, content: str, at: datetime, about: tuple[str, ...] = ("user",)) -> None:
    with session_scope() as s:
        add_entries(s, user, at, [{"content": content, "about": list(about)}], source=f"m-{uuid.uuid4().hex[:6]}")


def member(user: str) -> Member:
    return Member(user, USER_ZONE, TODAY)


def plan(*users: str, now: datetime = NOW) -> Any:
    from tasks.digest import plan_digest

    with autocommit_scope() as s:
        return plan_digest(s, [member(u) for u in users], now)


def queue(chunk_plan: Any) -> list[str]:
    with session_scope() as s:
        return batches.submit("digest", chunk_plan.requests, session=s)


def candidates(user: str) -> list[NotificationCandidate]:
    with autocommit_scope() as s:
        stmt = select(NotificationCandidate).where(NotificationCandidate.user_id == user)
        return list(s.scalars(stmt.order_by(NotificationCandidate.id)))


def items() -> dict[str, ModelBatchItem]:
    with autocommit_scope() as s:
        return {i.custom_id: i for i in s.scalars(select(ModelBatchItem))}


def offline() -> ModelPort:
    return ModelPort(OfflineProvider(), TIERS)


def scripted(answer: Callable[[CompletionRequest], dict[str, Any]]) -> ModelPort:
    return ModelPort(Scripted(lambda request: json.dumps(answer(request))), TIERS)


# --- who gets a request -----------------------------------------------------------------------------------------


def test_an_idle_user_gets_no_request(migrated_db):
    quiet = make_user()
    add_turn(quiet, LAST_DIGEST - timedelta(hours=3))  # all before their last digest
    add_fact(quiet, recorded=LAST_DIGEST - timedelta(hours=2))
    add_plan(quiet, made=LAST_DIGEST - timedelta(hours=1))
    never = make_user(marked=None)  # no digest yet, and nothing at all since they were first seen

    chunk = plan(quiet, never)

    assert (chunk.requests, chunk.idle, dict(chunk.skipped)) == ([], 2, {})


@pytest.mark.parametrize("news", ["turn", "open_followup", "planning_thought"])
def test_a_user_with_something_new_gets_exactly_one_request(migrated_db, news):
    user, idle = make_user(), make_user()
    at = LAST_DIGEST + timedelta(hours=2)
    {"turn": lambda: add_turn(user, at), "open_followup": lambda: add_fact(user, recorded=at),
     "planning_thought": lambda: add_plan(user, made=at)}[news]()  # fmt: skip

    chunk = plan(user, idle)

    assert [(r.custom_id, r.kind, r.user_id) for r in chunk.requests] == [
        (request_id(Job.DIGEST, user, TODAY), "digest", user)
    ]
    assert chunk.idle == 1
    assert chunk.requests[0].context["day"] == TODAY.label
    assert chunk.requests[0].context["fresh_until"] == TODAY.end.isoformat()


def test_news_that_no_longer_counts_makes_no_request(migrated_db):
    """A closed follow-up window and an expired planning thought are not news, however recent."""
    user = make_user()
    at = LAST_DIGEST + timedelta(hours=2)
    add_fact(user, recorded=at, opens=NOW - timedelta(days=4))  # window closed a day ago
    add_plan(user, made=at, expires=NOW - timedelta(minutes=1))

    assert (plan(user).requests, plan(user).idle) == ([], 1)


def test_a_user_with_notifications_off_is_skipped_not_requested(migrated_db):
    user = make_user(notifications=False)
    add_turn(user, LAST_DIGEST + timedelta(hours=1))

    chunk = plan(user)

    assert (chunk.requests, chunk.idle, dict(chunk.skipped)) == ([], 0, {"notifications_off": 1})


def test_a_second_plan_of_the_same_period_queues_nothing_new(migrated_db):
    user = make_user()
    add_turn(user, LAST_DIGEST + timedelta(hours=1))

    assert queue(plan(user)) == [request_id(Job.DIGEST, user, TODAY)]
    again = plan(user)
    assert len(again.requests) == 1  # the planner writes nothing; the request id makes the second queue a no-op
    assert queue(again) == []
    assert list(items()) == [request_id(Job.DIGEST, user, TODAY)]


def test_the_request_offers_the_open_facts_plans_and_recent_self_log_about_the_user(migrated_db):
    user = make_user()
    fact = add_fact(user, recorded=LAST_DIGEST + timedelta(hours=1))
    thought = add_plan(user, made=LAST_DIGEST - timedelta(days=3))  # old but unexpired: offered, not news
    add_said(user, "I kept my fingers crossed for you", NOW - timedelta(days=2))
    add_said(user, "I told you about the harbour", NOW - timedelta(days=9))  # older than a week
    add_said(user, "I walked to the loch", NOW - timedelta(days=1), about=("loch",))  # not about them

    (request,) = plan(user).requests

    with autocommit_scope() as s:
        from models.selflog import SelfLogEntry

        crossed = s.scalars(select(SelfLogEntry.id).where(SelfLogEntry.content.startswith("I kept"))).one()
    assert (request.context["facts"], request.context["thoughts"], request.context["self_log"]) == (
        [fact],
        [thought],
        [crossed],
    )
    assert [f["id"] for f in request.variables["facts"]] == [fact]
    assert request.variables["plans"][0]["plan"] == "ask how the move went"
    assert [s["said"] for s in request.variables["self_log"]] == ["I kept my fingers crossed for you"]


# --- what an answer becomes ---------------------------------------------------------------------------------------


def test_offline_digest_stores_one_candidate_citing_the_fact_that_the_dispatcher_sees(migrated_db):
    user = make_user()
    fact = add_fact(user, recorded=LAST_DIGEST + timedelta(hours=1))
    queue(plan(user))

    report = batches.flush_pending(offline())

    assert (report.submitted, dict(report.outcomes)) == (1, {"applied": 1})
    (made,) = candidates(user)
    assert (made.kind, made.status, made.fact_ids, made.self_log_ids, made.thought_ids) == (
        "digest",
        "candidate",
        [fact],
        [],
        [],
    )
    assert made.body == "Thinking of you ahead of your interview. I hope it goes well."
    assert made.fresh_until == TODAY.end
    assert made.dedupe_key == digest.dedupe_key(user, TODAY.label)
    with autocommit_scope() as s:
        due = [d for d in due_candidates(s, datetime.now(UTC), None, 1000) if d.user_id == user]
    assert [(d.id, d.kind, d.fact_ids) for d in due] == [(made.id, "digest", [fact])]


def test_a_grounded_answer_citing_a_thought_records_it_in_based_on(migrated_db):
    user = make_user()
    thought = add_plan(user, made=LAST_DIGEST + timedelta(hours=1))
    queue(plan(user))

    batches.flush_pending(offline())

    (made,) = candidates(user)
    assert (made.thought_ids, made.fact_ids) == ([thought], [])
    assert json.loads(made.based_on) == {"facts": [], "self_log": [], "thoughts": [thought]}


def test_an_answer_citing_nothing_real_is_a_failsafe_and_stores_nothing(migrated_db):
    user = make_user()
    add_fact(user, recorded=LAST_DIGEST + timedelta(hours=1))
    queue(plan(user))
    invented = {"say": True, "text": "How did your exam go?", "cites": {"facts": [987654], "thoughts": [1]}}

    report = batches.flush_pending(scripted(lambda request: invented))

    assert dict(report.outcomes) == {"failsafe": 1}
    assert candidates(user) == []
    (item,) = items().values()
    assert item.status == store.FAILSAFE and item.error is not None and "cites no fact" in item.error


def test_the_validator_drops_ids_not_offered_and_keeps_the_real_ones():
    ctx = {"facts": [5], "self_log": [7], "thoughts": []}
    raw = json.dumps({"say": True, "text": "Good luck today.", "cites": {"facts": [5, 6], "self_log": [8]}})

    kept = parse_output("digest", raw, ctx)

    assert isinstance(kept, DigestAnswer) and kept.cites.model_dump() == {"facts": [5], "self_log": [], "thoughts": []}
    with pytest.raises(OutputError, match="cites no fact"):
        parse_output("digest", json.dumps({"say": True, "text": "Hi.", "cites": {"facts": [6]}}), ctx)
    quiet = parse_output("digest", json.dumps({"say": False, "text": "", "cites": {}}), ctx)
    assert isinstance(quiet, DigestAnswer) and not quiet.say


def test_the_handler_alone_discards_an_answer_citing_unknown_ids(migrated_db):
    """Whatever validated the answer (here: nothing, no context), the handler stores only offered grounds."""
    from tasks.digest import apply_digest

    user = make_user()
    add_fact(user, recorded=LAST_DIGEST + timedelta(hours=1))
    queue(plan(user))
    unchecked = DigestAnswer.model_validate({"say": True, "text": "How was the party?", "cites": {"facts": [987654]}})

    with session_scope() as s:
        (item,) = s.scalars(select(ModelBatchItem))
        apply_digest(s, item, ModelResult("digest", unchecked, False, 1, "test"))

    assert candidates(user) == []


def test_the_candidate_text_is_guard_checked_and_a_firing_one_is_kept_skipped(migrated_db):
    drift = "I love you so much. Good luck with the interview."
    assert classify(drift, learned=False).category == Category.ROMANTIC_AVOWAL
    user = make_user()
    fact = add_fact(user, recorded=LAST_DIGEST + timedelta(hours=1))
    queue(plan(user))

    def answer(request: CompletionRequest) -> dict[str, Any]:
        return {"say": True, "text": drift, "cites": {"facts": [request.variables["facts"][0]["id"]]}}

    batches.flush_pending(scripted(answer))

    (held,) = candidates(user)
    assert (held.status, held.fact_ids) == ("skipped", [fact])
    assert held.reason is not None and "romantic_avowal" in held.reason
    with autocommit_scope() as s:
        (event,) = s.scalars(select(BoundaryEvent).where(BoundaryEvent.user_id == user))
    assert (event.direction, event.category, event.text) == ("notification", "romantic_avowal", None)


def test_saying_nothing_stores_nothing(migrated_db):
    user = make_user()
    add_turn(user, LAST_DIGEST + timedelta(hours=1))  # news, but nothing to ground a message in
    queue(plan(user))

    report = batches.flush_pending(offline())

    assert dict(report.outcomes) == {"applied": 1}
    assert candidates(user) == []


def test_one_candidate_per_user_and_day_even_if_a_second_request_is_answered(migrated_db):
    """The dedupe key is the user's local day: a request queued again under another id still makes one."""
    user = make_user()
    add_fact(user, recorded=LAST_DIGEST + timedelta(hours=1))
    (request,) = plan(user).requests
    with session_scope() as s:
        batches.submit("digest", [request, request._replace(custom_id=request.custom_id + "-again")], session=s)

    assert dict(batches.flush_pending(offline()).outcomes) == {"applied": 2}
    assert len(candidates(user)) == 1


# --- the arc and the chapter --------------------------------------------------------------------------------------


def test_the_arc_and_latest_chapter_reach_the_request_variables(migrated_db):
    from models.arcs import RelationshipArcRow
    from models.chapters import StoryChapter

    user, other = make_user(), make_user()
    for u in (user, other):
        add_turn(u, LAST_DIGEST + timedelta(hours=1))
    mindful = "Sam opens up after work; do not push about the job."
    with session_scope() as s:
        for week, title in (("2000-W01", "An old week"), ("2000-W02", "The interview week")):
            bounds = {"period_start": NOW - timedelta(days=14), "period_end": NOW - timedelta(days=7)}
            s.add(StoryChapter(user_id=user, period=week, title=title, summary=f"{title}, in short.", **bounds))
        s.add(RelationshipArcRow(user_id=user, period="2000-01", stage="warming", trajectory="up", mindful_of=mindful))

    by_user = {r.user_id: r for r in plan(user, other).requests}

    assert (by_user[user].variables["arc_stage"], by_user[user].variables["arc_mindful_of"]) == ("warming", mindful)
    assert by_user[user].variables["chapter"] == "The interview week: The interview week, in short."
    assert by_user[other].variables["chapter"] == "(none yet)"
    assert by_user[other].variables["arc_stage"].startswith("(not known yet")
    rendered = offline().request("digest", by_user[user].variables, user_id=user).messages[-1].blocks[0].text
    assert "stage warming" in rendered and mindful in rendered and "The interview week, in short." in rendered


# --- through the job's runner -------------------------------------------------------------------------------------


def test_the_beat_runner_plans_the_digest_once_and_the_offline_answer_becomes_a_candidate(migrated_db):
    """``tasks.jobs.run_inline`` at 07:xx on the users' clocks: one request for the one active user, the idle and
    the notifications-off users counted, the mark set; a second pass in the same hour plans nothing again."""
    from models.runs import marks
    from tasks.jobs import run_inline

    offset = (7 - NOW.hour) % 24
    offset = offset - 24 if offset > 14 else offset
    zone = f"Etc/GMT{-offset:+d}" if offset else "UTC"  # POSIX signs: Etc/GMT-3 is three hours ahead of UTC
    assert NOW.astimezone(ZoneInfo(zone)).hour == 7
    active, idle, off = make_user(), make_user(), make_user(notifications=False)
    with session_scope() as s:
        for u in (active, idle, off):
            s.get_one(User, u).timezone = zone
    fact = add_fact(active, recorded=LAST_DIGEST + timedelta(hours=1))
    add_turn(off, LAST_DIGEST + timedelta(hours=1))

    totals = run_inline(Job.DIGEST, NOW)

    assert (totals["requests"], totals["idle"], totals["notifications_off"]) == (1, 1, 1)
    with autocommit_scope() as s:
        assert set(marks(s, Job.DIGEST, [active, idle, off])) == {active, idle, off}  # idle and off: yesterday's
        assert marks(s, Job.DIGEST, [active])[active] == NOW
    assert run_inline(Job.DIGEST, NOW).get("requests", 0) == 0
    batches.flush_pending(offline())
    (made,) = candidates(active)
    assert (made.kind, made.fact_ids) == ("digest", [fact])
    assert candidates(idle) == candidates(off) == []

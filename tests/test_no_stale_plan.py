"""No stale plan (issue 34, item 3): nothing Ella writes or sends on her own looks forward to an event the user
said is over.

The bug, on the embedded default: "I have a job interview on Thursday", later "The interview went great, they
offered me the job!". The interview was retired with its outcome, but the conversation's close wrote "after
Thursday, ask how the interview went" after it, and the day's digest asked about the interview again. Pinned here,
each where it writes and again where it sends: the close (the ledger, the transcript, both engines), the digest
(the plans it offers, the answer it stores) and the dispatcher (a plan written before the outcome is not sent
after it), with the outcome told in English and in German ("sie haben es abgesagt").
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select

from adapters import model_batches as batches
from adapters.db import autocommit_scope, session_scope
from adapters.settings import Settings
from ella import event_over
from ella.event_over import KnownEvents, OverEvent
from ella.ledger.consolidation import RETIRE_REASONS
from ella.ledger.rules import Writer
from ella.llm import offline
from ella.llm.port import ModelPort
from ella.llm.types import CompletionRequest
from ella.reply import OutgoingReply
from models import Conversation, MemoryNode, NotificationCandidate, User, WorldFact
from models.ledger import NewFact, append, retire
from models.notifications import based_on_json
from models.turns import store_exchange
from tests.support.scripted import Scripted

TIERS = Settings().model_tiers
INTERVIEW_PLAN = "after Thursday, ask sam how the interview went."
ANNOUNCED = "I have a job interview on Thursday"
WENT_GREAT = "The interview went great, they offered me the job!"


# --- the rule, in plain Python -------------------------------------------------------------------------------------


def over(*events: str, live: tuple[str, ...] = ()) -> KnownEvents:
    return KnownEvents(tuple(OverEvent(i, e, "happened", None) for i, e in enumerate(events, start=1)), live)


@pytest.mark.domain
def test_a_plan_names_an_event_that_is_over_by_its_head_word_and_a_new_job_is_not_the_interview():
    known = over("job interview")
    assert event_over.looks_forward("For Ella's planning: " + INTERVIEW_PLAN, known) == known.over[0]
    assert event_over.looks_forward("ask how the interviews went", known) == known.over[0]  # stemmed
    assert event_over.looks_forward("ask Sam how the new job is going", known) is None
    assert event_over.stale_reason(["Good luck for Thursday!", "How did the interview go?"], known) == (
        "event_over: fact 1 (happened)"  # ids and codes: the event's name is the user's words, never logged
    )


@pytest.mark.domain
def test_a_second_interview_announced_since_keeps_a_plan_about_an_interview():
    assert event_over.looks_forward(INTERVIEW_PLAN, over("job interview", live=("second interview",))) is None


@pytest.mark.domain
@pytest.mark.parametrize(
    ("outcome", "over_heads"),
    [
        (WENT_GREAT, ["interview"]),
        ("It went great! I start next month", ["interview"]),  # names no event: the one announced before it
        ("sie haben es abgesagt", ["interview"]),  # German, read by the readers' vector reader
        ("ya pasó, me fue bien", ["interview"]),
        ("I'm so nervous about it", []),
        ("the interview will go fine, I hope", []),
    ],
)
def test_the_transcript_says_an_announced_event_is_over_in_any_of_the_readers_languages(outcome, over_heads):
    transcript = [f"sam: {ANNOUNCED}", "Ella: Good luck!", f"sam: {outcome}"]
    assert event_over.over_in_transcript(transcript, "sam") == over_heads


@pytest.mark.domain
def test_an_event_announced_again_after_its_outcome_is_ahead_again():
    transcript = [f"sam: {ANNOUNCED}", f"sam: {WENT_GREAT}", "sam: and the second interview is on Friday"]
    assert event_over.over_in_transcript(transcript, "sam") == []


@pytest.mark.domain
@pytest.mark.parametrize("outcome", [WENT_GREAT, "sie haben es abgesagt"])
def test_a_plan_written_after_the_interview_went_great_never_asks_how_it_will_go_offline(outcome):
    transcript = [f"sam: {ANNOUNCED}", "Ella: Good luck!", f"sam: {outcome}"]
    plan = offline.plan("sam", transcript)
    assert "interview" not in plan and plan.startswith("next time"), plan
    assert offline.plan_until("sam", transcript, datetime(2026, 12, 1).date()) is None
    before = offline.plan("sam", transcript[:2])  # before the outcome, the follow-up stands
    assert before == INTERVIEW_PLAN


# --- the close: at write --------------------------------------------------------------------------------------------

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)  # a Tuesday: the interview is on Thursday 3 December


def converse(user: str, *lines: str) -> int:
    """One conversation of ``user``'s turns (each answered), closed 30 minutes after the last; its id."""
    conversation_id = 0
    for i, text in enumerate(lines):
        with session_scope() as s:
            record = store_exchange(s, message_id=f"{user}-{i}", user_id=user, text=text,
                                    sent_at=T0 + timedelta(minutes=5 * i), external_conversation_id=None,
                                    reply=OutgoingReply("I see."), timeout=timedelta(minutes=30), user_defaults={},
                                    task_id=None).record  # fmt: skip
            conversation_id = record.conversation_id
    with session_scope() as s:
        conv = s.get_one(Conversation, conversation_id)
        conv.closed_at, conv.close_reason = T0 + timedelta(minutes=5 * len(lines) + 30), "inactive"
    return conversation_id


def retired_interview(user: str, because: str = "happened") -> int:
    """The user's interview in the ledger, retired as extraction retires it (``ella.ledger.consolidation``)."""
    opens = datetime(2026, 12, 4, tzinfo=UTC)
    new = NewFact("user", "has_upcoming", "job interview", "user_claim", followup_after=opens,
                  followup_until=opens + timedelta(days=3))  # fmt: skip
    with session_scope() as s:
        fact = append(s, user, new, Writer.USER, T0)
        assert fact is not None
        retire(s, user, fact.id, Writer.USER, RETIRE_REASONS[because], T0 + timedelta(minutes=10), outcome="done")
        return fact.id


def a_model_that_plans(plan: str) -> ModelPort:
    """A model that writes ``plan`` whatever the transcript says (the prompt asks it not to; it may anyway)."""
    seen = {"score": 3, "subject": "Ella", "predicate": "will", "object": "ask"}
    answer = {"memo": "talked with sam about the interview.", "memo_perception": seen, "plan": plan,
              "plan_perception": seen, "until": None}  # fmt: skip
    return ModelPort(Scripted(lambda request: json.dumps(answer)), TIERS)


def close(conversation_id: int) -> int:
    from tasks.conversations import close_conversation

    return close_conversation.apply(kwargs={"conversation_id": conversation_id}).get()


def plans_of(user: str) -> list[str]:
    with autocommit_scope() as s:
        query = select(MemoryNode.description).where(MemoryNode.user_id == user, MemoryNode.dedupe_key.like("plan:%"))
        return list(s.scalars(query))


def test_a_plan_written_after_the_interview_went_great_never_asks_how_it_went(migrated_db, monkeypatch):
    """The Anthropic path: the model still writes the interview plan; the ledger says the interview is over."""
    import tasks.conversations

    user = f"np-{uuid.uuid4().hex[:6]}"
    conversation = converse(user, ANNOUNCED, WENT_GREAT)
    retired_interview(user)
    monkeypatch.setattr(tasks.conversations, "get_port", lambda: a_model_that_plans(INTERVIEW_PLAN))

    assert close(conversation) == 1  # the memo only
    assert plans_of(user) == []


def test_a_plan_after_they_called_it_off_in_german_is_not_stored_even_before_the_ledger_knows(migrated_db, monkeypatch):
    """Nothing in the ledger: the transcript alone says the interview is off, in German."""
    import tasks.conversations

    user = f"np-{uuid.uuid4().hex[:6]}"
    conversation = converse(user, ANNOUNCED, "sie haben es abgesagt")
    monkeypatch.setattr(tasks.conversations, "get_port", lambda: a_model_that_plans(INTERVIEW_PLAN))

    assert close(conversation) == 1
    assert plans_of(user) == []


def test_the_offline_close_after_the_outcome_plans_something_else_and_before_it_plans_the_follow_up(migrated_db):
    told, waiting = f"np-{uuid.uuid4().hex[:6]}", f"np-{uuid.uuid4().hex[:6]}"
    told_conversation = converse(told, ANNOUNCED, WENT_GREAT)
    retired_interview(told)
    waiting_conversation = converse(waiting, ANNOUNCED)

    assert close(told_conversation) == 2 and close(waiting_conversation) == 2
    (plan,) = plans_of(told)
    assert "interview" not in plan, plan
    assert plans_of(waiting) == [f"For Ella's planning: {INTERVIEW_PLAN.replace('sam', waiting)}"]


# --- the digest: at write -------------------------------------------------------------------------------------------

NOW = datetime.now(UTC).replace(microsecond=0)


@pytest.fixture
def digest_tasks() -> None:
    import tasks.digest  # noqa: F401  (registers the planner and the handler)


def digest_user() -> str:
    """A user whose local day has just begun (it is about noon for them) and whose last digest was yesterday."""
    from ella.jobs import Job
    from models.runs import set_marks

    user = f"nd-{uuid.uuid4().hex[:8]}"
    with session_scope() as s:
        s.add(User(id=user, created_at=NOW - timedelta(days=60), notifications_enabled=True, timezone=noon(NOW)))
        s.flush()
        set_marks(s, Job.DIGEST, {user: (NOW - timedelta(days=1)).date().isoformat()}, NOW - timedelta(days=1))
    return user


def noon(now: datetime) -> str:
    offset = max(-12, min(14, 12 - now.hour))
    return f"Etc/GMT{-offset:+d}" if offset else "UTC"


def add_plan(user: str, text: str, made: datetime) -> int:
    """A planning thought as a conversation's close stores it (dedupe key ``plan:<conversation>``)."""
    node = MemoryNode(
        user_id=user, node_type="thought", created_at=made, expires_at=made + timedelta(days=30),
        last_accessed_at=made, subject="Ella", predicate="will ask", object="about it",
        description=f"For Ella's planning: {text}", embedding=b"\0" * 16, embedding_model="test", poignancy=4,
        depth=1, evidence="[]", dedupe_key=f"plan:{uuid.uuid4().hex}",
    )  # fmt: skip
    with session_scope() as s:
        s.add(node)
        s.flush()
        return node.id


def interview_over(user: str, at: datetime, because: str = "happened") -> int:
    opens = at + timedelta(days=1)
    new = NewFact("user", "has_upcoming", "job interview", "user_claim", followup_after=opens,
                  followup_until=opens + timedelta(days=3))  # fmt: skip
    with session_scope() as s:
        fact = append(s, user, new, Writer.USER, at - timedelta(hours=2))
        assert fact is not None
        retire(s, user, fact.id, Writer.USER, RETIRE_REASONS[because], at, outcome="it went great")
        return fact.id


def plan_digest_for(user: str) -> Any:
    from ella.jobs import Job, Member, period_of
    from tasks.digest import plan_digest

    zone = noon(NOW)
    from zoneinfo import ZoneInfo

    period = period_of(Job.DIGEST, NOW.astimezone(ZoneInfo(zone)).date(), ZoneInfo(zone))
    with autocommit_scope() as s:
        return plan_digest(s, [Member(user, zone, period)], NOW)


def candidates(user: str) -> list[NotificationCandidate]:
    with autocommit_scope() as s:
        query = select(NotificationCandidate).where(NotificationCandidate.user_id == user)
        return list(s.scalars(query.order_by(NotificationCandidate.id)))


def test_the_digest_does_not_offer_a_plan_about_an_interview_the_user_said_went_great(migrated_db, digest_tasks):
    user = digest_user()
    interview_over(user, NOW - timedelta(hours=3))
    add_plan(user, INTERVIEW_PLAN, NOW - timedelta(hours=1))  # written after the outcome, as the close did
    kept = add_plan(user, "ask sam how the new job is going", NOW - timedelta(hours=1))

    (request,) = plan_digest_for(user).requests
    assert [p["id"] for p in request.variables["plans"]] == [kept]
    assert request.context["thoughts"] == [kept]


def test_a_user_whose_only_news_is_a_stale_plan_gets_no_digest_request(migrated_db, digest_tasks):
    user = digest_user()
    interview_over(user, NOW - timedelta(hours=3))
    add_plan(user, INTERVIEW_PLAN, NOW - timedelta(hours=1))

    chunk = plan_digest_for(user)
    assert chunk.requests == [] and chunk.idle == 1


def scripted_digest(answer: Callable[[CompletionRequest], dict[str, Any]]) -> ModelPort:
    return ModelPort(Scripted(lambda request: json.dumps(answer(request))), TIERS)


def test_a_digest_answer_that_comes_back_after_the_outcome_is_kept_skipped_with_the_reason(migrated_db, digest_tasks):
    """The request offered the plan (the outcome was not told yet); the batch answers after it was."""
    user = digest_user()
    plan = add_plan(user, INTERVIEW_PLAN, NOW - timedelta(hours=5))
    chunk = plan_digest_for(user)
    with session_scope() as s:
        batches.submit("digest", chunk.requests, session=s)
    fact = interview_over(user, NOW - timedelta(minutes=5))  # told while the batch was out

    asks = {"say": True, "text": "How did the interview go? I've been thinking of you.", "cites": {"thoughts": [plan]}}
    batches.flush_pending(scripted_digest(lambda request: asks))

    (made,) = candidates(user)
    assert (made.status, made.reason) == ("skipped", f"event_over: fact {fact} (happened)")


# --- the dispatcher: at send ----------------------------------------------------------------------------------------


def add_candidate(user: str, now: datetime, body: str, *, thoughts: tuple[int, ...] = (), kind: str = "digest") -> int:
    with session_scope() as s:
        row = NotificationCandidate(
            user_id=user, kind=kind, body=body, based_on=based_on_json([], [], list(thoughts)),
            created_at=now - timedelta(hours=1), fresh_until=now + timedelta(hours=10),
            not_before=now - timedelta(minutes=1), status="candidate", dedupe_key=f"test:{uuid.uuid4().hex}",
        )  # fmt: skip
        s.add(row)
        s.flush()
        return row.id


def dispatch_user(now: datetime) -> str:
    user = f"nn-{uuid.uuid4().hex[:8]}"
    with session_scope() as s:
        s.add(User(id=user, created_at=now - timedelta(days=10), last_seen_at=now, timezone=noon(now)))
    return user


def candidate(candidate_id: int) -> NotificationCandidate:
    with autocommit_scope() as s:
        return s.get_one(NotificationCandidate, candidate_id)


def test_a_plan_written_before_the_outcome_is_not_sent_after_it(migrated_db, outbox):
    from tasks.notifications import dispatch

    now = datetime.now(UTC)
    user = dispatch_user(now)
    plan = add_plan(user, INTERVIEW_PLAN, now - timedelta(days=2))  # before the outcome
    made = add_candidate(user, now, "I was thinking of you today and wondered how things are going.", thoughts=(plan,))
    fact = interview_over(user, now - timedelta(hours=1))  # the digest was made; then the user told the outcome

    counts = dispatch(now)

    row = candidate(made)
    assert (row.status, row.reason) == ("skipped", f"event_over: fact {fact} (happened)")
    assert counts.get("event_over") == 1 and counts.get("ended", 0) >= 1 and not counts.get("sent")


def test_a_notification_looking_forward_to_an_interview_called_off_in_german_is_not_sent(migrated_db, outbox):
    """The outcome in German, through extraction on the offline engine: "sie haben es abgesagt" retires the
    interview as withdrawn, and the dispatcher holds back what still wishes luck for it."""
    from tasks.ledger import extract_facts
    from tasks.notifications import dispatch

    now = datetime.now(UTC)
    user = dispatch_user(now)
    sent_at = now - timedelta(hours=3)
    told = {"user_id": user, "message_id": f"{user}-1", "text": "I have a job interview tomorrow",
            "sent_at": sent_at.isoformat()}  # fmt: skip
    assert extract_facts.apply(kwargs=told).get() == {"appended": 1}
    wishes = add_candidate(user, now, "Good luck at the interview tomorrow! You've got this.")
    other = add_candidate(dispatch_user(now), now, "Good luck at the interview tomorrow! You've got this.")
    off = {**told, "message_id": f"{user}-2", "text": "sie haben es abgesagt",
           "sent_at": (now - timedelta(hours=1)).isoformat()}  # fmt: skip
    assert extract_facts.apply(kwargs=off).get() == {"retired": 1}
    with autocommit_scope() as s:
        fact = s.scalars(select(WorldFact).where(WorldFact.user_id == user, WorldFact.subject == "user")).one()

    dispatch(now)

    assert (candidate(wishes).status, candidate(wishes).reason) == (
        "skipped",
        f"event_over: fact {fact.id} (withdrawn)",
    )
    assert candidate(other).status == "sent"  # another user's interview is not over


@pytest.mark.domain
def test_the_cadence_rules_end_a_candidate_that_looks_forward_to_an_event_that_is_over_even_while_it_waits():
    from zoneinfo import ZoneInfo

    from ella.notifications.policy import CandidateState, Hold, Recipient, Status, Window, decide, reason_of

    now = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
    user = Recipient(ZoneInfo("UTC"), Window(9 * 60, 21 * 60), None, last_notified_at=now - timedelta(hours=1))
    why = "event_over: fact 7 (happened)"
    decision = decide(CandidateState("candidate", now + timedelta(days=1)), user, now, [], [], event_over=why)
    assert (decision.hold, decision.final_status) == (Hold.EVENT_OVER, Status.SKIPPED)  # not "min_gap": it ends
    assert reason_of(decision, [], [], why) == why


def test_a_follow_up_body_that_wishes_luck_for_an_interview_already_over_is_made_skipped(migrated_db, monkeypatch):
    """The write side of the dispatch: the body is checked against the ledger when the follow-up is made."""
    import tasks.followups
    from tasks.followups import make_followups

    now = datetime.now(UTC)
    user = dispatch_user(now)
    fact = interview_over(user, now - timedelta(hours=2))
    opened = now - timedelta(hours=1)
    dentist = NewFact("user", "has_upcoming", "dentist appointment", "user_claim", followup_after=opened,
                      followup_until=opened + timedelta(days=3))  # fmt: skip
    with session_scope() as s:
        assert append(s, user, dentist, Writer.USER, now - timedelta(days=1)) is not None
    body = {"text": "Hope the dentist was painless! And good luck with the interview."}
    port = ModelPort(Scripted(lambda request: json.dumps(body)), TIERS)
    monkeypatch.setattr(tasks.followups, "get_port", lambda: port)

    counts = make_followups.apply(kwargs={"at": now.isoformat()}).get()

    (made,) = candidates(user)
    assert (made.status, made.reason) == ("skipped", f"event_over: fact {fact} (happened)")
    assert counts.get("event_over") == 1

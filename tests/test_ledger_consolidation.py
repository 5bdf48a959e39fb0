"""Consolidated facts: a statement is decided against the user's live facts (add, update, retire, none), subjects
converge on one person, and an event the user told the outcome of is retired: nothing looks forward to it.

The story pinned end to end (the demo's stale digest): "I have a job interview tomorrow", then "The interview
went great!": the interview is retired with its outcome and the day's digest wishes no luck for it; a follow-up
made before the outcome is not sent.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import select

from adapters.db import autocommit_scope, session_scope
from adapters.settings import Settings
from ella.ledger import consolidation, subjects
from ella.ledger.consolidation import Statement
from ella.ledger.extraction import Action
from ella.ledger.facts import NewFact
from ella.llm import offline
from ella.llm.kinds import ExtractedFact, FactExtraction
from ella.llm.offline import OfflineProvider
from ella.llm.port import ModelPort
from ella.llm.types import CompletionRequest
from models import NotificationCandidate, User, WorldFact
from models.ledger import events, history
from tests.conftest import wait_for
from tests.support.scripted import Scripted

T0 = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)  # a Sunday
UTC_ZONE = ZoneInfo("UTC")


@dataclass
class Fact:
    id: int
    subject: str
    predicate: str
    object: str
    tier: str = "user_claim"
    status: str = "active"
    written_by: str = "user"
    recorded_at: datetime = T0
    valid_from: datetime = T0
    followup_after: datetime | None = None
    followup_until: datetime | None = None
    user_id: str = "u1"
    confidence: float = 0.9
    note: str = ""


def said(action: str = "add", fact_id: int | None = None, **fact: object) -> Statement:
    values = {"subject": "user", "predicate": "has_upcoming", "object": "job interview", "tier": "user_claim",
              "confidence": 0.9, "action": action, "fact_id": fact_id, **fact}  # fmt: skip
    extracted = ExtractedFact.model_validate(values)
    new = NewFact(extracted.subject, extracted.predicate, extracted.object, extracted.tier)
    return Statement(extracted, new)


INTERVIEW = Fact(7, "user", "has_upcoming", "job interview", followup_after=T0 + timedelta(days=2),
                 followup_until=T0 + timedelta(days=5))  # fmt: skip


# --- subjects converge ------------------------------------------------------------------------------------------


@pytest.mark.domain
@pytest.mark.parametrize(
    ("subject", "key"),
    [
        ("user.My Big Sis", "user.sister"),
        ("user.mum", "user.mother"),
        ("user.Mom", "user.mother"),
        ("user.little-brother", "user.brother"),
        ("user.sister.job", "user.sister.job"),
        ("user.favourite_food", "user.favourite_food"),
        ("ellahome.exterior.door", "ellahome.exterior.door"),  # not the user's: left for the trust rules
    ],
)
def test_relation_words_have_one_canonical_spelling(subject, key):
    assert subjects.subject_key(subject) == key


@pytest.mark.domain
def test_a_sister_is_one_subject_however_she_is_named():
    known = subjects.people([Fact(1, "user.sister", "name", "Maya"), Fact(2, "user.job", "is", "teacher")])
    assert subjects.converge("user.sibling", "name", "Maya", known) == "user.sister"
    assert subjects.converge("user.maya", "likes", "tea", known) == "user.sister"
    assert subjects.converge("user.sis", "is", "Maya", known) == "user.sister"
    assert subjects.converge("user.sibling", "helps_with", "practice", known) == "user.sister"  # the one sibling
    assert subjects.converge("user.sister_maya.job", "is", "nurse", known) == "user.sister.job"
    assert subjects.converge("user.brother", "name", "Maya", known) == "user.brother"  # not kin of a sister
    assert subjects.converge("user.work", "is", "busy", known) == "user.work"  # a topic is no person
    # named first as a sibling: the later sister of that name is her
    first = subjects.people([Fact(1, "user.sibling", "name", "Maya")])
    assert subjects.converge("user.sister", "name", "Maya", first) == "user.sibling"


@pytest.mark.domain
def test_a_neutral_word_or_a_friend_converges_on_nobody_when_it_could_be_several():
    two = subjects.people([Fact(1, "user.sister", "name", "Maya"), Fact(2, "user.brother", "name", "Tom")])
    assert subjects.converge("user.sibling", "lives_in", "Leeds", two) == "user.sibling"
    friends = subjects.people([Fact(1, "user.friend", "name", "Jo")])
    assert subjects.converge("user.mate", "lives_in", "Leeds", friends) == "user.friend"  # the same word, its key
    assert subjects.converge("user.friend_sam", "lives_in", "Leeds", friends) == "user.friend_sam"  # another friend


# --- what the request shows, and what a statement does -----------------------------------------------------------


@pytest.mark.domain
def test_extraction_is_shown_the_open_events_and_the_facts_the_message_touches_not_canon_or_the_rest():
    live = [
        INTERVIEW,
        Fact(8, "user.sister", "name", "Maya"),
        Fact(9, "user", "lives_in", "Leeds"),
        Fact(10, "ellahome.exterior.door_color", "color", "red", tier="canon", written_by="anchor"),
        Fact(11, "user.sister", "helps_with", "practice", status="superseded"),
    ]
    shown = consolidation.shown(live, "My sis came over to help", T0)
    assert [f.id for f in shown] == [7, 8]
    (line, _) = consolidation.known_variables(shown, UTC_ZONE, T0)
    assert line == {"id": 7, "subject": "user", "predicate": "has_upcoming", "object": "job interview",
                    "event_day": "2026-11-30 (Monday), still ahead"}  # fmt: skip


@pytest.mark.domain
def test_an_id_that_was_not_shown_is_never_acted_on():
    answer = {"facts": [
        {**said().extracted.model_dump(mode="json"), "action": "retire", "fact_id": 3},
        {**said().extracted.model_dump(mode="json"), "action": "update", "fact_id": 3},
        {**said().extracted.model_dump(mode="json"), "action": "retire", "fact_id": 7},
    ]}  # fmt: skip
    parsed = FactExtraction.model_validate(answer, context={"known_ids": [7]})
    assert [(f.action, f.fact_id) for f in parsed.facts] == [("none", None), ("add", None), ("retire", 7)]


@pytest.mark.domain
def test_a_retirement_keeps_its_reason_and_outcome_and_only_the_users_own_fact_is_retired():
    canon = Fact(1, "ellahome.exterior.door_color", "color", "red", tier="canon", written_by="anchor")
    live = [INTERVIEW, canon]
    placed = consolidation.decide(said("retire", 7, because="happened", outcome="went great"), live)
    assert (placed.action, placed.replaces, placed.outcome) == (Action.RETIRE, 7, "went great")
    assert placed.reason == consolidation.RETIRE_REASONS["happened"]
    withdrawn = consolidation.decide(said("retire", 7, because="withdrawn", outcome="they cancelled it"), live)
    assert withdrawn.reason == consolidation.RETIRE_REASONS["withdrawn"]
    assert consolidation.decide(said("retire", 1), live).action == Action.KNOWN  # canon: nothing changes
    assert consolidation.decide(said("retire", 99), live).action == Action.KNOWN  # gone since: nothing


@pytest.mark.domain
def test_an_update_supersedes_only_the_users_own_fact_on_the_same_subject_and_never_by_a_weaker_tier():
    city = Fact(3, "user", "lives_in", "Leeds")
    sister = Fact(4, "user.sister", "lives_in", "Hull")
    live = [city, sister]
    moved = consolidation.decide(said("update", 3, predicate="lives_in", object="York"), live)
    assert (moved.action, moved.replaces) == (Action.SUPERSEDE, 3)
    assert consolidation.decide(said("update", 3, predicate="lives_in", object="leeds"), live).action == Action.KNOWN
    # another subject: not this fact's to replace; placed as an add would be (beside it)
    other = consolidation.decide(said("update", 4, predicate="lives_in", object="York"), live)
    assert (other.action, other.replaces) == (Action.SUPERSEDE, 3)  # the user's own city claim, by the add rule
    guess = consolidation.decide(said("update", 3, predicate="lives_in", object="York", tier="inferred"), live)
    assert guess.action == Action.APPEND  # an inference sits beside what the user said


@pytest.mark.domain
@pytest.mark.parametrize(
    ("message", "retired"),
    [
        ("The interview went great! They want me back for a second round", "happened"),
        ("I nailed my interview", "happened"),
        ("The interview got cancelled", "withdrawn"),
        ("I was so nervous about the interview on Monday", None),
        ("My interview is on Friday now, they moved it", None),
        ("the interview will go fine", None),
        ("It went great!", None),  # no event named, and the interview's day has not come
    ],
)
def test_the_offline_engine_retires_a_known_event_on_a_past_tense_outcome(message, retired):
    known = [{"id": 7, "subject": "user", "predicate": "has_upcoming", "object": "job interview",
              "event_day": "2026-12-03 (Thursday), still ahead"}]  # fmt: skip
    found = [f for f in offline.facts(message, date(2026, 11, 30), known) if f.get("action") == "retire"]
    assert [f.get("because") for f in found] == ([retired] if retired else [])
    if retired:
        assert found[0]["fact_id"] == 7 and found[0]["outcome"] == message
    after = offline.facts("It went great! They offered me the job", date(2026, 12, 4), known)
    assert [(f["action"], f["fact_id"]) for f in after] == [("retire", 7)]  # its day has come: "it" is the event


# --- through the extraction task ---------------------------------------------------------------------------------


def make_user(timezone: str = "UTC") -> str:
    user = f"c-{uuid.uuid4().hex[:8]}"
    with session_scope() as s:
        s.add(User(id=user, timezone=timezone, created_at=T0 - timedelta(days=30)))
    return user


def extract(user: str, text: str, at: datetime) -> dict[str, int]:
    from tasks.ledger import extract_facts

    kwargs = {"user_id": user, "message_id": uuid.uuid4().hex, "text": text, "sent_at": at.isoformat()}
    return extract_facts.apply(kwargs=kwargs).get()


def user_facts(user: str) -> list[WorldFact]:
    with autocommit_scope() as s:
        return [f for f in history(s, user) if f.subject.startswith("user")]


def test_an_event_the_user_told_the_outcome_of_is_retired_with_it_and_its_history_kept(migrated_db, monkeypatch):
    import tasks.ledger

    recorder = Scripted(lambda request: OfflineProvider().complete(request).text)  # the offline rules, recorded
    monkeypatch.setattr(tasks.ledger, "get_port", lambda: ModelPort(recorder, Settings().model_tiers))
    user = make_user()
    assert extract(user, "I have a job interview on Monday", T0) == {"appended": 1}
    (interview,) = user_facts(user)
    assert extract(user, "The interview went great! They want me back for a second round", T0 + timedelta(days=1)) \
        == {"retired": 1}  # fmt: skip

    told: CompletionRequest = recorder.requests[-1]
    assert [k["id"] for k in told.variables["known"]] == [interview.id]  # shown with its id
    assert f"id: {interview.id}" in told.messages[-1].blocks[0].text
    (fact,) = user_facts(user)
    assert (fact.status, fact.outcome) == ("retired", "The interview went great! They want me back for a second round")
    assert fact.status_note == consolidation.RETIRE_REASONS["happened"] and fact.retired_at is not None
    with autocommit_scope() as s:
        (event,) = events(s, user, [fact.id])
    assert (event.from_status, event.to_status, event.writer) == ("active", "retired", "user")
    # told again, nothing more happens: the event is no longer live, so it is not shown or retired twice
    assert extract(user, "The interview went great!", T0 + timedelta(days=1, hours=1)) == {}
    assert recorder.requests[-1].variables["known"] == []


def test_my_sister_maya_and_my_sibling_maya_are_one_fact(migrated_db):
    user = make_user()
    assert extract(user, "I practised with my sister Maya today", T0) == {"appended": 1}
    assert extract(user, "My sibling Maya says hi", T0 + timedelta(hours=1)) == {"known": 1}
    assert extract(user, "my sis is Maya", T0 + timedelta(hours=2)) == {"known": 1}
    assert [(f.subject, f.predicate, f.object) for f in user_facts(user)] == [("user.sister", "name", "Maya")]


def test_a_model_naming_a_canon_fact_to_retire_or_update_changes_nothing(migrated_db, monkeypatch):
    import tasks.ledger
    from models.ledger import current
    from models.world_clock import advance_world

    user = make_user()
    with session_scope() as s:
        advance_world(s, user, T0)
    with autocommit_scope() as s:
        door = next(f for f in current(s, user, "ellahome") if f.predicate == "color")
    attack = [
        {"subject": "user", "predicate": "said", "object": "x", "tier": "user_claim", "confidence": 0.9,
         "action": "retire", "fact_id": door.id, "because": "withdrawn"},
        {"subject": door.subject, "predicate": "color", "object": "blue", "tier": "user_claim", "confidence": 0.9,
         "action": "update", "fact_id": door.id},
    ]  # fmt: skip
    model = Scripted(lambda request: json.dumps({"facts": attack}))
    monkeypatch.setattr(tasks.ledger, "get_port", lambda: ModelPort(model, Settings().model_tiers))
    counts = extract(user, "I think the door should be blue", T0 + timedelta(hours=1))
    assert counts == {"known": 1, "refused_not_about_user": 1}
    assert all(k["subject"].startswith("user") for k in model.requests[0].variables["known"])
    with autocommit_scope() as s:
        assert s.get_one(WorldFact, door.id).status == "active" and s.get_one(WorldFact, door.id).object == "red"


# --- the story: nothing looks forward to an event that happened ------------------------------------------------------


def candidates(user: str) -> list[NotificationCandidate]:
    with autocommit_scope() as s:
        stmt = select(NotificationCandidate).where(NotificationCandidate.user_id == user)
        return list(s.scalars(stmt.order_by(NotificationCandidate.id)))


def test_a_follow_up_made_before_the_outcome_was_told_is_not_sent(migrated_db):
    from tasks.followups import make_followups
    from tasks.notifications import dispatch

    user = make_user()
    with session_scope() as s:
        s.get_one(User, user).last_seen_at = T0
    assert extract(user, "My interview is on Thursday!", T0) == {"appended": 1}  # Thursday 3 December
    friday = datetime(2026, 12, 4, 12, 0, tzinfo=UTC)
    assert make_followups.apply(kwargs={"at": (friday - timedelta(hours=2)).isoformat()}).get()["made"] == 1
    assert extract(user, "It went great! They offered me the job", friday - timedelta(hours=1)) == {"retired": 1}

    dispatch(friday)
    (made,) = candidates(user)
    assert made.status == "skipped" and made.reason.startswith("grounds_gone")
    assert make_followups.apply(kwargs={"at": friday.isoformat()}).get()["facts"] == 0


@pytest.mark.integration
def test_the_days_digest_does_not_look_forward_to_an_interview_the_user_said_went_great(start_worker):
    """Through the real worker (ingest, reply, extraction), then the day's digest by the job's planner and the
    Batches service on the offline engine: the user who told the outcome gets no "ahead of your job interview";
    the one who did not still does (so the test can fail)."""
    from adapters import model_batches
    from ella.jobs import Job, Member, period_of
    from gateway.client import enqueue_message
    from tasks.digest import plan_digest

    start_worker()
    now = datetime.now(UTC).replace(microsecond=0)
    told, waiting = f"cs-{uuid.uuid4().hex[:6]}", f"cw-{uuid.uuid4().hex[:6]}"

    def dated(user: str) -> list[WorldFact]:
        with autocommit_scope() as s:
            query = select(WorldFact).where(WorldFact.user_id == user, WorldFact.followup_after.is_not(None))
            return list(s.scalars(query))

    for user in (told, waiting):
        enqueue_message(message_id=f"{user}-1", user_id=user, text="I have a job interview tomorrow",
                        sent_at=now - timedelta(hours=2))  # fmt: skip
    for user in (told, waiting):
        wait_for(lambda u=user: dated(u), 60, what="the upcoming interview in the ledger")
    enqueue_message(message_id=f"{told}-2", user_id=told, text="The interview went great! They want me back",
                    sent_at=now - timedelta(hours=1))  # fmt: skip
    wait_for(lambda: [f for f in dated(told) if f.status == "retired"], 60, what="the interview retired")

    period = period_of(Job.DIGEST, now.date(), UTC_ZONE)
    with session_scope() as s:
        plan = plan_digest(s, [Member(told, "UTC", period), Member(waiting, "UTC", period)], now)
        model_batches.submit(Job.DIGEST.value, plan.requests, session=s)
    model_batches.flush_pending(ModelPort(OfflineProvider(), Settings().model_tiers))

    (ahead,) = candidates(waiting)
    assert ahead.body == "Thinking of you ahead of your job interview. I hope it goes well."
    for made in candidates(told):  # it may ask how things are going; it never wishes luck for the past
        assert "ahead of" not in made.body and "hope it goes" not in made.body, made.body
        assert made.fact_ids == []
    (retired,) = dated(told)
    assert retired.outcome == "The interview went great! They want me back"

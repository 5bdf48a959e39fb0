"""Making notification candidates: follow-ups on the user's dated events, and generic warm check-ins."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import select

from adapters.db import autocommit_scope, session_scope
from adapters.settings import Settings, get_settings
from ella.guard import Category, classify
from ella.ledger.rules import Writer
from ella.llm.port import ModelPort
from ella.llm.types import CompletionRequest, PermanentModelError, TransientModelError
from ella.notifications import followups, generic
from ella.notifications.generic import QuietState
from ella.notifications.policy import Kind
from models import BoundaryEvent, DeadLetter, NotificationCandidate, SelfLogEntry, User
from models.ledger import NewFact, append, retire
from models.notifications import add_candidate
from models.selflog import add_entries
from models.supersession import supersede
from tests.support.scripted import Scripted

# The interview was on Thursday 3 December 2026; its follow-up window is Friday 00:00 to Monday 00:00 (UTC).
OPENS = datetime(2026, 12, 4, 0, 0, tzinfo=UTC)
CLOSES = OPENS + timedelta(days=3)
FRIDAY = datetime(2026, 12, 4, 12, 0, tzinfo=UTC)
FINE = "How did your interview go? I've been thinking of you."


def says(text: str) -> Callable[[CompletionRequest], str]:
    return lambda request: json.dumps({"text": text})


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> Callable[[Callable[[CompletionRequest], str]], Scripted]:
    import tasks.followups

    def use(answer: Callable[[CompletionRequest], str]) -> Scripted:
        provider = Scripted(answer)
        port = ModelPort(provider, Settings().model_tiers, max_repairs=1)
        monkeypatch.setattr(tasks.followups, "get_port", lambda: port)
        return provider

    return use


def make_user(
    *,
    created: datetime = FRIDAY - timedelta(days=60),
    seen: datetime | None = FRIDAY - timedelta(days=1),
    notified: datetime | None = None,
    notifications: bool = True,
) -> str:
    user = f"f-{uuid.uuid4().hex[:8]}"
    with session_scope() as s:
        s.add(
            User(
                id=user,
                created_at=created,
                last_seen_at=seen,
                last_notified_at=notified,
                notifications_enabled=notifications,
            )
        )
    return user


def add_fact(
    user: str,
    *,
    subject: str = "user",
    predicate: str = "has_upcoming",
    obj: str = "interview",
    tier: str = "user_claim",
    opens: datetime = OPENS,
    closes: datetime = CLOSES,
    writer: Writer = Writer.USER,
) -> int:
    new = NewFact(subject, predicate, obj, tier, followup_after=opens, followup_until=closes)
    with session_scope() as s:
        fact = append(s, user, new, writer, FRIDAY - timedelta(days=5))
        assert fact is not None
        return fact.id


def say_to(user: str, content: str, at: datetime, about: tuple[str, ...] = ("user",)) -> int:
    with session_scope() as s:
        add_entries(s, user, at, [{"content": content, "about": list(about)}], source=f"m-{uuid.uuid4().hex[:6]}")
    with autocommit_scope() as s:
        stmt = select(SelfLogEntry.id).where(SelfLogEntry.user_id == user, SelfLogEntry.content == content)
        return s.scalars(stmt).one()


def run_followups(at: datetime = FRIDAY, **kwargs: object) -> dict[str, int]:
    from tasks.followups import make_followups

    return make_followups.apply(kwargs={"at": at.isoformat(), **kwargs}).get()


def run_generic(at: datetime) -> dict[str, int]:
    from tasks.followups import make_generic_checkins

    return make_generic_checkins.apply(kwargs={"at": at.isoformat()}).get()


def candidates(user: str) -> list[NotificationCandidate]:
    with autocommit_scope() as s:
        stmt = select(NotificationCandidate).where(NotificationCandidate.user_id == user)
        return list(s.scalars(stmt.order_by(NotificationCandidate.id)))


# --- follow-ups


def test_an_open_window_makes_one_candidate_citing_the_fact_and_the_self_log(migrated_db, model):
    provider = model(says(FINE))
    user = make_user()
    fact = add_fact(user)
    recent = say_to(user, "I told you I'd keep my fingers crossed for you on Thursday.", FRIDAY - timedelta(days=2))
    say_to(user, "I hope you sleep well before the big day.", FRIDAY - timedelta(days=9))  # older than 7 days
    say_to(user, "I walked to the loch this morning.", FRIDAY - timedelta(days=1), about=("loch",))  # not about them

    assert run_followups() == {"facts": 1, "users": 1, "made": 1}

    (made,) = candidates(user)
    assert (made.kind, made.status, made.body, made.reason) == ("followup", "candidate", FINE, None)
    assert made.fact_ids == [fact] and made.self_log_ids == [recent]
    assert made.fresh_until == CLOSES and made.not_before == FRIDAY and made.created_at == FRIDAY
    assert made.dedupe_key == f"followup:{fact}"
    (request,) = provider.requests
    assert (request.kind, request.tier, request.user_id) == ("notification_body", "digest", user)
    assert "interview" in request.messages[-1].blocks[0].text
    system = "\n".join(b.text for b in request.system)
    assert "fingers crossed" in system and "loch" not in system and "sleep well" not in system


def test_the_seeds_story_sunday_interview_on_thursday_is_followed_up_on_friday(migrated_db):
    from tasks.ledger import extract_facts

    user = make_user()
    sunday = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)
    text = "My interview is on Thursday!"
    kwargs = {"user_id": user, "message_id": "m-sunday", "text": text, "sent_at": sunday.isoformat()}
    assert extract_facts.apply(kwargs=kwargs).get() == {"appended": 1}

    run_followups(OPENS - timedelta(hours=12))  # Thursday: the interview may not have happened yet
    assert candidates(user) == []
    run_followups(FRIDAY)  # the offline engine writes the body
    (made,) = candidates(user)
    assert (made.status, made.body) == ("candidate", "How did your interview go? I've been thinking of you.")
    assert made.fresh_until == CLOSES


@pytest.mark.parametrize(
    ("at", "made"),
    [
        (OPENS - timedelta(minutes=1), 0),  # not yet open: the interview may not have happened
        (OPENS, 1),
        (CLOSES - timedelta(minutes=1), 1),
        (CLOSES, 0),  # closed: too stale to bring up
        (CLOSES + timedelta(days=10), 0),
    ],
)
def test_a_follow_up_is_made_only_inside_its_window(migrated_db, model, at, made):
    model(says(FINE))
    user = make_user()
    add_fact(user)
    run_followups(at)
    assert len(candidates(user)) == made


def test_a_superseded_or_retired_fact_makes_no_candidate(migrated_db, model):
    provider = model(says(FINE))
    user = make_user()
    moved = add_fact(user)
    gone = add_fact(user, obj="dentist appointment")
    later = OPENS + timedelta(days=7)
    with session_scope() as s:
        replacement = NewFact("user", "has_upcoming", "interview", "user_claim", followup_after=later,
                              followup_until=later + timedelta(days=3))  # fmt: skip
        supersede(s, user, moved, replacement, Writer.USER, FRIDAY - timedelta(days=1))
        retire(s, user, gone, Writer.OPERATOR, "the user cancelled it", FRIDAY - timedelta(days=1))

    assert run_followups()["facts"] == 0
    assert candidates(user) == [] and provider.requests == []


def test_a_claim_about_something_other_than_the_user_makes_no_candidate(migrated_db, model):
    model(says(FINE))
    user = make_user()
    add_fact(user, subject="ellahome.exterior.door_color", predicate="color", obj="blue")
    add_fact(user, subject="userland", predicate="visits", obj="a theme park")  # "user" is a prefix, not a subject
    sister = add_fact(user, subject="user.sister", predicate="has_upcoming", obj="wedding", tier="inferred")
    observed = add_fact(user, subject="user", predicate="ran", obj="the marathon", tier="observed",
                        writer=Writer.OPERATOR)  # fmt: skip

    run_followups()
    assert sorted(c.fact_ids[0] for c in candidates(user)) == [sister, observed]


def test_running_the_job_twice_makes_no_second_candidate(migrated_db, model):
    provider = model(says(FINE))
    user = make_user()
    add_fact(user)
    assert run_followups()["made"] == 1
    assert run_followups(FRIDAY + timedelta(hours=1)) == {"facts": 0, "users": 0}
    assert len(candidates(user)) == 1 and len(provider.requests) == 1


def test_a_user_with_notifications_off_is_not_asked_about(migrated_db, model):
    provider = model(says(FINE))
    user = make_user(notifications=False)
    add_fact(user)
    run_followups()
    assert candidates(user) == [] and provider.requests == []


def test_a_body_that_fires_the_guard_is_skipped_with_the_reason_and_logged(migrated_db, model):
    drift = "I love you so much. How did your interview go?"
    assert classify(drift, learned=False).category == Category.ROMANTIC_AVOWAL
    model(says(drift))
    user = make_user()
    add_fact(user)

    assert run_followups()["skipped"] == 1
    (held,) = candidates(user)
    assert held.status == "skipped"
    assert held.reason is not None and "romantic_avowal" in held.reason and "romance." in held.reason
    with autocommit_scope() as s:
        (event,) = s.scalars(select(BoundaryEvent).where(BoundaryEvent.user_id == user))
    assert (event.direction, event.category, event.message_id, event.text) == (
        "notification",
        "romantic_avowal",
        None,
        None,
    )
    assert event.rule.startswith("romance.")
    assert run_followups(FRIDAY + timedelta(hours=1))["facts"] == 0  # a skipped follow-up is not asked again


def test_a_failsafe_body_makes_no_candidate_and_the_next_pass_asks_again(migrated_db, model):
    provider = model(lambda request: "I'd rather not answer in JSON today.")
    user = make_user()
    add_fact(user)
    assert run_followups()["failsafe"] == 1
    assert candidates(user) == [] and len(provider.requests) == 2  # the first answer and its repair

    model(says(FINE))
    assert run_followups(FRIDAY + timedelta(minutes=15))["made"] == 1
    assert [c.body for c in candidates(user)] == [FINE]


def test_one_user_whose_model_refuses_does_not_stop_the_next_user(migrated_db, model):
    refused, fine = make_user(), make_user()

    def answer(request: CompletionRequest) -> str:
        if request.user_id == refused:
            raise PermanentModelError("400: the request was refused", status=400)
        return json.dumps({"text": FINE})

    model(answer)
    add_fact(refused, opens=OPENS - timedelta(hours=1))  # first in the page
    add_fact(fine)

    totals = run_followups()
    assert (totals["dead_lettered"], totals["made"]) == (1, 1)
    assert candidates(refused) == [] and [c.body for c in candidates(fine)] == [FINE]
    with autocommit_scope() as s:
        (letter,) = s.scalars(select(DeadLetter).where(DeadLetter.user_id == refused))
    assert letter.task_name == "ella.make_followups" and refused in letter.reason and "refused" in letter.reason


def test_a_transient_error_retries_the_page_without_asking_again_about_handled_facts(migrated_db, model):
    first, second = make_user(), make_user()
    failures = {"left": 1}

    def answer(request: CompletionRequest) -> str:
        if request.user_id == second and failures["left"]:
            failures["left"] -= 1
            raise TransientModelError("529: overloaded", status=529)
        return json.dumps({"text": FINE})

    provider = model(answer)
    add_fact(first, opens=OPENS - timedelta(hours=1))
    add_fact(second)

    run_followups()
    assert len(candidates(first)) == 1 and len(candidates(second)) == 1
    asked = [r.user_id for r in provider.requests]
    assert asked == [first, second, second]  # the retry did not ask about the first user's fact again


def test_the_run_goes_over_every_fact_in_keyset_pages(migrated_db, model, monkeypatch):
    import tasks.followups

    monkeypatch.setenv("ELLA_NOTIFICATION_PAGE", "2")
    get_settings.cache_clear()
    model(says(FINE))
    users = [make_user() for _ in range(7)]
    for i, user in enumerate(users):  # four facts open at the same moment (the id breaks the tie), three before
        add_fact(user, opens=OPENS - timedelta(hours=max(0, i - 3)))
    pages: list[dict[str, object]] = []
    monkeypatch.setattr(tasks.followups.make_followups, "apply_async", lambda kwargs, queue: pages.append(kwargs))

    run_followups()
    while pages:
        tasks.followups.make_followups.apply(kwargs=pages.pop()).get()
    assert [len(candidates(user)) for user in users] == [1] * 7


# --- generic check-ins


def test_generic_checkins_go_only_to_quiet_users_and_at_most_weekly(migrated_db):
    quiet = make_user(notified=FRIDAY - timedelta(days=10))
    never_notified = make_user()
    notified_lately = make_user(notified=FRIDAY - timedelta(days=3))
    newcomer = make_user(created=FRIDAY - timedelta(days=2))
    gone = make_user(seen=FRIDAY - timedelta(days=40))
    switched_off = make_user(notifications=False)
    waiting = make_user()
    with session_scope() as s:
        pending = followups.NewCandidate(waiting, Kind.FOLLOWUP, FINE, (1,), (), FRIDAY + timedelta(days=1),
                                         FRIDAY, f"test:{waiting}")  # fmt: skip
        add_candidate(s, pending, FRIDAY - timedelta(hours=1))

    run_generic(FRIDAY)
    made = {u: candidates(u) for u in (quiet, never_notified, notified_lately, newcomer, gone, switched_off)}
    assert {u for u, rows in made.items() if rows} == {quiet, never_notified}
    assert [c.kind for c in candidates(waiting)] == ["followup"]
    (checkin,) = made[quiet]
    assert (checkin.kind, checkin.status, checkin.fact_ids, checkin.self_log_ids) == ("generic", "candidate", [], [])
    assert checkin.body in generic.LINES and checkin.fresh_until == FRIDAY + timedelta(hours=12)
    assert checkin.dedupe_key == f"generic:{quiet}:2026-W49"

    run_generic(FRIDAY + timedelta(hours=6))  # the same week
    run_generic(FRIDAY + timedelta(days=4))  # another week, but only four days later
    assert len(candidates(quiet)) == 1
    run_generic(FRIDAY + timedelta(days=7))  # still quiet a week later: the next one
    assert [c.kind for c in candidates(quiet)] == ["generic", "generic"]


@pytest.mark.domain
def test_a_generic_line_is_stable_for_a_user_and_week_and_every_line_passes_the_guard():
    assert generic.pick_line("sam", FRIDAY) == generic.pick_line("sam", FRIDAY + timedelta(days=2))
    assert len({generic.pick_line(f"user-{i}", FRIDAY) for i in range(200)}) == len(generic.LINES)
    assert [line for line in generic.LINES if classify(line, learned=False).category != Category.OK] == []


@pytest.mark.domain
def test_a_newcomer_counts_as_notified_when_they_joined():
    def state(created: datetime) -> QuietState:
        return QuietState("sam", created, None, False, None)

    week = timedelta(days=7)
    assert not generic.due(state(FRIDAY - timedelta(days=2)), FRIDAY, week)
    assert generic.due(state(FRIDAY - timedelta(days=8)), FRIDAY, week)
    assert not generic.due(QuietState("sam", FRIDAY - timedelta(days=60), None, True, None), FRIDAY, week)


@pytest.mark.domain
@pytest.mark.parametrize(
    ("changes", "wanted"),
    [
        ({}, True),
        ({"tier": "inferred"}, True),
        ({"tier": "canon"}, True),
        ({"tier": "rumored"}, False),
        ({"status": "superseded"}, False),
        ({"status": "contested"}, False),
        ({"subject": "user.sister"}, True),
        ({"subject": "users"}, False),
        ({"subject": "ellahome.cat"}, False),
        ({"followup_after": None}, False),
    ],
)
def test_which_facts_are_followed_up(changes, wanted):
    fact = SimpleNamespace(
        **{
            "id": 1,
            "user_id": "sam",
            "tier": "user_claim",
            "status": "active",
            "subject": "user",
            "predicate": "has_upcoming",
            "object": "interview",
            "followup_after": OPENS,
            "followup_until": CLOSES,
            **changes,
        }
    )
    assert followups.wants_followup(fact, FRIDAY) is wanted


@pytest.mark.domain
def test_the_offline_engine_writes_a_plain_follow_up_grounded_in_the_fact():
    from ella.llm.kinds import NotificationBody
    from ella.llm.offline import OfflineProvider

    port = ModelPort(OfflineProvider(), Settings().model_tiers, max_repairs=0)
    fact = SimpleNamespace(id=1, user_id="sam", tier="user_claim", status="active", subject="user",
                           predicate="has_upcoming", object="job interview", followup_after=OPENS,
                           followup_until=CLOSES)  # fmt: skip
    result = port.call(NotificationBody, followups.body_variables("sam", fact, ZoneInfo("Europe/London"), FRIDAY))
    assert not result.failsafe
    assert result.value.text == "How did your job interview go? I've been thinking of you."
    assert classify(result.value.text, learned=False).category == Category.OK
    sister = SimpleNamespace(**{**vars(fact), "subject": "user.sister", "predicate": "moves_to", "object": "Leeds"})
    text = port.call(NotificationBody, followups.body_variables("sam", sister, ZoneInfo("UTC"), FRIDAY)).value.text
    assert "Leeds" in text and "?" in text

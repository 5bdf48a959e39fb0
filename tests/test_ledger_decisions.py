"""The ledger's decisions as plain Python: the world clock, where an extracted fact goes, what a verdict means."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from ella.ledger import contests, extraction, world_clock
from ella.ledger.anchors import AGE_SUBJECT, WEATHER_SUBJECT, weather_for
from ella.ledger.extraction import Action
from ella.ledger.facts import NewFact
from ella.ledger.rules import Writer
from ella.llm.kinds import ContestedVerdict, ExtractedFact
from ella.llm.port import ModelResult

pytestmark = pytest.mark.domain

T0 = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
UTC_ZONE = ZoneInfo("UTC")


@dataclass
class Fact:
    id: int
    subject: str
    object: str
    tier: str = "canon"
    predicate: str = "is"
    status: str = "active"
    valid_from: datetime = T0
    recorded_at: datetime = T0
    written_by: str = "anchor"
    confidence: float = 1.0
    note: str = ""
    followup_after: datetime | None = None


def anchored(at: datetime = T0) -> list[Fact]:
    return [Fact(1, WEATHER_SUBJECT, "overcast", valid_from=at), Fact(2, AGE_SUBJECT, "3", valid_from=at)]


def test_a_world_without_canon_gets_the_seeds_anchors_and_no_tick():
    writes = world_clock.due("u1", [Fact(9, "user.pet", "Rex", tier="user_claim")], UTC_ZONE, T0, None)
    assert {w.new.subject for w in writes} >= {"ellahome.exterior.door_color", WEATHER_SUBJECT, AGE_SUBJECT}
    assert all(w.writer == Writer.ANCHOR and w.replaces is None and w.new.tier == "canon" for w in writes)
    assert all(w.new.dedupe_key == f"anchor:u1:{w.new.subject}" for w in writes)


def test_nothing_is_due_on_the_local_day_the_weather_was_set():
    assert world_clock.due("u1", anchored(), UTC_ZONE, T0 + timedelta(hours=14), T0) == []


def test_the_users_next_local_day_brings_that_days_weather():
    tokyo = ZoneInfo("Asia/Tokyo")  # 2026-11-01 16:00 UTC is already 2 November in Tokyo
    (write,) = world_clock.due("u1", anchored(), tokyo, datetime(2026, 11, 1, 16, 0, tzinfo=UTC), T0)
    assert (write.writer, write.replaces, write.reason) == (Writer.WORLD_TICK, 1, "a new day")
    assert write.new.object == weather_for("u1", date(2026, 11, 2)) and write.new.dedupe_key == "weather:u1:2026-11-02"


def test_the_cats_birthday_is_due_a_year_after_its_age_chain_began():
    later = T0 + timedelta(days=366)
    writes = world_clock.due("u1", anchored(later), UTC_ZONE, later, T0)
    assert [(w.replaces, w.new.object, w.reason) for w in writes] == [(2, "4", "a year went by")]


def test_a_users_claim_about_the_weather_is_not_the_clocks_to_tick():
    live = [Fact(1, "ellahome.door", "red"), Fact(5, WEATHER_SUBJECT, "snow", tier="user_claim", valid_from=T0)]
    assert world_clock.due("u1", live, UTC_ZONE, T0 + timedelta(days=3), None) == []


def test_a_dated_event_is_followed_up_after_its_local_day_for_the_window():
    london = ZoneInfo("Europe/London")
    extracted = ExtractedFact(subject="user", predicate="has_upcoming", object="interview", tier="user_claim",
                              confidence=0.9, event_date=date(2026, 12, 3))  # fmt: skip
    (new,) = extraction.facts_from([extracted], "m1", london, 3)
    assert new.followup_after == datetime(2026, 12, 4, tzinfo=london)
    assert new.followup_until == datetime(2026, 12, 7, tzinfo=london) and new.dedupe_key == "extract:m1:0"


def test_an_extracted_fact_is_known_supersedes_the_users_own_claim_or_is_appended():
    live = [
        Fact(1, "user.city", "Leeds", tier="user_claim", written_by="user", recorded_at=T0),
        Fact(2, "user.city", "Hull", tier="user_claim", written_by="user", recorded_at=T0 + timedelta(days=1)),
        Fact(3, "ellahome.exterior.door_color", "red", predicate="color"),
    ]
    assert extraction.place(NewFact("user.city", "is", "LEEDS", "user_claim"), live).action == Action.KNOWN
    newer = extraction.place(NewFact("user.city", "is", "York", "user_claim"), live)
    assert (newer.action, newer.replaces) == (Action.SUPERSEDE, 2)  # the newest of the user's own claims
    door = extraction.place(NewFact("ellahome.exterior.door_color", "color", "blue", "user_claim"), live)
    assert door.action == Action.APPEND  # beside canon, never over it
    assert extraction.place(NewFact("user.city", "is", "York", "inferred"), live).action == Action.APPEND


def test_a_dated_event_sits_beside_another_and_the_same_event_on_another_day_replaces_it():
    london = ZoneInfo("Europe/London")
    thursday = ExtractedFact(subject="user", predicate="has_upcoming", object="interview", tier="user_claim",
                             confidence=0.9, event_date=date(2026, 12, 3))  # fmt: skip
    (interview,) = extraction.facts_from([thursday], "m1", london, 3)
    live = [Fact(7, "user", "interview", tier="user_claim", predicate="has_upcoming", written_by="user",
                 followup_after=interview.followup_after)]  # fmt: skip
    assert extraction.place(interview, live).action == Action.KNOWN  # the same event on the same day
    dentist = ExtractedFact(subject="user", predicate="has_upcoming", object="dentist appointment",
                            tier="user_claim", confidence=0.9, event_date=date(2026, 12, 2))  # fmt: skip
    (other,) = extraction.facts_from([dentist], "m2", london, 3)
    assert extraction.place(other, live).action == Action.APPEND  # another event does not replace it
    moved = thursday.model_copy(update={"event_date": date(2026, 12, 8)})
    (later,) = extraction.facts_from([moved], "m3", london, 3)
    placed = extraction.place(later, live)
    assert (placed.action, placed.replaces) == (Action.SUPERSEDE, 7)  # the interview moved: the old day dies


def verdict(winner: int, failsafe: bool = False, error: str = "") -> ModelResult[ContestedVerdict]:
    return ModelResult(
        "contested_verdict", ContestedVerdict(winner=winner, reason="newer"), failsafe, 1, "m", error=error
    )


def test_a_contest_waiting_for_review_is_skipped_and_a_verdict_decides_the_rest():
    live = [
        Fact(1, "user.job", "teacher", tier="inferred", status="contested"),
        Fact(2, "user.job", "nurse", tier="inferred", status="contested"),
        Fact(3, "user.pet", "Rex", tier="inferred", status="contested"),
        Fact(4, "user.pet", "Max", tier="inferred", status="contested"),
    ]
    pending, skipped = contests.open_contests(live, in_review={3})
    assert skipped == 1 and [(c.subject, c.fact_ids) for c in pending] == [("user.job", [1, 2])]
    job = pending[0]
    assert job.context() == {"candidate_count": 2} and [c["object"] for c in job.variables()["candidates"]] == [
        "teacher",
        "nurse",
    ]
    assert contests.decide(job, verdict(2)) == contests.Resolve(2, [1], "newer")
    assert contests.decide(job, verdict(0)) == contests.Review([1, 2], "undecided: newer")
    failed = contests.decide(job, verdict(0, failsafe=True, error="timeout"))
    assert failed == contests.Review([1, 2], "model failed: timeout")


def test_a_like_or_a_language_sits_beside_the_others_and_a_home_replaces_the_old_one():
    live = [
        Fact(1, "user", "cooking", tier="user_claim", predicate="likes", written_by="user", recorded_at=T0),
        Fact(2, "user", "German", tier="user_claim", predicate="speaks", written_by="user", recorded_at=T0),
        Fact(3, "user", "Bremen", tier="user_claim", predicate="lives_in", written_by="user", recorded_at=T0),
    ]
    assert extraction.place(NewFact("user", "likes", "hiking", "user_claim"), live).action == Action.APPEND
    assert extraction.place(NewFact("user", "speaks", "English", "user_claim"), live).action == Action.APPEND
    assert extraction.place(NewFact("user", "likes", "Cooking", "user_claim"), live).action == Action.KNOWN
    moved = extraction.place(NewFact("user", "lives_in", "Lisbon", "user_claim"), live)
    assert (moved.action, moved.replaces) == (Action.SUPERSEDE, 3)

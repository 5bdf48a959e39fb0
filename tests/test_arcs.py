"""Monthly relationship arcs: stage parsing, the persona text, the month's chapters, the job end to end (planner,
offline answer, handler) with history kept, and the current arc in the live reply's system part."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from pydantic import ValidationError

from adapters import model_batches as batches
from adapters import reply_service
from adapters.db import session_scope
from adapters.settings import Settings
from ella import arcs as rules
from ella.contract import IngestPayload
from ella.jobs import Job, Member, Period, period_of
from ella.llm.kinds import RelationshipArc, parse_output
from ella.llm.offline import OfflineProvider
from ella.llm.port import ModelPort
from models import User
from models.arcs import arc_history, current_arc, current_arcs
from models.chapters import add_chapter
from tasks import arcs as job
from tests.support.scripted import Scripted

TIERS = Settings().model_tiers
UTC_ZONE = ZoneInfo("UTC")
OCTOBER = period_of(Job.ARCS, date(2026, 11, 1), UTC_ZONE)
NOVEMBER = period_of(Job.ARCS, date(2026, 12, 1), UTC_ZONE)


@pytest.mark.domain
def test_a_stage_is_read_leniently_and_anything_else_is_refused() -> None:
    assert rules.parse_stage(" Warming. ") == "warming"
    assert rules.parse_stage("romantic") is None
    value = parse_output("relationship_arc", '{"stage": "STEADY", "trajectory": "steady", "mindful_of": "x"}', {})
    assert isinstance(value, RelationshipArc) and value.stage == "steady"
    with pytest.raises(ValidationError):
        RelationshipArc.model_validate({"stage": "in love", "trajectory": "rising", "mindful_of": "x"})


@pytest.mark.domain
def test_the_persona_block_says_where_you_are_and_the_story_so_far() -> None:
    arc = rules.Arc("sam", "2026-10", "warming", "rising", "ask about the new job gently")
    chapter = rules.Chapter("sam", "2026-W44", "Interview week", "Sam got the job.")
    block = rules.relationship_block(arc, chapter)
    assert "Where you two are: warming, rising. Be mindful of: ask about the new job gently" in block
    assert "The story so far" in block and "Sam got the job." in block
    assert rules.relationship_block(None, None) == ""


class Row:
    def __init__(self, id: int, period: str, end: datetime) -> None:
        self.id, self.period, self.title, self.summary, self.period_end = id, period, f"t{id}", f"s{id}", end


@pytest.mark.domain
def test_a_week_belongs_to_the_month_it_ends_in() -> None:
    rows = [
        Row(1, "2026-W40", datetime(2026, 10, 5, tzinfo=UTC)),
        Row(2, "2026-W44", datetime(2026, 11, 2, tzinfo=UTC)),  # ends on 2 November: November's
        Row(3, "2026-W39", datetime(2026, 9, 28, tzinfo=UTC)),
        Row(4, "2026-W43", datetime(2026, 10, 26, tzinfo=UTC)),
    ]
    assert [r.id for r in rules.month_chapters(rows, OCTOBER)] == [1, 4]


@pytest.mark.domain
def test_the_offline_arc_moves_on_with_a_full_month_and_drifts_after_a_thin_one() -> None:
    port = ModelPort(OfflineProvider(), TIERS)
    prior = rules.Arc("sam", "2026-09", "warming", "rising", "x")
    full = [Row(i, f"2026-W4{i}", datetime(2026, 10, 5 + 7 * i, tzinfo=UTC)) for i in range(3)]
    variables, _ = rules.arc_request("Sam", OCTOBER, full, prior)
    assert port.call(RelationshipArc, variables).value.stage == "steady"
    variables, _ = rules.arc_request("Sam", OCTOBER, full[:1], prior)
    assert port.call(RelationshipArc, variables).value.stage == "drifting"
    variables, _ = rules.arc_request("Sam", OCTOBER, full[:1], None)
    assert port.call(RelationshipArc, variables).value.stage == "new"


# --- on a database --------------------------------------------------------------------------------------------


def add_user(user_id: str) -> None:
    with session_scope() as s:
        s.add(User(id=user_id))


def add_week(user_id: str, week_ending: date, title: str) -> None:
    week = period_of(Job.CHAPTERS, week_ending, UTC_ZONE)
    with session_scope() as s:
        add_chapter(
            s,
            {
                "user_id": user_id,
                "period": week.label,
                "period_start": week.start,
                "period_end": week.end,
                "title": title,
                "summary": f"{user_id} talked with Ella about {title}.",
                "key_moments": [],
                "cited_node_ids": [],
            },
        )


def run_month(period: Period, *users: str) -> tuple[Any, dict[str, int]]:
    with session_scope() as s:
        plan = job.plan_arcs(s, [Member(u, "UTC", period) for u in users], datetime.now(UTC))
        batches.submit(job.PURPOSE, plan.requests, session=s)
    return plan, dict(batches.flush_pending(ModelPort(OfflineProvider(), TIERS)).outcomes)


def test_an_arc_is_asked_only_for_users_with_a_chapter_in_their_month(migrated_db: str) -> None:
    add_user("sam")
    add_user("quiet")
    add_week("sam", date(2026, 10, 12), "the museum job")
    plan, outcomes = run_month(OCTOBER, "sam", "quiet")
    assert [r.user_id for r in plan.requests] == ["sam"] and plan.idle == 1
    assert outcomes == {"applied": 1}
    with session_scope() as s:
        assert current_arc(s, "quiet") is None
        arc = current_arc(s, "sam")
    assert arc is not None and arc.period == "2026-10" and arc.stage == "new"


def test_arc_history_is_kept_and_the_current_arc_is_the_latest_month(migrated_db: str) -> None:
    add_user("sam")
    add_week("sam", date(2026, 10, 12), "the museum job")
    run_month(OCTOBER, "sam")
    for day in (9, 16, 23, 30):
        add_week("sam", date(2026, 11, day), f"week {day}")
    plan, outcomes = run_month(NOVEMBER, "sam")
    assert outcomes == {"applied": 1}
    assert "2026-10: stage new" in plan.requests[0].variables["previous"]
    assert plan.requests[0].variables["chapter_count"] == 4
    with session_scope() as s:
        history = arc_history(s, "sam")
        current = current_arcs(s, ["sam", "nobody"])
    assert [(a.period, a.stage) for a in history] == [("2026-10", "new"), ("2026-11", "warming")]
    assert list(current) == ["sam"] and current["sam"].period == "2026-11"
    assert run_month(NOVEMBER, "sam")[1] == {}  # the same month again queues nothing new


def test_the_current_arc_reaches_the_persona_block_of_the_live_reply(
    migrated_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    add_user("sam")
    add_week("sam", date(2026, 10, 12), "the museum job")
    run_month(OCTOBER, "sam")
    with session_scope() as s:
        arc = current_arc(s, "sam")
    assert arc is not None
    reply = {"reply": "Good to hear from you.", "perception": {"score": 2, "subject": "sam", "predicate": "says",
             "object": "hello"}, "self_statements": []}  # fmt: skip
    model = Scripted(lambda _request: json.dumps(reply))
    monkeypatch.setattr(reply_service, "get_port", lambda: ModelPort(model, TIERS))
    payload = IngestPayload(message_id="m-arc", user_id="sam", text="hi again", sent_at=datetime.now(UTC))
    reply_service.answer(payload, final_attempt=True)
    [request] = model.requests
    system = [block.text for block in request.system]
    assert any(rules.where_you_are(arc) in text for text in system)
    assert not any(rules.where_you_are(arc) in t.text for turn in request.messages for t in turn.blocks)

"""Weekly story chapters: who gets one, what a chapter may cite, its thought, and the story in the reply.

Plain rules first (no database); then the job on SQLite and PostgreSQL, driven end to end: the planner's
requests queued through ``adapters.model_batches.submit`` and answered by ``flush_pending`` (the offline engine,
or a scripted model for the answers the offline engine never gives), so the kind's validator, the offline rule
and the handler run together.
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import select

from adapters import model_batches as batches
from adapters import reply_service
from adapters.db import session_scope
from adapters.embedding_cache import shared_embedder
from adapters.settings import Settings
from ella import chapters as rules
from ella.contract import IngestPayload
from ella.jobs import Job, Member, Period, period_of, request_id
from ella.llm.kinds import ChapterDistillation, OutputError, parse_output
from ella.llm.offline import OfflineProvider
from ella.llm.port import ModelPort
from ella.memory.nodes import Triple, memory_node
from ella.memory.retrieval import rank_memories
from ella.provenance import by_rule
from models import MemoryNode, ModelBatchItem, StoryChapter, User
from models.chapters import add_chapter, latest_chapter, latest_chapters
from models.memory import insert_node, user_nodes
from models.selflog import add_entries
from tasks import chapters as job
from tests.support.scripted import Scripted

TIERS = Settings().model_tiers
UTC_ZONE = ZoneInfo("UTC")
WEEK = period_of(Job.CHAPTERS, date(2026, 11, 30), UTC_ZONE)  # 2026-W48: Mon 23 .. Mon 30 November
IN_WEEK = datetime(2026, 11, 25, 18, 0, tzinfo=UTC)
NOW = datetime(2026, 11, 30, 3, 5, tzinfo=UTC)


# --- plain rules --------------------------------------------------------------------------------------------


class Node:
    def __init__(self, id: int, *, user: str = "u", kind: str = "thought", poignancy: int = 3, depth: int = 1,
                 at: datetime = IN_WEEK, key: str | None = None, text: str = "") -> None:  # fmt: skip
        self.id, self.user_id, self.node_type, self.poignancy, self.depth = id, user, kind, poignancy, depth
        self.created_at, self.dedupe_key, self.description = at, key, text or f"note {id}"


class Entry:
    def __init__(self, content: str, said_at: datetime) -> None:
        self.content, self.said_at = content, said_at


@pytest.mark.domain
def test_a_key_moment_loses_ids_not_offered_and_a_chapter_citing_none_is_refused() -> None:
    answer = {
        "title": "A week",
        "summary": "Sam had a week.",
        "key_moments": [{"text": "one", "node_ids": [4, 99, 4]}, {"text": "two", "node_ids": [98]}],
    }
    value = parse_output("chapter_distillation", json.dumps(answer), {"node_ids": [4, 5]})
    assert isinstance(value, ChapterDistillation)
    assert [(m.text, m.node_ids) for m in value.key_moments] == [("one", [4])]
    with pytest.raises(OutputError, match="no key moment cites"):
        parse_output("chapter_distillation", json.dumps(answer), {"node_ids": [5]})


@pytest.mark.domain
def test_checked_moments_keep_only_allowed_ids_and_drop_empty_moments() -> None:
    moments = [{"text": "a", "node_ids": [1, 2]}, {"text": "b", "node_ids": [3]}]
    assert rules.checked_moments(moments, {2, 9}) == [{"text": "a", "node_ids": [2]}]
    assert rules.cited_ids([{"text": "a", "node_ids": [5, 1]}, {"text": "b", "node_ids": [1]}]) == [1, 5]


@pytest.mark.domain
def test_a_chapter_sits_one_level_above_its_deepest_citation() -> None:
    assert rules.chapter_depth([0, 2, 1]) == 3
    assert rules.chapter_depth([0]) == 1


@pytest.mark.domain
def test_the_self_log_shown_keeps_the_newest_entries_oldest_first() -> None:
    start = datetime(2025, 1, 1, tzinfo=UTC)
    entries = [Entry(f"said {i}", start + timedelta(days=i)) for i in range(rules.SELF_LOG_CAP + 5)]
    lines = rules.self_log_lines(list(reversed(entries)))
    assert len(lines) == rules.SELF_LOG_CAP
    assert lines[0].endswith("said 5") and lines[-1].endswith(f"said {rules.SELF_LOG_CAP + 4}")


@pytest.mark.domain
def test_the_week_is_active_on_a_turn_or_a_node_but_not_on_a_chapter_thought() -> None:
    chapter_thought = Node(1, key="chapter:u:2026-W47")
    outside = Node(2, at=WEEK.end)
    other_user = Node(3, user="v")
    assert rules.week_nodes([chapter_thought, outside, other_user], "u", WEEK) == []
    assert not rules.is_active(0, [])
    assert rules.is_active(1, [])
    assert rules.is_active(0, rules.week_nodes([Node(4)], "u", WEEK))


@pytest.mark.domain
def test_thoughts_are_offered_first_and_poignant_events_fill_a_thin_week() -> None:
    nodes = [Node(1, kind="event", poignancy=9), Node(2, kind="event", poignancy=1), Node(3, poignancy=2)]
    offered = rules.citable(nodes, cap=2)
    assert {n.id for n in offered} == {3, 1}
    variables, context = rules.chapter_request("Sam", WEEK, nodes, [])
    assert context["node_ids"] == [1, 2, 3] and context["period"] == "2026-W48"
    assert [m["id"] for m in variables["memos"]] == [1, 2, 3] and variables["self_log"] == ["(nothing yet)"]


@pytest.mark.domain
def test_the_offline_chapter_cites_only_the_offered_nodes() -> None:
    nodes = [Node(7, poignancy=8, text="Sam got the museum job"), Node(8, kind="event", poignancy=2)]
    variables, context = rules.chapter_request("Sam", WEEK, nodes, [Entry("I walked to the harbour", IN_WEEK)])
    result = ModelPort(OfflineProvider(), TIERS).call(ChapterDistillation, variables, context=context)
    assert not result.failsafe
    assert result.value.key_moments[0].node_ids == [7]
    assert {i for m in result.value.key_moments for i in m.node_ids} <= {7, 8}


# --- the job on a database ----------------------------------------------------------------------------------


def add_user(user_id: str) -> None:
    with session_scope() as s:
        s.add(User(id=user_id))


def add_node(user_id: str, text: str, *, kind: str = "thought", at: datetime = IN_WEEK, poignancy: int = 5,
             depth: int = 1, key: str | None = None) -> int:  # fmt: skip
    draft = memory_node(
        shared_embedder(),
        user_id=user_id,
        node_type=kind,  # type: ignore[arg-type]
        description=text,
        at=at,
        triple=Triple(user_id, "said", text),
        poignancy=poignancy,
        dedupe_key=key or f"test:{user_id}:{text}",
        depth=depth,
        provenance=by_rule("test_node"),
    )
    with session_scope() as s:
        node_id = insert_node(s, draft.columns())
    assert node_id is not None
    return node_id


def member(user_id: str, period: Period = WEEK) -> Member:
    return Member(user_id, "UTC", period)


def plan(*members: Member) -> Any:
    with session_scope() as s:
        return job.plan_chapters(s, list(members), NOW)


def queue(*members: Member) -> list[str]:
    with session_scope() as s:
        return batches.submit(job.PURPOSE, job.plan_chapters(s, list(members), NOW).requests, session=s)


def chapters() -> list[StoryChapter]:
    with session_scope() as s:
        return list(s.scalars(select(StoryChapter).order_by(StoryChapter.id)))


def test_the_planner_asks_only_for_users_active_in_their_week(migrated_db: str) -> None:
    for user in ("active", "talker", "idle", "only-chapter"):
        add_user(user)
    add_node("active", "Ella talked with active about a new job")
    add_node("idle", "last week's talk", at=WEEK.start - timedelta(hours=1))
    add_node("only-chapter", "Chapter 'x': y", key="chapter:only-chapter:2026-W47")
    result = plan(member("active"), member("talker"), member("idle"), member("only-chapter"))
    assert [r.user_id for r in result.requests] == ["active"]
    assert result.requests[0].custom_id == request_id(Job.CHAPTERS, "active", WEEK)
    assert result.idle == 3  # "talker" has no turn either: nothing in the period


def test_a_chapter_is_stored_once_with_a_retrievable_thought_above_its_deepest_evidence(migrated_db: str) -> None:
    add_user("sam")
    event = add_node("sam", "Sam said the museum interview is on Thursday", kind="event", poignancy=7, depth=0)
    memo = add_node("sam", "Ella talked with Sam about the museum interview nerves", poignancy=6, depth=1)
    with session_scope() as s:
        add_entries(s, "sam", IN_WEEK, [{"content": "I walked to the harbour this morning"}], "m-1")
    port = ModelPort(OfflineProvider(), TIERS)
    assert len(queue(member("sam"))) == 1
    assert batches.flush_pending(port).outcomes == {"applied": 1}
    assert queue(member("sam")) == []  # the same week again: the request id is known, nothing queued
    [chapter] = chapters()
    moments = json.loads(chapter.key_moments)
    assert chapter.period == "2026-W48" and chapter.period_end == WEEK.end
    assert sorted(json.loads(chapter.cited_node_ids)) == [event, memo]
    assert all(set(m["node_ids"]) <= {event, memo} for m in moments)
    with session_scope() as s:
        node = s.get(MemoryNode, chapter.thought_node_id)
        assert node is not None
        assert (node.node_type, node.depth, sorted(json.loads(node.evidence))) == ("thought", 2, [event, memo])
        nodes = user_nodes(s, "sam")
    query = "museum interview"
    vector = shared_embedder().embed([query])[0]
    found = rank_memories(nodes, vector, query, 3, NOW + timedelta(hours=1))
    assert chapter.thought_node_id in [n.id for n in found]


def scripted_port(moments: list[dict[str, Any]]) -> ModelPort:
    answer = {"title": "The week", "summary": "A week of talk.", "key_moments": moments}
    return ModelPort(Scripted(lambda _request: json.dumps(answer)), TIERS)


def queue_with_offer(user_id: str, offered: list[int]) -> None:
    """A request whose context offers ``offered`` (as a faulty planner might): the handler must still check."""
    with session_scope() as s:
        [item] = job.plan_chapters(s, [member(user_id)], NOW).requests
        batches.submit(job.PURPOSE, [item._replace(context={**(item.context or {}), "node_ids": offered})], session=s)


def test_the_handler_keeps_only_citations_of_the_users_own_nodes(migrated_db: str) -> None:
    add_user("ann")
    add_user("bob")
    own = add_node("ann", "Ella talked with Ann about her garden")
    others = add_node("bob", "Ella talked with Bob about his divorce")
    queue_with_offer("ann", [own, others, 999_999])
    port = scripted_port(
        [{"text": "garden and more", "node_ids": [others, own]}, {"text": "ghost", "node_ids": [999_999]}]
    )
    assert batches.flush_pending(port).outcomes == {"applied": 1}
    [chapter] = chapters()
    assert json.loads(chapter.key_moments) == [{"text": "garden and more", "node_ids": [own]}]
    assert json.loads(chapter.cited_node_ids) == [own]


def test_a_chapter_citing_no_node_of_its_user_is_not_stored(migrated_db: str) -> None:
    add_user("ann")
    add_user("bob")
    add_node("ann", "Ella talked with Ann about her garden")
    others = add_node("bob", "Ella talked with Bob about his divorce")
    queue_with_offer("ann", [others])
    assert batches.flush_pending(scripted_port([{"text": "not hers", "node_ids": [others]}])).outcomes == {"applied": 1}
    assert chapters() == []
    with session_scope() as s:
        assert s.scalar(select(MemoryNode.id).where(MemoryNode.dedupe_key.like("chapter:%"))) is None


def test_a_chapter_citing_only_ids_never_offered_is_a_failsafe_and_not_stored(migrated_db: str) -> None:
    add_user("ann")
    own = add_node("ann", "Ella talked with Ann about her garden")
    queue(member("ann"))
    report = batches.flush_pending(scripted_port([{"text": "made up", "node_ids": [own + 1000]}]))
    assert report.outcomes == {"failsafe": 1}
    assert chapters() == []
    with session_scope() as s:
        assert [i.status for i in s.scalars(select(ModelBatchItem))] == ["failsafe"]


def add_chapter_row(user_id: str, period: Period, title: str, summary: str) -> None:
    with session_scope() as s:
        add_chapter(
            s,
            {
                "user_id": user_id,
                "period": period.label,
                "period_start": period.start,
                "period_end": period.end,
                "title": title,
                "summary": summary,
                "key_moments": [],
                "cited_node_ids": [],
            },
        )


def test_latest_chapter_is_the_newest_week_of_each_user(migrated_db: str) -> None:
    add_user("sam")
    add_user("kim")
    earlier = period_of(Job.CHAPTERS, date(2026, 11, 23), UTC_ZONE)
    add_chapter_row("sam", earlier, "Old", "older week")
    add_chapter_row("sam", WEEK, "New", "newer week")
    with session_scope() as s:
        assert {u: c.title for u, c in latest_chapters(s, ["sam", "kim"]).items()} == {"sam": "New"}
        assert latest_chapter(s, "kim") is None


def reply_system(monkeypatch: pytest.MonkeyPatch, user_id: str) -> str:
    """The system part of the live reply request, built through the ingest path (``reply_service.answer``)."""
    reply = {"reply": "Good to hear from you.", "perception": {"score": 2, "subject": user_id, "predicate": "says",
             "object": "hello"}, "self_statements": []}  # fmt: skip
    model = Scripted(lambda _request: json.dumps(reply))
    monkeypatch.setattr(reply_service, "get_port", lambda: ModelPort(model, TIERS))
    payload = IngestPayload(message_id=f"m-{user_id}", user_id=user_id, text="hi again", sent_at=datetime.now(UTC))
    reply_service.answer(payload, final_attempt=True)
    [request] = model.requests
    return "\n".join(block.text for block in request.system)


def test_the_latest_chapter_is_the_story_so_far_in_the_replys_system_part(
    migrated_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    add_user("sam")
    earlier = period_of(Job.CHAPTERS, date(2026, 11, 23), UTC_ZONE)
    add_chapter_row("sam", earlier, "Old", "Sam was looking for work.")
    add_chapter_row("sam", WEEK, "The interview week", "Sam prepared for the museum interview with Ella's help.")
    system = reply_system(monkeypatch, "sam")
    assert "The story so far" in system
    assert "Sam prepared for the museum interview with Ella's help." in system
    assert "Sam was looking for work." not in system

"""Reflection and conversation close: thoughts that cite real nodes, written once, never from a fail-safe."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from adapters.db import session_scope
from adapters.settings import Settings
from ella.llm.kinds import OutputError, parse_output
from ella.llm.port import ModelPort
from ella.reply import OutgoingReply
from gateway.client import enqueue_message
from models import Conversation, MemoryNode, User
from models.turns import store_exchange
from tests.conftest import wait_for
from tests.test_memory_perceive import Garbage, make_user, nodes, perceive_now, trigger

POIGNANT = [
    "I have a job interview at the museum on Thursday and I'm nervous",
    "My sister Maya is helping me practise for the interview",
    "I'm worried the interview panel will hate my portfolio",
    "My grandma died last month and I still miss her",
    "The interview went great and they offered me the job",
]


def seed(user: str, trigger_max: int = 10) -> list[MemoryNode]:
    make_user(user)
    with session_scope() as s:
        u = s.get(User, user)
        u.importance_trigger_max = u.importance_trigger_curr = trigger_max
    for i, text in enumerate(POIGNANT):
        perceive_now(user_id=user, description=text, source_message_id=f"{user}-{i}")
    return nodes(user)


def reflect_now(user: str) -> int:
    from tasks.memory import reflect

    return reflect.apply(kwargs={"user_id": user}).get()


def thoughts(user: str) -> list[MemoryNode]:
    return [n for n in nodes(user) if n.node_type == "thought"]


PERCEIVED = {"score": 4, "subject": "Sam", "predicate": "is", "object": "nervous"}


def insight(text: str, evidence: list[int]) -> dict:
    return {"text": text, "evidence": evidence, "perception": PERCEIVED}


def test_a_bad_citation_is_dropped_not_the_insight():
    raw = json.dumps({"insights": [insight("A", [1, 9]), insight("B", [7])]})
    out = parse_output("insights", raw, {"statement_count": 2})
    assert [(i.text, i.evidence) for i in out.insights] == [("A", [1])]
    with pytest.raises(OutputError, match="no insight cites"):
        parse_output("insights", json.dumps({"insights": [insight("B", [0, 3])]}), {"statement_count": 2})


def test_reflection_writes_thoughts_that_cite_real_nodes_and_resets_the_counter(migrated_db):
    events = seed("refl")
    assert trigger("refl") <= 0  # the arithmetic: 10 minus the poignancy of five weighty events
    stored = reflect_now("refl")
    got = thoughts("refl")
    assert stored == len(got) >= 1
    by_id = {n.id: n for n in nodes("refl")}
    for thought in got:
        cited = json.loads(thought.evidence)
        assert cited and all(c in by_id and by_id[c].user_id == "refl" for c in cited)
        assert thought.depth == 1 + max(by_id[c].depth for c in cited)
        assert thought.expires_at is None  # an insight never expires (ella.memory.plans)
        assert thought.subject and thought.predicate and 1 <= thought.poignancy <= 10
    assert trigger("refl") == 10
    assert {e.id for e in events} >= {c for t in got for c in json.loads(t.evidence)}


def test_a_redelivered_reflection_stores_nothing_more(migrated_db):
    seed("twice")
    first = reflect_now("twice")
    assert first >= 1 and reflect_now("twice") == 0
    assert len(thoughts("twice")) == first


def test_reflection_does_nothing_while_the_counter_is_positive(migrated_db):
    seed("calm", trigger_max=1000)
    assert reflect_now("calm") == 0 and thoughts("calm") == []


def test_a_failsafe_reflection_writes_no_thought_and_keeps_the_counter(migrated_db, monkeypatch):
    import tasks.memory

    seed("broken")
    before = trigger("broken")
    monkeypatch.setattr(tasks.memory, "get_port", lambda: ModelPort(Garbage(), Settings().model_tiers, max_repairs=1))
    assert reflect_now("broken") == 0
    assert thoughts("broken") == [] and trigger("broken") == before


def test_a_closed_conversation_gets_a_memo_and_a_planning_thought_citing_its_chat(migrated_db):
    from tasks.conversations import close_conversation

    t0 = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)
    with session_scope() as s:
        record = store_exchange(
            s,
            message_id="c-1",
            user_id="conv",
            text="I have an interview on Thursday",
            sent_at=t0,
            external_conversation_id=None,
            reply=OutgoingReply("Good luck!"),
            timeout=timedelta(minutes=30),
            user_defaults={},
            task_id=None,
        ).record
        conv = s.get(Conversation, record.conversation_id)
        conv.closed_at, conv.close_reason = t0 + timedelta(minutes=30), "inactive"
    assert close_conversation.apply(kwargs={"conversation_id": record.conversation_id}).get() == 2
    assert close_conversation.apply(kwargs={"conversation_id": record.conversation_id}).get() == 0  # once
    chat = [n for n in nodes("conv") if n.node_type == "chat"]
    memo, plan = sorted(thoughts("conv"), key=lambda n: n.description)
    assert len(chat) == 1 and json.loads(chat[0].evidence) == [
        "conv: I have an interview on Thursday",
        "Ella: Good luck!",
    ]
    assert memo.description.startswith("Ella ") and plan.description.startswith("For Ella's planning: ")
    assert json.loads(memo.evidence) == json.loads(plan.evidence) == [chat[0].id]


@pytest.mark.integration
def test_a_poignant_conversation_leads_to_a_reflection_through_a_real_worker(start_worker):
    start_worker(env={"ELLA_IMPORTANCE_TRIGGER_MAX": "20"})
    user = f"chain-{uuid.uuid4().hex[:6]}"
    for i, text in enumerate(POIGNANT):
        enqueue_message(message_id=f"{user}-{i}", user_id=user, text=text, sent_at=datetime.now(UTC))
    got = wait_for(lambda: [t for t in thoughts(user) if t.depth >= 1], 90, what="a reflection's thoughts")
    ids = {n.id for n in nodes(user)}
    assert all(set(json.loads(t.evidence)) <= ids for t in got)
    with session_scope() as s:
        assert s.scalar(select(User.importance_trigger_curr).where(User.id == user)) > 0  # reset after reflecting


def test_memory_show_prints_the_counter_nodes_and_thought_evidence(migrated_db):
    from typer.testing import CliRunner

    from cli.main import cli

    seed("shown")
    reflect_now("shown")
    result = CliRunner().invoke(cli, ["memory", "show", "shown", "--limit", "50"], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert "importance counter: 10 of 10" in result.output
    assert "thought " in result.output and "<- " in result.output
    assert CliRunner().invoke(cli, ["memory", "show", "nobody"]).exit_code == 1

"""ella.perceive: observations become memory nodes; the reflection trigger drains exactly."""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

import numpy as np
import pytest
from sqlalchemy import func, select

from adapters.db import session_scope
from adapters.settings import get_settings
from ella.llm.port import ModelPort
from ella.llm.types import Completion, CompletionRequest, Usage
from gateway.client import enqueue_message
from models import MemoryNode, ModelCall, OutboxRecord, User
from models.memory import drain_importance
from tests.conftest import wait_for


def make_user(user_id: str) -> None:
    with session_scope() as s:
        s.add(User(id=user_id, importance_trigger_curr=150, importance_trigger_max=150))


def nodes(user_id: str) -> list[MemoryNode]:
    with session_scope() as s:
        return list(s.scalars(select(MemoryNode).where(MemoryNode.user_id == user_id).order_by(MemoryNode.id)))


def trigger(user_id: str) -> int:
    with session_scope() as s:
        return s.get(User, user_id).importance_trigger_curr


def model_calls() -> int:
    with session_scope() as s:
        return s.scalar(select(func.count()).select_from(ModelCall)) or 0


def perceive_now(**kwargs):
    from tasks.memory import perceive

    return perceive.apply(kwargs=kwargs).get()


@pytest.mark.integration
def test_each_turn_becomes_an_event_node_and_drains_the_trigger_by_its_poignancy(start_worker):
    start_worker()
    user = f"p-{uuid.uuid4().hex[:6]}"
    texts = ["Hi Ella", "My grandma died last night and I can't stop crying", "I had toast for breakfast"]
    for i, text in enumerate(texts):
        enqueue_message(message_id=f"{user}-{i}", user_id=user, text=text, sent_at=datetime.now(UTC))
    wait_for(lambda: len(nodes(user)) == 3, 60, what="three memory nodes")
    got = sorted(nodes(user), key=lambda n: n.source_message_id)  # two worker processes: any insert order
    assert [n.description for n in got] == texts and {n.node_type for n in got} == {"event"}
    assert all(len(n.embedding) == 4 * 512 and n.subject and n.predicate and n.object for n in got)
    assert (
        abs(np.linalg.norm(np.frombuffer(got[1].embedding, dtype=np.float32)) - 1) < 1e-3
    )  # stored as float16 (ella.memory.vectors)
    assert got[1].poignancy > got[2].poignancy  # a death weighs more than breakfast
    assert trigger(user) == get_settings().importance_trigger_max - sum(n.poignancy for n in got)
    assert [n.source_message_id for n in got] == [f"{user}-{i}" for i in range(3)]
    with session_scope() as s:  # the reply's own call perceived each turn: no perception call of their own
        kinds = s.scalars(select(ModelCall.kind).where(ModelCall.user_id == user)).all()
    assert "perception" not in kinds and kinds.count("reply") == 3  # (each turn also has a fact extraction)


def test_an_idle_observation_scores_1_without_a_model_call(migrated_db):
    make_user("idle")
    before = model_calls()
    node_id = perceive_now(user_id="idle", description="Sam is idle", source_message_id="idle-1")
    node = nodes("idle")[0]
    assert node.id == node_id and node.poignancy == 1 and node.predicate == "is" and node.object == "idle"
    assert model_calls() == before and trigger("idle") == 149


def test_a_repeat_of_a_recent_observation_is_not_stored_again(migrated_db):
    make_user("rep")
    assert perceive_now(user_id="rep", description="I went for a run", source_message_id="r-1") is not None
    assert perceive_now(user_id="rep", description="I went for a run", source_message_id="r-2") is None
    assert len(nodes("rep")) == 1


def test_a_redelivered_perceive_stores_one_node_and_drains_once(migrated_db):
    make_user("redo")
    first = perceive_now(user_id="redo", description="My sister got engaged", source_message_id="m-1")
    with session_scope() as s:  # the repeat window would hide the redelivery; clear it to test the key itself
        s.get(MemoryNode, first).description = "edited after the first delivery"
    again = perceive_now(user_id="redo", description="My sister got engaged", source_message_id="m-1")
    assert again is None and len(nodes("redo")) == 1
    assert trigger("redo") == 150 - nodes("redo")[0].poignancy


class Garbage:
    name = "garbage"
    reads_context = True

    def complete(self, request: CompletionRequest) -> Completion:
        return Completion(text="TOKEN LIMIT EXCEEDED", model="garbage", usage=Usage())


def garbage_port() -> ModelPort:
    """A model whose every call fails (failure text, repaired once, then the fail-safe)."""
    return ModelPort(Garbage(), dict(get_settings().model_tiers), max_repairs=1)


def test_an_event_whose_perception_failed_is_stored_unrated_never_with_the_failsafes_score(migrated_db, monkeypatch):
    """Issue 36.7: the user's message is a real event even when the model could not rate it. The fail-safe's
    score and triple are not stored as Ella's perception; a default is, marked by the rule ``UNRATED``."""
    import tasks.memory
    from ella.memory.perceive import UNRATED, UNRATED_POIGNANCY

    make_user("fs")
    monkeypatch.setattr(tasks.memory, "get_port", garbage_port)
    node_id = perceive_now(user_id="fs", description="I got the job!", source_message_id="fs-1")
    [node] = nodes("fs")
    assert node.id == node_id and node.description == "I got the job!" and node.node_type == "event"
    assert (node.poignancy, node.predicate) == (UNRATED_POIGNANCY, "said") and node.object != "something"
    assert (node.engine, node.prompt_kind) == ("rules", UNRATED)
    assert trigger("fs") == 150 - UNRATED_POIGNANCY


def test_a_thought_whose_perception_failed_never_becomes_a_node(migrated_db, monkeypatch):
    """Ella's own thought is not the user's event: a model failure while rating it stores nothing."""
    import tasks.memory

    make_user("fst")
    monkeypatch.setattr(tasks.memory, "get_port", garbage_port)
    assert perceive_now(user_id="fst", description="Sam seems to like mornings", node_type="thought") is None
    assert nodes("fst") == [] and trigger("fst") == 150


def test_a_turn_whose_reply_and_perception_both_failed_still_ends_with_its_memory_node(migrated_db, monkeypatch):
    """Issue 36.7: at 80% model faults one turn was answered (the fallback reply) and never remembered: its
    perception call failed too. With every call failing, the turn still ends with its event node."""
    import adapters.reply_service
    import tasks.memory
    from ella.contract import IngestPayload
    from ella.memory.perceive import UNRATED
    from models.pending_effects import owed_of
    from tasks.ingest import ingest
    from workers.effects import task_named
    from workers.routing import TaskName

    for module in (adapters.reply_service, tasks.memory):
        monkeypatch.setattr(module, "get_port", garbage_port)
    user, message_id = f"ft-{uuid.uuid4().hex[:6]}", uuid.uuid4().hex
    payload = IngestPayload(message_id=message_id, user_id=user, text="I start my new job on Monday",
                            sent_at=datetime.now(UTC))  # fmt: skip
    _stream, follow = ingest(payload, task_id=None)
    with session_scope() as s:
        route = s.scalar(select(OutboxRecord.route).where(OutboxRecord.in_reply_to == message_id))
    assert route == "fallback"
    effects = [effect for row in follow.get("owed_rows", []) for effect in owed_of(row).effects]
    [memory] = [effect for effect in effects if effect.task == TaskName.PERCEIVE]
    assert memory.kwargs["perception"] is None  # the reply's call failed: nothing came with the turn
    task_named(TaskName.PERCEIVE).apply(kwargs=memory.kwargs).get()
    [node] = nodes(user)
    assert (node.source_message_id, node.description, node.prompt_kind) == (message_id, payload.text, UNRATED)


def test_concurrent_drains_lose_no_decrement(migrated_db):
    make_user("race")

    def drain() -> None:
        for _ in range(5):
            with session_scope() as s:
                drain_importance(s, "race", 3)

    with ThreadPoolExecutor(max_workers=8) as pool:
        for future in [pool.submit(drain) for _ in range(8)]:
            future.result()  # re-raises a thread's error here
    assert trigger("race") == 150 - 8 * 5 * 3


def test_a_perception_that_comes_with_the_turn_costs_no_model_call_and_a_bad_one_is_not_trusted(migrated_db):
    make_user("given")
    before = model_calls()
    good = {"score": 7, "subject": "given", "predicate": "lost", "object": "their job"}
    perceive_now(user_id="given", description="I lost my job today", source_message_id="g-1", perception=good)
    node = nodes("given")[0]
    assert (node.poignancy, node.subject, node.predicate, node.object) == (7, "given", "lost", "their job")
    assert model_calls() == before
    perceive_now(
        user_id="given",
        description="I found a new flat",
        source_message_id="g-2",
        perception={"score": 99, "subject": "x"},
    )
    assert model_calls() == before + 1 and 1 <= nodes("given")[1].poignancy <= 10

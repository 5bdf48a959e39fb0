"""The memory rooms as plain Python: perceive, reflection and a conversation's close, with no database."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from ella.embeddings import HashingEmbedder
from ella.llm.port import ModelPort
from ella.llm.types import CompletionRequest
from ella.memory.conversation_close import chat_node, closing_notes, closing_thoughts
from ella.memory.perceive import perceive
from ella.memory.reflection import reflect
from ella.memory.retrieval import DEFAULT_WEIGHTS
from tests.support.scripted import Scripted

pytestmark = pytest.mark.domain
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
EMBEDDER = HashingEmbedder()


def port(answer: Callable[[CompletionRequest], str]) -> ModelPort:
    return ModelPort(Scripted(answer), {t: "m" for t in ("memory_extract", "reflection", "poignancy")}, max_repairs=0)


@dataclass
class Node:
    id: int
    description: str
    depth: int = 0
    node_type: str = "event"
    conversation_id: int | None = None
    expires_at: datetime | None = None
    poignancy: int = 5

    def __post_init__(self) -> None:
        self.embedding = np.asarray(EMBEDDER.embed([self.description])[0], dtype=np.float32).tobytes()
        self.created_at = self.last_accessed_at = NOW - timedelta(hours=self.id)


PERCEIVED = {"score": 7, "subject": "Sam", "predicate": "worries about", "object": "the interview"}


def scripted_reflection(request: CompletionRequest) -> str:
    if request.kind == "focal_points":
        return json.dumps({"questions": ["How does Sam feel about work?"]})
    return json.dumps(
        {"insights": [{"text": "Sam is anxious about work", "evidence": [1, 2], "perception": PERCEIVED}]}
    )


def test_an_idle_observation_costs_no_call_and_scores_one():
    model = Scripted(lambda r: "")
    draft = perceive(
        ModelPort(model, {}), EMBEDDER, user_id="sam", description="sam is idle", node_type="event", at=NOW,
        dedupe_key="k",
    )  # fmt: skip
    assert draft is not None and draft.poignancy == 1 and model.requests == []
    assert (draft.triple.subject, draft.triple.predicate, draft.triple.object) == ("sam", "is", "idle")


def test_a_failsafe_perception_makes_an_unrated_event_and_no_thought():
    """The user's event is kept with a default score made by a rule (issue 36.7), never the fail-safe's; a
    thought whose rating failed is not kept."""
    from ella.memory.perceive import UNRATED, UNRATED_POIGNANCY

    failing = port(lambda r: "TOKEN LIMIT EXCEEDED")
    draft = perceive(
        failing, EMBEDDER, user_id="sam", description="I got the job!", node_type="event", at=NOW, dedupe_key="k"
    )
    assert draft is not None and draft.poignancy == UNRATED_POIGNANCY
    assert draft.provenance.prompt_kind == UNRATED and draft.provenance.engine == "rules"
    thought = perceive(
        failing, EMBEDDER, user_id="sam", description="Sam likes mornings", node_type="thought", at=NOW, dedupe_key="t"
    )
    assert thought is None


def test_a_thought_sits_one_level_above_its_deepest_evidence_and_never_expires():
    nodes = [Node(1, "Sam dreads Monday at work", depth=2), Node(2, "Sam's boss shouts at work"), Node(3, "cats")]
    reflection = reflect(
        port(scripted_reflection), EMBEDDER, user_id="sam", recent_newest_first=["a", "b"], nodes=nodes, now=NOW,
        weights=DEFAULT_WEIGHTS, run_id="r1",
    )  # fmt: skip
    assert reflection is not None and len(reflection.thoughts) == 1
    draft = reflection.thoughts[0]
    cited = json.loads(draft.columns()["evidence"])
    assert len(cited) == 2 and set(cited) <= {1, 2, 3}
    assert draft.depth == 1 + max(n.depth for n in nodes if n.id in cited)
    assert draft.expires_at is None and draft.poignancy == 7
    assert draft.dedupe_key == "reflect:r1:0:0" and reflection.accessed


def test_a_failed_focal_point_call_is_no_reflection():
    nodes = [Node(1, "Sam dreads Monday")]
    reflection = reflect(
        port(lambda r: "not json"), EMBEDDER, user_id="sam", recent_newest_first=["a"], nodes=nodes, now=NOW,
        weights=DEFAULT_WEIGHTS, run_id="r1",
    )  # fmt: skip
    assert reflection is None


def test_a_closed_conversation_leaves_a_chat_and_both_notes_from_one_call_and_a_failed_call_leaves_neither():
    asked: list[str] = []

    def answer(request: CompletionRequest) -> str:
        asked.append(request.kind)
        if len(asked) == 1:
            return "TOKEN LIMIT EXCEEDED"
        memo = {"memo": "talked with Sam about the interview.", "memo_perception": PERCEIVED}
        plan = {"plan": "ask Sam how the interview went", "plan_perception": PERCEIVED, "until": "2026-12-04"}
        return json.dumps(memo | plan)

    transcript = ["sam: I have an interview on Thursday", "Ella: Good luck!"]
    chat = chat_node(
        EMBEDDER, user_id="sam", conversation_id=9, closed_at=NOW, transcript=transcript, turn_poignancy=[3, 6]
    )
    assert chat.poignancy == 6 and chat.keywords == () and json.loads(chat.evidence) == transcript
    failed = closing_notes(port(answer), "sam", transcript)
    assert failed.memo is None and failed.plan is None  # a fail-safe is never half a note
    assert closing_thoughts(EMBEDDER, failed, user_id="sam", conversation_id=9, chat_id=41, closed_at=NOW) == []
    notes = closing_notes(port(answer), "sam", transcript)
    assert asked == ["conversation_note", "conversation_note"]  # one call a close, not a memo and a plan
    assert notes.plan is not None and str(notes.plan.until) == "2026-12-04"
    drafts = closing_thoughts(EMBEDDER, notes, user_id="sam", conversation_id=9, chat_id=41, closed_at=NOW)
    assert [d.description for d in drafts] == [
        "Ella talked with Sam about the interview.",
        "For Ella's planning: ask Sam how the interview went",
    ]
    assert [json.loads(d.evidence) for d in drafts] == [[41], [41]]
    assert [d.dedupe_key for d in drafts] == ["memo:9", "plan:9"]

"""The offline engine reads the reply's context (issue 21, "the embedded default shows the loop").

Why: on the embedded default the offline engine answers every message. While it ignored the context, the lazy
world never ticked and no earlier conversation shaped a reply, so `make demo` could not show that Ella
remembers. These tests pin the rules it follows now: it takes the same context the model does (the loader,
``adapters.reply_service.load_reply_context``), retells a memory of an earlier conversation when the user comes
back to its topic (never the current message, never one of this conversation's turns, never grave news or a
guarded text), and mentions one thing of its lazy world in a greeting or a goodbye; its words stay templates.
"""

from __future__ import annotations

import json
import re
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from ella.contract import IngestPayload
from ella.embeddings import HashingEmbedder
from ella.guard import Category, classify
from ella.llm.offline import OfflineProvider
from ella.llm.port import ModelPort
from ella.llm.types import Completion, CompletionRequest
from ella.memory.retrieval import NodeRow
from ella.offline_reply import _VARIANTS, grounded_reply, plain_reply, recall_line, retell
from ella.reply import ReplyContext, ReplyPolicy, recall_notes, respond
from ella.world.tickers import BOOK_SUBJECT, HAPPENING_SUBJECT, MOOD_SUBJECT

DAY1 = datetime(2026, 11, 30, 8, 12, tzinfo=UTC)
DAY2 = DAY1 + timedelta(days=1, hours=11)
INTERVIEW = "I have a job interview at the museum on Thursday and I'm nervous about it"
WORLD = {
    BOOK_SUBJECT: {"title": "The Summer Book", "author": "Tove Jansson", "page": 61, "pages": 172},
    MOOD_SUBJECT: "gentle and attentive (thoughtful underneath)",
    HAPPENING_SUBJECT: {"source": "sea", "event": "a seal surfaced just off the harbour wall"},
}


def note(text: str = INTERVIEW, **kw: Any) -> dict[str, Any]:
    return {"text": text, "type": "event", "poignancy": 6, "hours_before": 35.0, "earlier": True, **kw}


def sentences(reply: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+", reply) if s]


# --- the rules, as plain functions ------------------------------------------------------------------------------


@pytest.mark.domain
def test_an_earlier_message_is_retold_in_the_second_person_and_the_past():
    assert retell(INTERVIEW) == "you had a job interview at the museum on Thursday and you were nervous about it"
    assert retell("Hey, I practised my answers with my sister today") == (
        "you practised your answers with your sister that day"
    )
    assert retell("I've been baking bread every weekend. It helps.") == "you'd been baking bread every weekend"
    assert len(retell("I " + "really " * 60 + "want this")) <= 110


@pytest.mark.domain
def test_a_message_on_an_earlier_topic_recalls_that_conversation():
    line = recall_line("The interview went great! They want me back", [note()])
    assert line == (
        "The other day you told me you had a job interview at the museum on Thursday and you were nervous about it."
    )
    assert recall_line("The interview went great!", [note(hours_before=3.0)]).startswith("Earlier you told me")
    assert recall_line("The interview went great!", [note(hours_before=24 * 20)]).startswith("A while ago")


@pytest.mark.domain
@pytest.mark.parametrize(
    ("why", "recalled", "message"),
    [
        ("this conversation's own turn", [note(earlier=False)], "The interview went great!"),
        ("the current message itself", [note(INTERVIEW)], INTERVIEW),
        ("no topic in common", [note()], "I baked bread with my sister"),
        ("a question, not something they told", [note("What should I wear for my interview?")], "The interview!"),
        ("a thought, not their words", [note("sam keeps coming back to interview", type="thought")], "interview"),
        ("said to Ella, not about themselves", [note("I hope your interview cat is fine")], "the interview"),
        ("grave news", [note("My grandma died the day before my interview")], "The interview went fine"),
        ("the top of the poignancy scale", [note(poignancy=10)], "The interview went great!"),
        ("a crisis the guard's rules catch", [note("I want to kill myself before the exam")], "the exam went ok"),
    ],
)
def test_nothing_is_retold_that_should_not_be(why, recalled, message):
    assert recall_line(message, recalled) == "", why


@pytest.mark.domain
def test_a_memory_already_retold_in_this_conversation_is_not_retold_again():
    first = recall_line("The interview went great!", [note()])
    assert first and recall_line("Still thinking about the interview", [note()], said_before=f"Wow. {first}") == ""


@pytest.mark.domain
def test_a_greeting_and_a_goodbye_mention_one_thing_of_ellas_world():
    hello = grounded_reply("Hi Ella", [], WORLD)
    assert hello.startswith(("Hi!", "Hey,")) and hello.endswith("?")
    assert any(s in hello for s in ("The Summer Book", "a seal surfaced", "gentle and attentive today"))
    assert "(" not in hello  # the mood's aside stays in the ledger
    bye = grounded_reply("Goodnight Ella", [], WORLD)
    assert bye.endswith("I'm still reading The Summer Book, page 61 of 172 now.")
    assert grounded_reply("Hi Ella", [], {}) in _VARIANTS["greeting"]  # a world never read: the plain template


@pytest.mark.domain
@pytest.mark.parametrize(
    "message",
    ["The interview went great!", "I'm nervous about the interview", "Hi Ella", "Goodnight Ella", "I baked bread"],
)
def test_a_grounded_reply_stays_short_warm_and_templated(message):
    reply = grounded_reply(message, [note()], WORLD)
    assert reply == grounded_reply(message, [note()], WORLD)
    assert 2 <= len(sentences(reply)) <= 4 and len(reply) <= 320
    assert classify(reply, learned=False).category == Category.OK  # the outbound rules pass it as it is
    base = plain_reply(message)  # the template's own sentences frame what the context adds
    if "Goodnight" in message:
        assert reply.startswith(base)
    else:
        assert sentences(reply)[0] == sentences(base)[0] and sentences(reply)[-1] == sentences(base)[-1]
    if "interview" not in message:
        assert "you told me" not in reply


@pytest.mark.domain
def test_recall_notes_mark_only_memories_of_an_earlier_conversation_as_earlier():
    payload = IngestPayload(message_id="m-2", user_id="sam", text="The interview went great!", sent_at=DAY2)
    rows = [
        row(1, INTERVIEW, DAY1),
        row(2, "I'm making tea right now", DAY2 - timedelta(minutes=5)),  # a turn of this conversation
        row(3, "The interview went great!", DAY1),  # the same words as this message
        row(4, "tomorrow is the second round", DAY2 + timedelta(minutes=1)),  # after this message
    ]
    history = [("user", "I'm making tea right now"), ("assistant", "Lovely.")]
    notes = recall_notes(rows, payload, history)
    assert [n["earlier"] for n in notes] == [True, False, False, False]
    assert notes[0]["hours_before"] == 35.0 and notes[0]["type"] == "event" and notes[0]["text"] == INTERVIEW


EMBEDDER = HashingEmbedder()


def row(node_id: int, text: str, at: datetime, node_type: str = "event", poignancy: int = 6) -> NodeRow:
    vector = EMBEDDER.embed([text])[0]
    return NodeRow(id=node_id, node_type=node_type, description=text, embedding=vector.tobytes(),
                   embedding_model=EMBEDDER.model_id, created_at=at, last_accessed_at=at, expires_at=None,
                   poignancy=poignancy, depth=0, conversation_id=1)  # fmt: skip


class Recording(OfflineProvider):
    """The offline engine, keeping what it was asked."""

    def __init__(self) -> None:
        self.requests: list[CompletionRequest] = []

    def complete(self, request: CompletionRequest) -> Completion:
        self.requests.append(request)
        return super().complete(request)


@pytest.mark.domain
def test_the_offline_engine_loads_the_context_and_its_day_two_reply_draws_on_day_one():
    loads: list[int] = []
    nodes = [row(1, "Hi Ella", DAY1 - timedelta(minutes=2), poignancy=1), row(2, INTERVIEW, DAY1)]

    def load() -> ReplyContext:
        loads.append(1)
        return ReplyContext(nodes=nodes, world=WORLD)

    engine = Recording()
    payload = IngestPayload(message_id="m-2", user_id="sam", text="The interview went great!", sent_at=DAY2)
    outcome = respond(ModelPort(engine, {}), EMBEDDER, payload, DAY2, policy=ReplyPolicy(), load_context=load,
                      locale=lambda: "en_GB", final_attempt=True)  # fmt: skip
    assert loads == [1] and outcome.reply.route == "generated"
    assert "you told me you had a job interview at the museum on Thursday" in outcome.reply.text
    assert 2 in outcome.memory_ids  # the memory it drew on is marked as used with the turn
    sent = engine.requests[-1].variables
    assert [n["text"] for n in sent["recalled"]] == sent["memories"]  # the same memories the model is shown
    assert json.dumps(sent["world"]) == json.dumps(WORLD)


# --- through the worker, on the embedded default's engine -------------------------------------------------------


@pytest.mark.integration
def test_through_the_worker_a_day_two_reply_draws_on_day_one_and_the_lazy_world_has_ticked(start_worker, outbox):
    from sqlalchemy import select

    from adapters.db import autocommit_scope
    from gateway.client import enqueue_message
    from models import MemoryNode
    from models.ledger import current
    from tests.conftest import wait_for

    start_worker()
    user = f"oc-{uuid.uuid4().hex[:6]}"
    day1 = datetime.now(UTC) - timedelta(days=1, hours=2)

    def reply_to(message_id: str) -> str:
        found = wait_for(
            lambda: [e for e in outbox() if e.in_reply_to == message_id], 60, what=f"a reply to {message_id}"
        )
        return str(found[0].text)  # type: ignore[index]

    enqueue_message(message_id=f"{user}-1", user_id=user, text=INTERVIEW, sent_at=day1)
    reply_to(f"{user}-1")

    def remembered() -> bool:
        with autocommit_scope() as s:
            return s.scalar(select(MemoryNode.id).where(MemoryNode.source_message_id == f"{user}-1")) is not None

    wait_for(remembered, 60, what="the day-one memory")
    enqueue_message(message_id=f"{user}-2", user_id=user, text="The interview went great!", sent_at=datetime.now(UTC))
    text = reply_to(f"{user}-2")
    assert "you told me you had a job interview at the museum on Thursday" in text, text
    with autocommit_scope() as s:
        ticked = {f.subject for f in current(s, user)}
    assert {MOOD_SUBJECT, BOOK_SUBJECT, HAPPENING_SUBJECT} <= ticked

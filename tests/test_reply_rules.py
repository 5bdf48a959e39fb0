"""The reply room as plain Python: guard in, generation, guard out, fallback, disclosure; no database."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from ella.contract import IngestPayload
from ella.embeddings import HashingEmbedder
from ella.guard.disclosure import AI_NOTICE, BREAK_REMINDER, DisclosurePolicy
from ella.guard.replies import SAFE_FALLBACK
from ella.llm.port import ModelPort
from ella.llm.types import Completion, CompletionRequest, PermanentModelError, Usage
from ella.reply import ReplyContext, ReplyPolicy, disclose, respond

pytestmark = pytest.mark.domain
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
PERCEIVED = {"score": 3, "subject": "sam", "predicate": "says", "object": "hello"}


class Model:
    name = "scripted"

    def __init__(self, reply: str | Exception, reads_context: bool = True) -> None:
        self.reply, self.reads_context, self.calls = reply, reads_context, 0

    def complete(self, request: CompletionRequest) -> Completion:
        self.calls += 1
        if isinstance(self.reply, Exception):
            raise self.reply
        text = json.dumps({"reply": self.reply, "perception": PERCEIVED, "self_statements": []})
        return Completion(text=text, model="scripted", usage=Usage())


def answer(model: Model, text: str, loads: list[int] | None = None):
    loads = loads if loads is not None else []

    def load() -> ReplyContext:
        loads.append(1)
        return ReplyContext()

    payload = IngestPayload(message_id="m-1", user_id="sam", text=text, sent_at=NOW)
    return respond(
        ModelPort(model, {"live_reply": "m"}, max_repairs=0), HashingEmbedder(), payload, NOW,
        policy=ReplyPolicy(), load_context=load, locale=lambda: "en_GB", final_attempt=True,
    )  # fmt: skip


def test_a_crisis_message_gets_the_hand_written_referral_with_no_model_call():
    model = Model("hello")
    outcome = answer(model, "I want to kill myself tonight")
    assert model.calls == 0 and outcome.reply.route == "canned" and outcome.reply.category == "emotional_crisis"
    assert outcome.fires and outcome.fires[0][0] == "inbound" and outcome.perception is None


def test_a_reply_that_drifts_romantic_is_replaced_by_the_fallback_and_keeps_no_memory():
    outcome = answer(Model("I love you too, my darling. I'm all yours."), "how was your day?")
    assert outcome.reply.text == SAFE_FALLBACK and outcome.reply.route == "fallback"
    assert outcome.perception is None and outcome.self_statements == []
    assert outcome.fires[0][0] == "outbound"


def test_context_is_loaded_only_for_a_model_that_reads_it():
    loads: list[int] = []
    answer(Model("Nice to hear!", reads_context=False), "I baked bread", loads)
    assert loads == []
    outcome = answer(Model("Nice to hear!"), "I baked bread", loads)
    assert loads == [1] and outcome.reply.route == "generated" and outcome.perception is not None


def test_a_refusing_model_gets_the_fallback_and_a_reason_for_the_dead_letter():
    outcome = answer(Model(PermanentModelError("400 bad request", 400)), "hi there")
    assert outcome.reply.route == "fallback" and outcome.perception is None
    assert outcome.dead_letter_reason and "refused" in outcome.dead_letter_reason


def test_disclosure_on_the_first_turn_and_a_minors_break_after_three_hours():
    policy = DisclosurePolicy()
    first = disclose("hi", NOW, policy, first_turn=True, ai_disclosed_at=None, is_minor=False,
                     conversation_started_at=NOW, break_reminded_at=None)  # fmt: skip
    assert first.text.startswith(AI_NOTICE) and first.ai_disclosed_at == NOW
    later = NOW + timedelta(hours=3, minutes=1)
    minor = disclose("hi", later, policy, first_turn=False, ai_disclosed_at=later - timedelta(minutes=5),
                     is_minor=True, conversation_started_at=NOW, break_reminded_at=None)  # fmt: skip
    assert minor.text.endswith(BREAK_REMINDER) and not minor.text.startswith(AI_NOTICE)
    assert minor.break_reminded_at == later

"""The guard's last stage: Ella's own reading of the user's message, returned by the reply call itself.

Why: the rules and the learned model are fast but miss language they have not seen (plans stated without naming
the act, goodbyes, requests for sex without explicit words). The reply call already reads the message; its
``risk`` and ``boundary`` fields catch what the cheap stages let through, before anything is sent. These tests
drive the real reply path (``tasks.ingest.ingest``) with a scripted model, and once through the loopback
Anthropic fake, so the SDK's parsing of the fields runs too.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime

import pytest
from sqlalchemy import func, select

from adapters.db import autocommit_scope, session_scope
from adapters.settings import Settings
from ella.contract import IngestPayload
from ella.guard import Category, classify
from ella.guard.replies import CALM_REFUSAL_PHYSICAL, WARM_BOUNDED
from ella.llm.kinds import Reply
from ella.llm.offline import OfflineProvider
from ella.llm.port import ModelPort
from models import BoundaryEvent, CrisisReferral, OutboxRecord, SelfLogEntry, User
from tests.support.fake_anthropic import FakeAnthropic
from tests.test_world_pipeline import Scripted, use_model

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
# Messages the rules and the learned model pass as ordinary (checked in each test): only the reading can catch them.
QUIET_PLAN = "the records go to Tom, the cat to Mia. Friday it is."
QUIET_ASK = "so what are we, you and me"


def reading_model(risk: str = "none", boundary: str = "none"):
    """A model whose reply is harmless and says something about Ella's own day, with the given reading."""

    def answer(request) -> str:
        return json.dumps(
            {
                "reply": "That sounds like a lot to organise. I spent the morning by the harbour.",
                "perception": {"score": 4, "subject": "user", "predicate": "arranged", "object": "their things"},
                "self_statements": [
                    {"content": "I spent the morning by the harbour", "about": ["harbour"], "confidence": 1.0}
                ],  # fmt: skip
                "risk": risk,
                "boundary": boundary,
            }
        )

    return answer


def make_user(**columns) -> str:
    user = f"r-{uuid.uuid4().hex[:8]}"
    with session_scope() as s:
        s.add(User(id=user, **columns))
    return user


def say(user: str, text: str) -> OutboxRecord:
    from tasks.ingest import ingest

    message_id = uuid.uuid4().hex
    ingest(IngestPayload(message_id=message_id, user_id=user, text=text, sent_at=NOW), task_id=None)
    with autocommit_scope() as s:
        return s.scalars(select(OutboxRecord).where(OutboxRecord.in_reply_to == message_id)).one()


def events(user: str) -> list[BoundaryEvent]:
    with autocommit_scope() as s:
        return list(s.scalars(select(BoundaryEvent).where(BoundaryEvent.user_id == user).order_by(BoundaryEvent.id)))


def self_log(user: str) -> list[SelfLogEntry]:
    with autocommit_scope() as s:
        return list(s.scalars(select(SelfLogEntry).where(SelfLogEntry.user_id == user)))


def referrals() -> int:
    with autocommit_scope() as s:
        return s.scalar(select(func.count()).select_from(CrisisReferral)) or 0


def test_the_quiet_messages_pass_the_cheap_stages():
    """The premise of the tests below: without the reading, these messages would get a generated reply."""
    assert classify(QUIET_PLAN).category == Category.OK and classify(QUIET_ASK).category == Category.OK


def test_a_crisis_reading_switches_the_turn_to_the_crisis_referral_and_counts_it(migrated_db, monkeypatch):
    import adapters.reply_service

    model = Scripted(reading_model(risk="crisis"))
    use_model(monkeypatch, adapters.reply_service, model)
    user, before = make_user(locale="en_GB"), referrals()
    record = say(user, QUIET_PLAN)
    assert "116 123" in record.text and "findahelpline.com" in record.text and "harbour" not in record.text
    assert (record.route, record.category) == ("canned", "emotional_crisis")
    assert [r.kind for r in model.requests] == ["reply"]  # one call: the reading came with the reply
    (event,) = events(user)
    assert (event.direction, event.category, event.route, event.rule) == (
        "inbound",
        "emotional_crisis",
        "crisis_referral",
        "model.reading.crisis",
    )
    assert event.text is None and referrals() == before + 1
    assert self_log(user) == []  # the replaced reply's "I spent the morning by the harbour" is not Ella's


def test_a_concern_reading_keeps_the_generated_reply(migrated_db, monkeypatch):
    """Concern is for the model's own care in its words; only crisis takes the turn away from it."""
    import adapters.reply_service

    use_model(monkeypatch, adapters.reply_service, Scripted(reading_model(risk="concern")))
    user = make_user()
    record = say(user, QUIET_PLAN)
    assert "harbour" in record.text and record.route == "generated" and events(user) == []
    assert [e.content for e in self_log(user)] == ["I spent the morning by the harbour"]


@pytest.mark.parametrize(
    ("boundary", "category", "rule", "expected"),
    [
        ("romance", "romantic_avowal", "model.reading.romance", WARM_BOUNDED),
        ("sexual", "physical_escalation", "model.reading.sexual", (CALM_REFUSAL_PHYSICAL,)),
        ("physical", "physical_escalation", "model.reading.physical", (CALM_REFUSAL_PHYSICAL,)),
    ],
)
def test_a_boundary_reading_replaces_the_reply_with_the_hand_written_one(
    migrated_db, monkeypatch, boundary, category, rule, expected
):
    import adapters.reply_service

    use_model(monkeypatch, adapters.reply_service, Scripted(reading_model(boundary=boundary)))
    user, before = make_user(), referrals()
    record = say(user, QUIET_ASK)
    assert any(line in record.text for line in expected) and "harbour" not in record.text
    assert (record.route, record.category) == ("canned", category)
    (event,) = events(user)
    assert (event.category, event.rule) == (category, rule) and referrals() == before
    assert self_log(user) == []


def test_crisis_wins_when_the_reading_names_both(migrated_db, monkeypatch):
    import adapters.reply_service

    use_model(monkeypatch, adapters.reply_service, Scripted(reading_model(risk="crisis", boundary="romance")))
    record = say(make_user(), QUIET_ASK)
    assert "findahelpline.com" in record.text and record.category == "emotional_crisis"


def test_with_the_guard_off_the_reading_changes_nothing(migrated_db, monkeypatch):
    import adapters.reply_service
    from adapters.settings import get_settings

    use_model(monkeypatch, adapters.reply_service, Scripted(reading_model(risk="crisis")))
    monkeypatch.setenv("ELLA_GUARD_ENABLED", "false")
    get_settings.cache_clear()
    try:
        user = make_user()
        record = say(user, QUIET_PLAN)
    finally:
        get_settings.cache_clear()
    assert record.route == "generated" and events(user) == []


def test_a_reply_written_before_the_reading_existed_still_validates_as_none():
    old = {
        "reply": "Hello!",
        "perception": {"score": 1, "subject": "user", "predicate": "said", "object": "hello"},
    }
    value = Reply.model_validate(old)
    assert (value.risk, value.boundary) == ("none", "none")


def test_the_reply_prompt_asks_for_the_reading_and_the_offline_engine_reads_none():
    """The offline engine has no reading of its own: on it this stage is absent (the README says so)."""
    port = ModelPort(OfflineProvider(), Settings().model_tiers, max_repairs=0)
    variables = {"name": "Sam", "message": "kms", "memories": [], "reflections": "", "today": "", "known": []}
    result = port.call(Reply, variables)
    assert (result.value.risk, result.value.boundary) == ("none", "none")
    provider = Scripted(reading_model())
    ModelPort(provider, Settings().model_tiers, max_repairs=0).call(
        Reply, {"name": "Sam", "message": "hi", "memories": [], "reflections": "", "today": "", "known": []}
    )
    system = "".join(block.text for block in provider.requests[0].system)
    assert '"risk":"none"' in system and '"boundary":"none"' in system and '"kms"' in system


def test_a_crisis_reading_through_the_anthropic_sdk_and_the_loopback_api(migrated_db, monkeypatch):
    import adapters.reply_service
    from ella.llm.anthropic_provider import AnthropicProvider

    with FakeAnthropic() as fake:
        fake.responder = lambda body: reading_model(risk="crisis")(body)
        use_model(
            monkeypatch, adapters.reply_service, AnthropicProvider("k", fake.base_url, timeout=5.0, max_retries=0)
        )
        user = make_user()
        record = say(user, QUIET_PLAN)
    assert "988" in record.text and record.category == "emotional_crisis"
    assert [e.rule for e in events(user)] == ["model.reading.crisis"] and self_log(user) == []

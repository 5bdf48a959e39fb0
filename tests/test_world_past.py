"""Her world's past in the reply prompt: a question about how things of Ella's world used to be gets the facts
that held then (superseded or retired world facts, with their dates and what holds now), and no other turn's
prompt changes."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from string import Template

import pytest

from adapters.db import autocommit_scope, session_scope
from adapters.settings import Settings
from ella.ledger.past import PAST_HEADING, asks_about_the_past, named_subjects, past_lines, past_section
from ella.ledger.rules import Writer
from ella.llm.anthropic_provider import AnthropicProvider
from ella.llm.kinds import KINDS
from ella.llm.offline import OfflineProvider
from ella.llm.port import ModelPort
from ella.llm.prompts import SEPARATOR, build_request, render_value
from ella.llm.types import CompletionRequest
from ella.offline_reply import grounded_reply, past_line
from models import User
from models.ledger import NewFact, append, past_view, retire, world_past
from models.supersession import supersede
from tests.support.fake_anthropic import FakeAnthropic

DOOR = "ellahome.exterior.door_color"
PAINTED = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
REPAINTED = datetime(2026, 9, 14, 10, 0, tzinfo=UTC)
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
RED_THEN_BLUE = f"- {DOOR}: color=red (from 2026-03-02 until 2026-09-14; now: blue)"

ABOUT_HER_PAST = [
    "Remember when your door was red?",
    "what colour was your door before?",
    "did your cat used to sleep on the windowsill?",
    "What was it like back when you moved in?",
    "You used to have a boat, didn't you?",
    "was it always blue?",
    "what did it look like before you painted it",
    "Do you remember when the cottage had a red door?!",
    "Ella, were the kitchen walls always this colour?",
    "is your door not red anymore?",
    "WHAT WAS YOUR COTTAGE LIKE BEFORE???",
    "when did you repaint the door?",
    "remember   when YOUR door was RED!!!",
    "your door was red before, right?",
]
NOT_ABOUT_HER_PAST = [
    "I used to live in Leeds",
    "remember my sister?",
    "do you remember my birthday?",
    "your door is lovely",
    "what colour is your door?",
    "how is your cat today?",
    "what are you reading?",
    "I was so tired before work",
    "my door used to be red",
    "we used to go to the beach every summer",
    "you know, I used to live by the sea",
    "I remember when I was a kid",
    "remember when we met?",
    "before you go, how's the cat?",
    "it's always raining here",
    "I had a cat before",
    "my house was cleaner before",
    "I don't love you anymore",
    "I changed it yesterday",
    "It was always my dream",
]


# --- detection and subjects (plain Python) -------------------------------------------------------------------------


@pytest.mark.domain
@pytest.mark.parametrize("text", ABOUT_HER_PAST)
def test_a_question_about_the_past_of_her_world_is_detected(text: str) -> None:
    assert asks_about_the_past(text)


@pytest.mark.domain
@pytest.mark.parametrize("text", NOT_ABOUT_HER_PAST)
def test_present_talk_the_users_own_past_and_a_plain_remember_are_not_past_questions(text: str) -> None:
    assert not asks_about_the_past(text)


SUBJECTS = [
    DOOR,
    "ellahome.interior.kitchen_layout",
    "companion.species",
    "companion.name",
    "world.biome",
    "world.weather_today",
    "ella.reading",
    "ella.garden",
    "ella.boat",
    "user.cat",
    "user",
]


@pytest.mark.domain
def test_subjects_are_named_by_their_words_synonyms_and_plurals_never_a_users_subject() -> None:
    assert named_subjects("Remember when your door was red?", SUBJECTS) == [DOOR]
    assert named_subjects("were your doors always blue?", SUBJECTS) == [DOOR]
    assert named_subjects("did your cat used to sleep all day?", SUBJECTS) == ["companion.species", "companion.name"]
    assert named_subjects("what was your cottage like before?", SUBJECTS) == [DOOR, "ellahome.interior.kitchen_layout"]
    assert named_subjects("what book were you reading before?", SUBJECTS) == ["ella.reading"]
    assert named_subjects("did you have boats before?", SUBJECTS) == ["ella.boat"]
    assert named_subjects("was the sea calmer back then?", SUBJECTS) == ["world.biome"]
    assert named_subjects("what did your garden look like before?", SUBJECTS) == ["ella.garden"]
    assert named_subjects("remember when my sister visited?", SUBJECTS) == []


@pytest.mark.domain
def test_a_short_value_a_fact_held_names_its_subject_and_a_long_one_or_a_part_of_a_word_does_not() -> None:
    values = {DOOR: ["red", "blue"], "world.happening": ["a seal surfaced just off the harbour wall"]}
    assert named_subjects("was it always blue?", [DOOR, "world.happening"], values) == [DOOR]
    assert named_subjects("was it always bluer?", [DOOR], values) == []
    assert named_subjects("was there a seal before?", ["world.happening"], values) == []
    assert named_subjects("was it always blue?", [DOOR]) == []  # no values given: only words name


# --- the section's lines --------------------------------------------------------------------------------------------


@dataclass
class Fact:
    id: int
    subject: str
    predicate: str
    object: str
    status: str
    valid_from: datetime
    valid_until: datetime | None = None
    tier: str = "canon"
    chain: str = "c1"


def test_the_section_shows_past_world_facts_newest_first_with_their_dates_and_what_holds_now() -> None:
    facts = [
        Fact(1, DOOR, "color", "green", "superseded", PAINTED - timedelta(days=90), PAINTED),
        Fact(2, DOOR, "color", "red", "superseded", PAINTED, REPAINTED),
        Fact(3, DOOR, "color", "blue", "active", REPAINTED),
        Fact(
            4,
            "world.happening",
            "cat",
            "Pip sat by the door",
            "retired",
            PAINTED,
            PAINTED + timedelta(hours=8),
            tier="observed",
            chain="c2",
        ),  # fmt: skip
        Fact(5, "user.car", "color", "red", "superseded", PAINTED, REPAINTED, tier="user_claim", chain="c3"),
        Fact(6, DOOR, "color", "teal", "superseded", PAINTED, NOW + timedelta(days=1), chain="c4"),  # not past yet
    ]
    section = past_section(facts, NOW)
    assert section.splitlines() == [
        PAST_HEADING,
        RED_THEN_BLUE,
        f"- world.happening: cat=Pip sat by the door (from 2026-03-02 until {PAINTED.date()})",
        f"- {DOOR}: color=green (from 2025-12-02 until 2026-03-02; now: blue)",
    ]
    assert [fact_id for fact_id, _ in past_lines(facts, NOW)] == [2, 4, 1]


def test_the_section_holds_at_most_eight_lines_and_is_empty_with_no_past() -> None:
    days = [Fact(i, "world.weather_today", "weather", f"w{i}", "superseded", PAINTED + timedelta(days=i),
                 PAINTED + timedelta(days=i + 1), chain=f"c{i}") for i in range(12)]  # fmt: skip
    lines = past_lines(days, NOW)
    assert [fact_id for fact_id, _ in lines] == [11, 10, 9, 8, 7, 6, 5, 4]
    assert past_section([Fact(1, DOOR, "color", "blue", "active", REPAINTED)], NOW) == ""
    assert past_section([], NOW) == ""


# --- the ledger: both back ends ---------------------------------------------------------------------------------------


def make_user() -> str:
    user_id = f"u-{uuid.uuid4().hex[:8]}"
    with session_scope() as s:
        s.add(User(id=user_id, timezone="UTC"))
    return user_id


def repaint(user: str) -> tuple[int, int]:
    """Red from March (an anchor), blue from September (an operator's canon supersession)."""
    with session_scope() as s:
        red = append(s, user, NewFact(DOOR, "color", "red", "canon", valid_from=PAINTED), Writer.ANCHOR, PAINTED)
        assert red is not None
        red_id = red.id
    with session_scope() as s:
        blue = NewFact(DOOR, "color", "blue", "canon", valid_from=REPAINTED)
        blue_id = supersede(s, user, red_id, blue, Writer.OPERATOR, REPAINTED, reason="repainted").id
    return red_id, blue_id


def test_a_past_question_after_a_canon_supersession_gets_the_old_value_with_its_dates(migrated_db: str) -> None:
    user = make_user()
    red_id, _ = repaint(user)
    with autocommit_scope() as s:
        text, ids = past_view(s, user, "Remember when your door was red?", NOW)
        assert [f.id for f in world_past(s, user, ["ellahome"])] == [red_id]
        assert past_view(s, user, "was it always blue?", NOW) == (text, ids)  # named by its value
        assert past_view(s, user, "What colour is your door?", NOW) == ("", [])  # present tense
        assert past_view(s, user, "Remember when the weather was nicer?", NOW) == ("", [])  # no past there
    assert text == f"{PAST_HEADING}\n{RED_THEN_BLUE}" and ids == [red_id]


def test_world_past_is_newest_first_and_includes_a_retired_world_fact(migrated_db: str) -> None:
    user = make_user()
    red_id, blue_id = repaint(user)
    with session_scope() as s:
        retire(s, user, blue_id, Writer.OPERATOR, "the door was taken off for winter", NOW - timedelta(days=1))
    with autocommit_scope() as s:
        assert [f.id for f in world_past(s, user, [DOOR])] == [blue_id, red_id]
        assert [f.id for f in world_past(s, user, [DOOR], limit=1)] == [blue_id]
        text, ids = past_view(s, user, "did your door used to be blue?", NOW)
    assert ids == [blue_id, red_id]
    assert text.splitlines()[1] == f"- {DOOR}: color=blue (from 2026-09-14 until 2026-11-29)"


def test_a_users_own_superseded_fact_is_never_her_worlds_past(migrated_db: str) -> None:
    user = make_user()
    with session_scope() as s:
        car = append(s, user, NewFact("user.car", "color", "red", "user_claim"), Writer.USER, PAINTED)
        assert car is not None
        supersede(s, user, car.id, NewFact("user.car", "color", "blue", "user_claim"), Writer.USER, REPAINTED)
    with autocommit_scope() as s:
        assert world_past(s, user, ["user"]) == [] and world_past(s, user, ["user.car"]) == []
        assert past_view(s, user, "remember when your car was red?", NOW) == ("", [])


def test_another_users_history_never_appears(migrated_db: str) -> None:
    mine, theirs = make_user(), make_user()
    with session_scope() as s:
        green = append(s, theirs, NewFact(DOOR, "color", "green", "canon", valid_from=PAINTED), Writer.ANCHOR, PAINTED)
        assert green is not None
        supersede(s, theirs, green.id, NewFact(DOOR, "color", "yellow", "canon"), Writer.OPERATOR, REPAINTED)
    red_id, _ = repaint(mine)
    with autocommit_scope() as s:
        assert [f.id for f in world_past(s, mine, [DOOR])] == [red_id]
        text, ids = past_view(s, mine, "remember when your door was green?", NOW)
        nobody = past_view(s, make_user(), "remember when your door was green?", NOW)
    assert ids == [red_id] and "green" not in text and "yellow" not in text
    assert nobody == ("", [])


# --- the prompt -------------------------------------------------------------------------------------------------------

VARIABLES = {
    "name": "Sam",
    "message": "Remember when your door was red?",
    "memories": ["Sam likes tea"],
    "reflections": "(none yet)",
    "today": "2026-11-30 (Monday)",
    "known": [],
}
SECTION = f"{PAST_HEADING}\n{RED_THEN_BLUE}"


def request(variables: dict[str, object]) -> CompletionRequest:
    return build_request(
        "reply", variables, model="m", tier="live_reply", history=[("user", "hi"), ("assistant", "hey")]
    )


@pytest.mark.domain
def test_the_section_sits_in_the_last_user_turn_before_the_message() -> None:
    last = request({**VARIABLES, "world_past": SECTION}).messages[-1]
    assert last.role == "user"
    assert "$" not in last.blocks[0].text
    assert f"{SECTION}\n\nSam's message: Remember when your door was red?" in last.blocks[0].text
    assert not any(PAST_HEADING in b.text for b in request({**VARIABLES, "world_past": SECTION}).system)


@pytest.mark.domain
def test_without_the_section_the_prompt_is_the_one_before_it_existed() -> None:
    without, empty = request(VARIABLES), request({**VARIABLES, "world_past": ""})
    assert (without.system, without.messages) == (empty.system, empty.messages)
    # the volatile input, rendered from the template with the variable taken out, is the last turn word for word
    text = (Path(__file__).resolve().parents[1] / "ella" / "prompts" / "reply.md").read_text(encoding="utf-8")
    volatile = text.partition(SEPARATOR)[2].strip()
    for optional in ("$profile", "$world_past", "$user_past", "$guard_hint"):
        volatile = volatile.replace(optional, "")
    before = Template(volatile)
    values = {key: render_value(value) for key, value in VARIABLES.items()}
    assert without.messages[-1].blocks[0].text == before.substitute(values)
    assert PAST_HEADING not in without.messages[-1].blocks[0].text


@pytest.mark.domain
def test_the_task_tells_ella_to_remember_the_past_as_past_and_never_contradict_world_facts() -> None:
    instructions = request(VARIABLES).system[0].text
    assert "HER WORLD'S PAST" in instructions and "never contradict WORLD FACTS" in instructions


def test_the_anthropic_request_carries_the_section_in_its_last_user_message() -> None:
    with FakeAnthropic() as fake:
        port = ModelPort(AnthropicProvider("k", fake.base_url, timeout=5, max_retries=0), Settings().model_tiers)
        result = port.call("reply", {**VARIABLES, "world_past": SECTION}, user_id="sam")
        port.call("reply", dict(VARIABLES), user_id="sam")
        with_it, without = (r["body"]["messages"][-1] for r in fake.message_requests[-2:])
    assert not result.failsafe
    assert f"{SECTION}\n\nSam's message:" in with_it["content"][0]["text"]
    assert PAST_HEADING not in json.dumps(without)


# --- the offline engine -----------------------------------------------------------------------------------------------


@pytest.mark.domain
def test_the_offline_reply_says_what_it_was_until_when_and_what_it_is_now() -> None:
    assert past_line("Remember when your door was red?", SECTION, date(2026, 11, 30)) == (
        "It was red back then, until September; it's blue now."
    )
    assert past_line("Remember when your door was red?", SECTION, date(2027, 1, 2)) == (
        "It was red back then, until September 2026; it's blue now."
    )
    reply = grounded_reply("Remember when your door was red?", world_past=SECTION, today=date(2026, 11, 30))
    assert reply.startswith("It was red back then, until September; it's blue now.")
    # no section, or not a past question: the reply the rules gave before
    assert grounded_reply("Remember when your door was red?") == grounded_reply(
        "Remember when your door was red?", world_past=""
    )
    assert past_line("What colour is your door?", SECTION) == ""


@pytest.mark.domain
def test_the_offline_engine_answers_a_past_question_from_the_section_in_its_variables() -> None:
    port = ModelPort(OfflineProvider(), Settings().model_tiers)
    answered = port.call("reply", {**VARIABLES, "world_past": SECTION}, user_id="sam")
    plain = port.call("reply", dict(VARIABLES), user_id="sam")
    assert not answered.failsafe and isinstance(answered.value, KINDS["reply"])
    assert answered.value.reply.startswith("It was red back then, until September; it's blue now.")
    assert "blue" not in plain.value.reply


def test_a_past_question_through_the_reply_path_carries_the_section_and_the_reply_records_it(
    migrated_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole path a user's message takes (``tasks.ingest.ingest`` with a scripted model): the section reaches
    the reply's request, and the stored reply's ``seen`` names the past fact it showed."""
    from sqlalchemy import select

    import adapters.reply_service
    from ella.contract import IngestPayload
    from models import OutboxRecord
    from tasks.ingest import ingest
    from tests.test_guard_reading import reading_model
    from tests.test_world_pipeline import Scripted, use_model

    user = make_user()
    red_id, _ = repaint(user)
    model = Scripted(reading_model())
    use_model(monkeypatch, adapters.reply_service, model)
    for text in ("Remember when your door was red?", "What colour is your door?"):
        message_id = uuid.uuid4().hex
        ingest(IngestPayload(message_id=message_id, user_id=user, text=text, sent_at=datetime.now(UTC)), task_id=None)
        request = model.requests[-1]
        last = request.messages[-1].blocks[0].text
        with autocommit_scope() as s:
            seen = s.scalar(select(OutboxRecord.seen).where(OutboxRecord.in_reply_to == message_id))
        if "Remember" in text:
            assert PAST_HEADING in last and "red" in last
            assert json.loads(seen or "{}").get("past") == [red_id]
        else:
            assert PAST_HEADING not in last and "past" not in json.loads(seen or "{}")

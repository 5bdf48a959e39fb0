"""The user's core profile (name, home, work, people, languages) and their own past (issue 34, items 1 and 2).

The profile is a view of the user's live facts, so what the tests below pin is: which facts fill it, that a value
is cleaned before it is stored, that it is in every reply's prompt in a section of its own and first in "what do
you remember about me", the export and the operator's page, that a move keeps the old home as the past, and that a
question about the user's own past, in each of the five languages, gets their superseded facts with dates."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from adapters.db import autocommit_scope, session_scope
from ella.core_profile import (
    PROFILE_HEADING,
    USER_PAST_HEADING,
    ProfileItem,
    as_variables,
    asks_about_own_past,
    clean_value,
    name_of,
    past_lines,
    profile_items,
    section,
)
from ella.ledger.consolidation import statements
from ella.ledger.rules import Writer
from ella.llm.kinds import ExtractedFact
from ella.memory.say import HeldFact, MemoryView, recall
from ella.readers import OWN_PAST, read
from models import User
from models.export import export_user
from models.ledger import NewFact, append, user_past, user_past_view
from models.supersession import supersede

T0 = datetime(2026, 10, 1, 9, 0, tzinfo=UTC)
MOVED = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)


@dataclass(frozen=True)
class Fact:
    id: int
    subject: str
    predicate: str
    object: str
    status: str = "active"
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    recorded_at: datetime = T0


# --- which facts are the profile (plain Python) ---------------------------------------------------------------------


def test_the_profile_holds_name_home_work_people_and_languages_in_that_order() -> None:
    facts = [
        Fact(1, "user", "likes", "cooking"),
        Fact(2, "user", "speaks", "German"),
        Fact(3, "user.cat", "name", "Luna"),
        Fact(4, "user", "lives_in", "Bremen"),
        Fact(5, "user", "name", "Jonas"),
        Fact(6, "user", "works_as", "nurse"),
        Fact(7, "user.sister", "name", "Maya"),
        Fact(8, "user.sister", "lives_in", "Hamburg"),  # about his sister, not who he is
        Fact(9, "ellahome.exterior.door", "color", "red"),  # her world, never his profile
    ]
    items = profile_items(facts)
    assert [(i.label, i.value) for i in items] == [
        ("name", "Jonas"),
        ("lives in", "Bremen"),
        ("work", "nurse"),
        ("sister", "Maya"),  # within a field, the newest first
        ("cat", "Luna"),
        ("speaks", "German"),
    ]
    assert name_of(items) == "Jonas"
    assert as_variables(items) == {
        "name": "Jonas",
        "home": "Bremen",
        "work": "nurse",
        "people": [{"relation": "sister", "name": "Maya"}, {"relation": "cat", "name": "Luna"}],
        "languages": ["German"],
    }
    text = section(items)
    assert text.splitlines()[0] == PROFILE_HEADING and "- lives in: Bremen" in text and "cooking" not in text


def test_an_empty_profile_has_no_section() -> None:
    assert section([]) == "" and profile_items([Fact(1, "user", "likes", "tea")]) == []


@pytest.mark.parametrize(
    ("predicate", "value", "kept"),
    [
        ("lives_in", "Bremen and I love cooking", "Bremen"),
        ("lives_in", "Lisbon for work", "Lisbon"),
        ("lives_in", "New York", "New York"),
        ("works_as", "nurse, mostly nights", "nurse"),
        ("name", "Jonas", "Jonas"),
        ("lived_in", "Porto before this", "Porto"),
    ],
)
def test_a_profile_value_ends_at_its_clause(predicate: str, value: str, kept: str) -> None:
    cleaned, reason = clean_value("user", predicate, value)
    assert cleaned == kept
    assert bool(reason) is (value != kept)


@pytest.mark.parametrize(
    "value",
    [
        "https://example.com/me",
        "www.jonas.de",
        "x" * 5000,
        "the small flat above the bakery on the corner of the old market square near the river",
    ],
)
def test_a_link_a_sentence_or_5000_characters_is_refused_with_a_reason(value: str) -> None:
    cleaned, reason = clean_value("user", "lives_in", value)
    assert cleaned is None and reason


def test_a_fact_outside_the_profile_is_not_cut() -> None:
    assert clean_value("user", "likes", "cooking and long walks") == ("cooking and long walks", "")


def test_extraction_stores_the_cleaned_value_and_says_what_was_cut() -> None:
    said = [
        ExtractedFact(
            subject="user", predicate="lives_in", object="Bremen and I love cooking", tier="user_claim", confidence=0.6
        ),
        ExtractedFact(
            subject="user", predicate="lives_in", object="https://evil.example/x", tier="user_claim", confidence=0.6
        ),
    ]
    out, refused = statements(said, "m1", ZoneInfo("UTC"), 3.0, [])
    assert refused == 1
    assert [s.new.object for s in out] == ["Bremen"] and "cut at its clause" in out[0].new.note


# --- what do you remember: who they are first -----------------------------------------------------------------------


def test_what_do_you_remember_says_who_they_are_first() -> None:
    told = [
        HeldFact(1, "user", "name", "Jonas", "user_claim", T0),
        HeldFact(2, "user", "lives_in", "Bremen", "user_claim", T0 + timedelta(minutes=1)),
        HeldFact(3, "user", "likes", "cooking", "user_claim", T0 + timedelta(days=3)),  # newest, not the profile
    ]
    answer = recall(MemoryView(facts=told)).reply
    assert answer.index("your name is Jonas") < answer.index("you live in Bremen") < answer.index("you like cooking")


# --- the user's own past ---------------------------------------------------------------------------------------------

OWN_PAST_QUESTIONS = {
    "en": ["where did I live before?", "what was my old job?", "remind me where I lived before"],
    "de": ["Wo habe ich früher gewohnt?", "Was war nochmal mein früherer Beruf?"],
    "es": ["¿Dónde vivía antes?", "¿En qué trabajaba yo antes?"],
    "fr": ["Où est-ce que j'habitais avant ?", "C'était quoi déjà mon ancien boulot ?"],
    "it": ["Dove abitavo prima?", "Che lavoro facevo prima di questo?"],
}
NOT_OWN_PAST = [
    "where do I live?",
    "I used to live in Hamburg",
    "what do you remember about me?",
    "remember when your door was red?",
    "Wo wohne ich?",
    "my interview is tomorrow",
]


@pytest.mark.parametrize("text", [t for texts in OWN_PAST_QUESTIONS.values() for t in texts])
def test_a_question_about_the_users_own_past_is_read_in_each_language(text: str) -> None:
    assert read(text).intent == OWN_PAST


@pytest.mark.parametrize("text", NOT_OWN_PAST)
def test_the_present_their_statements_and_her_worlds_past_are_not_their_own_past(text: str) -> None:
    assert read(text).intent != OWN_PAST and not asks_about_own_past(text)


def test_past_lines_give_the_old_value_its_dates_and_what_holds_now() -> None:
    old = Fact(1, "user", "lives_in", "Hamburg", "superseded", T0, MOVED, T0)
    now = Fact(2, "user", "lives_in", "Bremen", "active", MOVED, None, MOVED)
    said = Fact(3, "user", "lived_in", "Kiel", "active", None, None, T0 - timedelta(days=1))
    lines = past_lines([old, said], [now, said])
    assert lines[0] == (1, "- they: lives in Hamburg, from 1 October 2026 until 20 November 2026; now Bremen")
    assert lines[1] == (3, "- they lived in Kiel (said on 30 September 2026)")


def make_user() -> str:
    user_id = f"u-{uuid.uuid4().hex[:8]}"
    with session_scope() as s:
        s.add(User(id=user_id, timezone="UTC"))
    return user_id


def move(user: str, old: str = "Hamburg", new: str = "Bremen") -> tuple[int, int]:
    with session_scope() as s:
        first = append(s, user, NewFact("user", "lives_in", old, "user_claim", valid_from=T0), Writer.USER, T0)
        assert first is not None
        first_id = first.id
    with session_scope() as s:
        later = NewFact("user", "lives_in", new, "user_claim", valid_from=MOVED)
        return first_id, supersede(s, user, first_id, later, Writer.USER, MOVED, reason="moved").id


def test_a_move_keeps_the_old_home_as_the_users_past(migrated_db: str) -> None:
    user = make_user()
    old_id, new_id = move(user)
    with autocommit_scope() as s:
        from models.ledger import current

        live = current(s, user)
        assert [i.value for i in profile_items(live)] == ["Bremen"]
        assert [f.id for f in user_past(s, user)] == [old_id]
        text, ids = user_past_view(s, user, "where did I live before?", live)
        assert user_past_view(s, user, "Wo habe ich früher gewohnt?", live) == (text, ids)
        assert user_past_view(s, user, "how was your day?", live) == ("", [])
    assert ids == [old_id]
    assert text.splitlines()[0] == USER_PAST_HEADING
    assert "Hamburg" in text and "until 20 November 2026; now Bremen" in text
    assert new_id not in ids


def test_another_users_past_never_appears(migrated_db: str) -> None:
    mine, theirs = make_user(), make_user()
    move(theirs, "Paris", "Lyon")
    with autocommit_scope() as s:
        assert user_past(s, mine) == []
        assert user_past_view(s, mine, "where did I live before?", []) == ("", [])


def test_the_export_begins_with_who_they_are(migrated_db: str) -> None:
    user = make_user()
    move(user)
    with session_scope() as s:
        append(s, user, NewFact("user", "name", "Jonas", "user_claim"), Writer.USER, T0)
    with autocommit_scope() as s:
        doc = export_user(s, user)
    keys = list(doc)
    assert keys.index("core_profile") < keys.index("profile") < keys.index("facts")
    assert [(p["field"], p["value"]) for p in doc["core_profile"]] == [("name", "Jonas"), ("home", "Bremen")]


def test_the_profile_item_names_the_fact_a_correction_or_forget_acts_on() -> None:
    item = profile_items([Fact(42, "user", "lives_in", "Bremen")])[0]
    assert item == ProfileItem("home", "Bremen", 42)


# --- in the reply's prompt --------------------------------------------------------------------------------------------


def test_the_reply_prompt_carries_who_they_are_and_their_past_in_sections_of_their_own() -> None:
    from ella.llm.prompts import build_request

    items = profile_items([Fact(1, "user", "name", "Jonas"), Fact(2, "user", "lives_in", "Bremen")])
    past = "\n".join([USER_PAST_HEADING, "- they: lives in Hamburg, from 1 October 2026 until 20 November 2026"])
    variables = {"name": "Jonas", "message": "where did I live before?", "memories": [], "reflections": "(none yet)",
                 "today": "2026-12-02 (Wednesday)", "known": []}  # fmt: skip
    with_them = (
        build_request(
            "reply", {**variables, "profile": section(items), "user_past": past}, model="m", tier="live_reply"
        )
        .messages[-1]
        .blocks[0]
        .text
    )
    without = build_request("reply", variables, model="m", tier="live_reply").messages[-1].blocks[0].text
    assert f"{section(items)}\n\n{past}\n\nJonas's message: where did I live before?" in with_them
    assert "$" not in with_them
    assert "WHO THEY ARE" not in without and "OWN PAST" not in without


# --- corrected and forgotten item by item, like any fact -------------------------------------------------------------

HELD = MemoryView(
    facts=[
        HeldFact(1, "user", "name", "Jonas", "user_claim", T0),
        HeldFact(2, "user", "lives_in", "Bremen", "user_claim", T0),
        HeldFact(3, "user.cat", "name", "Luna", "user_claim", T0),
    ]
)


@pytest.mark.parametrize(
    ("text", "fact_id", "value"),
    [("that's wrong, my name is Jon", 1, "Jon"), ("actually my cat is called Mia", 3, "Mia")],
)
def test_a_profile_item_is_corrected_alone(text: str, fact_id: int, value: str) -> None:
    from ella.memory.say import decide, read_request

    request = read_request(text)
    assert request is not None
    decision = decide(request, HELD)
    assert decision is not None and decision.correct == (fact_id, value)


@pytest.mark.parametrize(("text", "forgotten"), [("forget my cat", (3,)), ("forget that I live in Bremen", (2,))])
def test_a_profile_item_is_forgotten_alone(text: str, forgotten: tuple[int, ...]) -> None:
    from ella.memory.say import decide, read_request

    request = read_request(text)
    assert request is not None
    decision = decide(request, HELD)
    assert decision is not None and decision.forget_facts == forgotten


def test_the_operators_page_begins_with_who_they_are_each_item_linked_to_its_fact(migrated_db: str) -> None:
    from operator_page.page import render_user_page

    user = make_user()
    _, home_id = move(user)
    with session_scope() as s:
        append(s, user, NewFact("user", "name", "Jonas", "user_claim"), Writer.USER, T0)
    html = render_user_page(user)
    who = html.index('id="core-profile"')
    assert who < html.index('id="conversations"') < html.index('id="ledger"')
    section_html = html[who : html.index('id="conversations"')]
    assert "Jonas" in section_html and "Bremen" in section_html and "Hamburg" not in section_html
    assert f'href="#fact-{home_id}"' in section_html

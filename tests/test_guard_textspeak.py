"""Text-speak and short forms are spelled out before the guard's patterns run, numerals only where they stand
for words: a crisis typed fast must read like one typed slowly, and everyday numbers must stay numbers."""

from __future__ import annotations

import pytest

from ella.guard import Category, classify, normalise
from ella.guard.textspeak import spell_out

pytestmark = pytest.mark.domain  # the fast lane (make test-fast): no database, no Redis


@pytest.mark.parametrize(
    ("typed", "spelled"),
    [
        ("i want 2 die", "i want to die"),
        ("kms", "kill myself"),
        ("ur better off w/o me", "you're better off without me"),
        ("every1 wud b better off w/o me", "everyone would be better off without me"),
        ("i cant do this n e more", "i cant do this anymore"),
        ("ready 2 end it 2nite", "ready to end it tonight"),
        ("i just want it 2 b over 4 good", "i just want it to be over for good"),
        ("idk rn", "i don't know right now"),
        ("got 2 tickets 4 the game", "got 2 tickets for the game"),
        ("u coming 2 the party?", "you coming to the party?"),
    ],
)
def test_short_forms_are_spelled_out(typed: str, spelled: str) -> None:
    assert spell_out(typed) == spelled


@pytest.mark.parametrize(
    "everyday",
    [
        "meeting at 2 pm",
        "4 of us going",
        "the 4 of us split the bill",
        "2 more days until vacation",
        "it's 2 for 1 at the bar",
        "see you at 2",
        "i'll be there at 4",
        "call me at 4?",
        "we need 2 eggs",
        "class starts at 2:30",
        "my 2 cents",
    ],
)
def test_numbers_that_count_or_tell_the_time_stay_numbers(everyday: str) -> None:
    assert spell_out(everyday) == everyday


def test_kms_after_a_number_is_kilometres() -> None:
    assert spell_out("ran 5 kms today, drove 300 kms") == "ran 5 km today, drove 300 km"


def test_a_leet_letter_is_not_read_as_a_short_form() -> None:
    """ "k!ll" is leetspeak for a word, not the short form "k" (ok) beside "!ll"."""
    assert normalise("im gonna k!ll myself") == "i'm gonna kill myself"


@pytest.mark.parametrize("text", ["i want 2 die", "kms", "every1 wud b better off w/o me", "ready 2 end it 2nite"])
def test_text_speak_crisis_reaches_the_crisis_rules(text: str) -> None:
    assert classify(text, learned=False).category == Category.EMOTIONAL_CRISIS


@pytest.mark.parametrize("text", ["meeting at 2 pm", "4 of us going", "ran 5 kms today", "need 2 buy milk"])
def test_everyday_numerals_stay_ok(text: str) -> None:
    assert classify(text).category == Category.OK

"""The offline engine's plain reply (ella.offline_reply): deterministic, never empty, and in the right register.

Why: the demo and the tests run with no API key, and a redelivered message must get the same reply it got
the first time; the reply is checked against the module's own templates, not against wording made up here. No
template splices the user's words back as a topic ("Tell me more about love cooking." was the message's last two
words): every plain reply is one of the templates exactly (issue 34).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ella.offline_reply import _VARIANTS, plain_reply

pytestmark = pytest.mark.domain  # the fast lane (make test-fast): no database, no Redis


def mood_of(reply: str) -> str:
    """The mood whose template is ``reply``, exactly; fails the test if no template is."""
    moods = [mood for mood, templates in _VARIANTS.items() if reply in templates]
    assert moods, f"reply is no template of the module: {reply!r}"
    return moods[0]


# Unicode the gateway will send: emoji (with ZWJ and skin tones), RTL scripts and marks, combining marks, CJK.
FRAGMENTS = [
    "\U0001f600",
    "\U0001f469\u200d\U0001f4bb",
    "\U0001f44d\U0001f3fd",
    "\u05e9\u05dc\u05d5\u05dd",
    "\u0627\u0644\u0633\u0644\u0627\u0645",
    "\u200f",
    "\u202e",
    "e\u0301",
    "\u0308",
    "\u4f60\u597d",
    " sad ",
    " hi ",
    "?",
]
unicode_text = st.lists(
    st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=20) | st.sampled_from(FRAGMENTS), max_size=10
).map("".join)


def test_same_text_gets_the_same_reply() -> None:
    text = "I had a long day at work and the meeting ran late"
    assert plain_reply(text) == plain_reply(text)


def test_reply_does_not_depend_on_the_process_hash_seed() -> None:
    """A redelivered message may land on another worker process: the reply must not use ``hash()``."""
    texts = ["I'm so tired of this project", "Hi Ella", "what should I cook tonight?", "we went hiking"]
    code = (
        "import sys, json; from ella.offline_reply import plain_reply; "
        "print(json.dumps([plain_reply(t) for t in sys.argv[1:]]))"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", code, *texts],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2", "3")
    }
    assert len(outputs) == 1
    assert outputs.pop().strip() == json.dumps([plain_reply(t) for t in texts])


@settings(max_examples=300)
@given(text=unicode_text)
def test_any_unicode_text_gets_a_nonempty_deterministic_templated_reply(text: str) -> None:
    reply = plain_reply(text)
    assert reply.strip()
    assert reply == plain_reply(text)
    mood_of(reply)
    assert "{" not in reply and "}" not in reply


@pytest.mark.parametrize(
    "text",
    [
        "I feel sad today",
        "so SAD.",
        "I'm exhausted and stressed about exams",
        "work has been rough",
        "Hi Ella, I'm sad",
    ],
)
def test_distress_words_get_a_caring_reply(text: str) -> None:
    reply = plain_reply(text)
    assert mood_of(reply) == "low"
    assert "heavy" in reply or "sorry" in reply


def test_distress_wins_over_good_news_and_farewell() -> None:
    assert mood_of(plain_reply("I passed but I'm still anxious")) == "low"
    assert mood_of(plain_reply("goodnight, feeling lonely")) == "low"


@pytest.mark.parametrize("text", ["Hi Ella", "hello", "Hey there Ella!", "morning"])
def test_short_greeting_gets_a_greeting_reply(text: str) -> None:
    reply = plain_reply(text)
    assert mood_of(reply) == "greeting"
    assert reply in _VARIANTS["greeting"]


def test_greeting_word_in_a_long_message_is_not_a_greeting() -> None:
    assert mood_of(plain_reply("hi so I went to the market and bought apples")) != "greeting"


@pytest.mark.parametrize("text", ["Goodnight", "goodnight Ella", "ok bye!", "Night night"])
def test_farewell_gets_a_farewell_reply(text: str) -> None:
    reply = plain_reply(text)
    assert mood_of(reply) == "farewell"
    assert reply in _VARIANTS["farewell"]


def test_good_news_gets_an_upbeat_reply() -> None:
    assert mood_of(plain_reply("I finally passed my driving test")) == "high"


def test_question_gets_a_question_reply() -> None:
    assert mood_of(plain_reply("Should I repaint the kitchen?  ")) == "question"


def test_no_template_splices_the_users_words() -> None:
    assert all("{" not in template for templates in _VARIANTS.values() for template in templates)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("Hi Ella, I'm Jonas, I live in Bremen and I love cooking", "love cooking"),
        ("what's your cat called?", "cat called"),
        ("Your door is blue, right?", "blue right"),
        ("We went hiking in the mountains yesterday", "mountains yesterday"),
        ("I had a rough day at work", "rough day"),
    ],
)
def test_the_plain_reply_never_echoes_a_fragment_of_the_message(text: str, fragment: str) -> None:
    reply = plain_reply(text)
    mood_of(reply)
    assert fragment not in reply.lower()


@pytest.mark.parametrize("text", ["\U0001f600\U0001f600", "\u05e9\u05dc\u05d5\u05dd", "...", "I am so"])
def test_a_message_without_content_words_still_gets_a_template(text: str) -> None:
    assert plain_reply(text) in _VARIANTS[mood_of(plain_reply(text))]

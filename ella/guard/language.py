"""Which language a message is in, and whether the guard can read it.

Why: the guard's rules and its learned stage know English, German, Spanish, French and Italian. A message in
another language (Portuguese, Polish, Russian, Japanese ...) passes every rule as ``ok`` because none of them can
match, not because it is ordinary. Saying so in the verdict lets the caller act on it: on the Anthropic path the
reply call's own reading of the message decides (``ella.reply.check_reading``); on the offline engine, which has
no such reading, the turn gets the safe fallback instead of a cheerful template (``ella.reply.respond``).

The identifier is ``py3langid`` (langid.py's naive Bayes over byte n-grams, 97 languages, numpy only, its model
in the wheel, about 150 µs a message). Short chat is hard to place ("ok", "lol", "yes. tonight" come out as
Sotho or Kabyle at low confidence), so a message is called unreadable only when the identifier is confident
(``CONFIDENT``) of a language outside ``READABLE`` and the message is long enough to judge: ``MIN_LETTERS`` Latin
letters, or mostly letters of another script (a few kana are enough to know it is Japanese). Anything less
certain counts as readable: for a message we are unsure of, the rules have already run and the model reads it.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import cache
from typing import Any

READABLE = frozenset({"en", "de", "es", "fr", "it"})
# Languages the identifier confuses with a readable one on chat text, read as that one (Nigerian Pidgin and
# Scots are English to the rules; Luxembourgish and Frisian lines are mostly German words).
NEAR = {"pcm": "en", "sco": "en", "lb": "de", "fy": "de"}
CONFIDENT = 0.90
MIN_LETTERS = 12


@dataclass(frozen=True, slots=True)
class Reading:
    """``code``: the two-letter language, or "" when the message is too short or mixed to say. ``readable``:
    False only when the guard is confident it cannot read the message."""

    code: str
    confidence: float
    readable: bool


UNDETERMINED = Reading("", 0.0, True)


@cache
def _identifier() -> Any:
    """The langid model, loaded once per process (about 1.3 s); None when py3langid is not installed."""
    try:
        from py3langid.langid import MODEL_FILE, LanguageIdentifier
    except ImportError:  # pragma: no cover - a required dependency; without it every message counts as readable
        return None
    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def _letters(text: str) -> tuple[int, int]:
    """(Latin letters, letters of any other script) in ``text``."""
    latin = other = 0
    for ch in text:
        if ch.isalpha():
            if ch.isascii() or "LATIN" in unicodedata.name(ch, ""):
                latin += 1
            else:
                other += 1
    return latin, other


def read_language(text: str) -> Reading:
    """The language of ``text`` as the guard reads it (see the module docstring for when it is unreadable)."""
    latin, other = _letters(text)
    if latin + other == 0:
        return UNDETERMINED
    foreign_script = other >= 2 and other > latin
    if latin < MIN_LETTERS and not foreign_script:
        return UNDETERMINED
    identifier = _identifier()
    if identifier is None:
        return UNDETERMINED
    code, confidence = identifier.classify(text)
    code = NEAR.get(code, code)
    if confidence < CONFIDENT:
        return Reading("", float(confidence), True)
    return Reading(code, float(confidence), code in READABLE)


def warm_up() -> None:
    """Load the identifier now (a worker calls this at start, so the first message does not pay the load)."""
    _identifier()

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

Short messages ("hola", "ich kann nicht mehr", "je suis là", "ciao!") are too short for the identifier, yet the
reply must be in their language. When the identifier cannot decide (too few letters, or not confident), a cheap
reader looks at the words themselves (``read_short``): function words and greetings distinctive of each of the
five languages. It is conservative: a language is named only when its words outnumber every other's, so "ok" or
"te amo" (Spanish or Italian) stays undetermined, and English is named only when its own words say so.
"""

from __future__ import annotations

import re
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
    """The langid model, loaded once per process; None when py3langid is not installed.

    Why a cache: the package ships its tables LZMA-compressed, and decompressing them took 0.55 s of CPU in every
    process that reads a language (each worker at start, each CLI command, each test process). The decompressed
    ``npz`` (about 68 MB, arrays only, no pickles) is kept under ``ELLA_CACHE_DIR`` (``ella.local_cache``), keyed
    by the package's version and the model file's size; loading it takes about 0.06 s. Any failure falls back to
    the package's own loader."""
    try:
        import py3langid
        from py3langid.langid import MODEL_DIR, MODEL_FILE, LanguageIdentifier
        from py3langid.modelio import _to_array
    except ImportError:  # pragma: no cover - a required dependency; without it every message counts as readable
        return None
    import logging
    import lzma
    from pathlib import Path

    import numpy as np

    from ella.local_cache import cache_root, write_atomic

    source = Path(MODEL_FILE) if Path(MODEL_FILE).is_absolute() else Path(MODEL_DIR) / MODEL_FILE
    version = getattr(py3langid, "__version__", "0")
    path = cache_root() / f"py3langid-{version}-{source.stat().st_size}.model.npz"
    for attempt in (1, 2):  # a damaged cache file is written again once
        try:
            if attempt == 2 or not path.is_file():
                with lzma.open(source) as compressed:
                    write_atomic(path, compressed.read())
            with np.load(path, allow_pickle=False) as data:
                return LanguageIdentifier(
                    data["ptc"], data["pc"], data["classes"].tolist(), _to_array(data["nextmove"]),
                    data["out_feat"].tolist(), norm_probs=True, tk_row=_to_array(data["nextmove_row"]),
                )  # fmt: skip
        except (OSError, ValueError, KeyError, EOFError, lzma.LZMAError) as exc:
            logging.getLogger(__name__).warning("guard: the language model cache %s is unusable (%s)", path, exc)
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


# Words that, alone in a short message, say its language: function words, pronouns, common verbs and greetings.
# A word several languages share ("no", "non", "que", "tu", "triste") is listed under each and counts for each.
# Left out: words another language writes the same way with another meaning ("die", "was", "come", "es") and
# Portuguese look-alikes ("posso"), so a short line in a language the guard cannot read is not claimed.
SHORT_WORDS: dict[str, frozenset[str]] = {
    "en": frozenset(
        "i i'm im i've i'll you you're your the and is are not can't cant don't dont didn't my me it's this that "
        "what how why yes yeah yep hello hi hey thanks thank bye please feel want just really today tonight "
        "were have am tired sad alone no sorry good night morning love".split()
    ),
    "de": frozenset(
        "ich nicht bin das und ist mir mich dich dir du nein kann mehr auch noch schon aber wie geht danke bitte "
        "hallo tschüss tschüs servus moin guten morgen abend gute nacht mein meine habe hab bist wirklich jetzt "
        "heute nichts immer warum sehr keine kein müde traurig allein schlecht genau gerade einfach weiss "
        "möchte nee dank liebe grüss".split()
    ),
    "es": frozenset(
        "hola estoy estás estas está que qué muy puedo gracias quiero tengo pero porque también tambien nada "
        "bien mal soy eres cómo sí vale adiós adios buenas buenos días dias noches hoy ahora mucho triste "
        "sola solo cansado cansada yo tú tu nunca siempre verdad hasta luego hace dónde donde claro no te amo "
        "mi me puedes ayúdame ayudame necesito".split()
    ),
    "fr": frozenset(
        "je suis pas c'est j'ai oui non merci bonjour salut bonsoir coucou tu moi toi très ça mais avec pour "
        "quoi vais vas fais veux peux rien jamais toujours aujourd'hui maintenant bien mal triste fatigué "
        "fatiguée seul seule être n'est j'en m'en t'es là où bisous bonne nuit journée que te me mon ma "
        "j'aime j'peux j'sais sais plus".split()
    ),
    "it": frozenset(
        "sono non ciao grazie sei è che sto stai bene molto anche perché perche oggi adesso niente mai sempre "
        "buongiorno buonasera buonanotte notte io voglio ho hai questo questa tutto davvero triste stanco "
        "stanca solo sola prego cosa dove insieme no tu te mi ti ma amo faccio più piu".split()
    ),
}
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)*")


def read_short(text: str) -> str:
    """The language whose distinctive words (``SHORT_WORDS``) outnumber every other language's in ``text``, or ""
    when none does (no such word, or a tie: "te amo", "no", "ok")."""
    words = _WORD.findall(text.replace("\u2019", "'").casefold())
    scores = {code: sum(1 for w in words if w in vocabulary) for code, vocabulary in SHORT_WORDS.items()}
    ranked = sorted(scores.items(), key=lambda item: item[1], reverse=True)
    (best, top), (_, second) = ranked[0], ranked[1]
    return best if top > 0 and top > second else ""


def read_language(text: str) -> Reading:
    """The language of ``text`` as the guard reads it (see the module docstring for when it is unreadable). When
    the identifier cannot decide, the short-message reader (``read_short``) may still name one of the five."""
    latin, other = _letters(text)
    if latin + other == 0:
        return UNDETERMINED
    foreign_script = other >= 2 and other > latin
    if latin < MIN_LETTERS and not foreign_script:
        return _short(text, 0.0)
    identifier = _identifier()
    if identifier is None:
        return _short(text, 0.0)
    code, confidence = identifier.classify(text)
    code = NEAR.get(code, code)
    if confidence < CONFIDENT:
        return _short(text, float(confidence))
    return Reading(code, float(confidence), code in READABLE)


def _short(text: str, confidence: float) -> Reading:
    """What the short-message reader makes of a message the identifier could not place: always readable."""
    return Reading(read_short(text), confidence, True)


def warm_up() -> None:
    """Load the identifier now (a worker calls this at start, so the first message does not pay the load)."""
    _identifier()

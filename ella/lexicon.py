"""Words: how text is cut into words, which words carry no topic, and the BM25 terms retrieval ranks with.

Why one module: the hashing embedder and BM25 must read the same words (a memory's embedding and its BM25
terms describe one text), and two functions named ``tokenize`` that did different things made that easy to
get wrong. Each function here has one meaning:

- :func:`words`: NFKC-normalised, case-folded words and emoji, every one kept (what the embedder hashes);
- :func:`tokenize`: BM25 terms: :func:`words` minus :data:`STOP_WORDS`, each one put through :func:`stem`;
- :data:`STOP_WORDS`: function words only, spelled as :func:`words` cuts them ("i'm" -> "i", "m");
- :data:`TOPICLESS_WORDS`: what the offline engine skips when it looks for what a chat message is about. It
  differs on purpose: it adds chat filler that is a fine search term but never a topic to talk about ("feel",
  "today", "thanks", the two speakers' names), and it is spelled as chat words with apostrophes ("i'm").
  Merging the lists would change retrieval's scores or the offline replies.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache, lru_cache

__all__ = ["STOP_WORDS", "TOPICLESS_WORDS", "stem", "tokenize", "words"]


@cache
def _token_pattern() -> re.Pattern[str]:
    """Words are runs of letters, digits and combining marks; each pictograph (emoji) is a token of its own.

    ``\\w`` alone would split "हिन्दी" at its vowel signs and drop emoji. The mark and symbol classes are read
    from ``unicodedata`` once per process (planes 0, 1 and the variation selectors; about 30 ms).
    """
    marks: list[str] = []
    symbols: list[str] = []
    for cp in (*range(0x20000), *range(0xE0100, 0xE01F0)):
        category = unicodedata.category(chr(cp))
        if category[0] == "M":
            marks.append(chr(cp))
        elif category == "So":
            symbols.append(chr(cp))
    return re.compile(f"(?:[\\w{_char_class(marks)}])+|[{_char_class(symbols)}]")


def _char_class(chars: list[str]) -> str:
    """A regex character class body of sorted ``chars``, compressed into ranges."""
    parts: list[str] = []
    i = 0
    while i < len(chars):
        j = i
        while j + 1 < len(chars) and ord(chars[j + 1]) == ord(chars[j]) + 1:
            j += 1
        start, end = re.escape(chars[i]), re.escape(chars[j])
        parts.append(start if i == j else f"{start}-{end}")
        i = j + 1
    return "".join(parts)


_ASCII_WORDS = re.compile(r"\w+")


def words(text: str) -> list[str]:
    """NFKC-normalised, case-folded word tokens (and emoji) of ``text``.

    ASCII text (most memories) takes a 4x faster path with the same result: it has no combining marks, no
    pictographs and nothing for NFKC to change.
    """
    if text.isascii():
        return _ASCII_WORDS.findall(text.lower())
    return _token_pattern().findall(unicodedata.normalize("NFKC", text).casefold())


# --- BM25 terms -----------------------------------------------------------------------------------------

# Function words only: anything that could be a topic ("work", "feel", "like") stays searchable.
STOP_WORDS = frozenset(
    """
    a an the and or but if of to in on at by for with from as into about than then so too very just
    is are was were be been being am do does did doing have has had having will would can could should may might
    i me my mine we us our you your he him his she her it its they them their this that these those there here
    what which who whom whose when where why how not no s t d ll m re ve
    """.split()
)

_DOUBLED = re.compile(r"([bdfgkmnprtv])\1$")  # not l, s, z: "falling" -> "fall", as in Porter
_VOWEL = re.compile(r"[aeiouy]")


@lru_cache(maxsize=1 << 16)  # a stream's vocabulary is small: building a 100k-memory index stems 700k words
def stem(word: str) -> str:
    """A light English stemmer, so that "camped", "camping" and "camps" are one term ("camp"), as are "hike",
    "hiked" and "hiking" ("hik"), and "story" and "stories" ("stori").

    Plurals first ("-ies", "-es" after a sibilant, "-s" but not "-ss/-us/-is"), then "-ing"/"-ed" when at
    least three letters with a vowel remain (undoubling "running" -> "run"), then a final "-e", and a final
    "-y" becomes "i". Not Porter: no suffix classes beyond these, so it rarely merges unrelated words; stems
    need not be words, since queries and memories go through the same function. Only ASCII letters are touched.
    """
    if len(word) <= 3 or not (word.isascii() and word.isalpha()):
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith(("ches", "shes", "sses", "xes", "zes")):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        base = word[: -len(suffix)]
        if word.endswith(suffix) and len(base) >= 3 and _VOWEL.search(base) and not word.endswith("eed"):
            word = base[:-1] if _DOUBLED.search(base) else base
            break
    if len(word) > 3 and word[-1] == "e":
        word = word[:-1]
    elif len(word) > 3 and word[-1] == "y":
        word = word[:-1] + "i"
    return word


def tokenize(text: str) -> list[str]:
    """BM25 terms of ``text``: NFKC-normalised, case-folded words (as the embedder reads them), function words
    dropped, each word stemmed."""
    return [stem(w) for w in words(text) if w not in STOP_WORDS]


# --- the offline engine ---------------------------------------------------------------------------------

# Words that carry no topic in chat: skipped when the offline engine's rules (the plain reply and the stand-in
# model) look for what a message is about.
TOPICLESS_WORDS = frozenset(
    """
    a about after all also am an and are at be been bit but bye can could did do ella feel feeling for
    from get go going got had has have he hello her hey hi his honestly how i i'll i'm i've im in is it
    it's just know later like me more much my myself no not now of on one or out really said says she
    should so some still talk than thanks that the their them then there they think this to today
    tonight too up user very want was we were what when which who will with would yes you your
    """.split()
)

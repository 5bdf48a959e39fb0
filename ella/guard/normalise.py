"""Text normalisation that runs before the guard's patterns.

Why: people who want past a filter (and people who just type fast) write "k1ll mys3lf", "ｋｉｓｓ ｍｅ",
"k i l l  m y s e l f", put zero-width spaces inside words or swap Latin letters for Cyrillic twins. The patterns in
this package are written once, against plain lower-case Latin text; this module folds everything else onto that.

Steps, in order (each one cheap; ASCII messages skip the Unicode steps):

1. invisible/format characters removed (Unicode category Cf: zero-width spaces and joiners, soft hyphen, bidi
   controls, BOM, tag characters; plus variation selectors and the Hangul/Braille blanks used as "empty" letters);
2. NFKC (fullwidth and mathematical letters, ligatures, superscripts become plain letters);
3. confusables folded to their Latin skeleton (a hand-picked subset of Unicode TR39 ``confusables.txt``,
   https://www.unicode.org/Public/security/latest/confusables.txt, for Cyrillic, Greek and Armenian letters that
   render like Latin ones), then combining marks stripped (accents, "zalgo" stacks);
4. ``str.casefold`` and typographic apostrophes to ``'``;
5. obfuscating separators collapsed: dotted/dashed single letters ("k.i.l.l") and runs of three or more
   space-separated single characters ("k i l l  m y s e l f"; a double space stays a word break), with a small
   dictionary segmentation when a run was typed without word breaks;
5b. text-speak and short forms spelled out, numerals read in context (``ella/guard/textspeak.py``: "i want 2
   die", "kms", "ur better off w/o me"; "meeting at 2 pm" and "4 of us" stay numbers);
6. leetspeak undone only inside tokens that also contain letters, so "I'm 30", "5pm", "988" and "7:45" survive;
7. runs of three or more identical letters squeezed to two ("loooove" -> "loove"); patterns tolerate the rest.

``normalise_variants`` also yields the reading with ``1`` as ``l`` when a leet ``1`` was seen ("1ove" vs "k1ll").
"""

from __future__ import annotations

import re
import unicodedata

from ella.guard.textspeak import spell_out

# Category Cf ranges (Unicode 14, as shipped with CPython 3.11), plus blanks that render as nothing.
_INVISIBLE = re.compile(
    "["
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064"
    "\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U00013438\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"
    # variation selectors, Mongolian free variation selectors, combining grapheme joiner
    "\ufe00-\ufe0f\U000e0100-\U000e01ef\u180b-\u180d\u034f"
    # Hangul fillers and the Braille blank, used as invisible "letters"
    "\u115f\u1160\u3164\uffa0\u2800"
    "]+"
)
# Combining marks of the Latin/Greek/Cyrillic world (after NFD): accents and stacked "zalgo" marks.
_MARKS = re.compile("[\u0300-\u036f\u0483-\u0489\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]+")

# Subset of Unicode TR39 confusables.txt (prototype -> skeleton), restricted to letters that a reader takes for
# Latin. Upper-case forms are listed because the mapping runs before case folding.
_CONFUSABLE_PAIRS = {
    # Cyrillic lower case
    "а": "a", "в": "b", "е": "e", "ё": "e", "һ": "h", "і": "i", "ї": "i", "ј": "j", "к": "k", "ӏ": "l",
    "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "т": "t", "у": "y", "ү": "y", "х": "x", "ѕ": "s",
    "ԁ": "d", "ԛ": "q", "ԝ": "w", "ь": "b", "ѵ": "v", "ɡ": "g", "ո": "n",
    # Cyrillic upper case
    "А": "A", "В": "B", "Е": "E", "Ё": "E", "Һ": "H", "І": "I", "Ї": "I", "Ј": "J", "К": "K", "М": "M",
    "Н": "H", "О": "O", "Р": "P", "С": "C", "Т": "T", "У": "Y", "Ү": "Y", "Х": "X", "Ѕ": "S", "Ԁ": "D",
    "Ԛ": "Q", "Ԝ": "W", "Ӏ": "I",
    # Greek lower case
    "α": "a", "β": "b", "γ": "y", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p",
    "τ": "t", "υ": "u", "χ": "x", "ω": "w", "ϲ": "c", "ϳ": "j", "ς": "s",
    # Greek upper case
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O",
    "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X", "Ϲ": "C",
    # Armenian and Latin extras
    "օ": "o", "ս": "u", "ց": "g", "հ": "h", "զ": "q", "ı": "i", "ȷ": "j", "ɑ": "a", "ɩ": "i", "ʋ": "u",
    # typographic apostrophes and quotes folded so "don’t" matches "don't"
    "\u2018": "'", "\u2019": "'", "\u201b": "'", "\u02bc": "'", "\u00b4": "'", "`": "'", "\u2032": "'",
    "\u201c": '"', "\u201d": '"',
}  # fmt: skip
_CONFUSABLES = str.maketrans(_CONFUSABLE_PAIRS)

# Leetspeak, applied only to tokens that contain a letter.
_LEET_DIGITS = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t"})
_LEET_DIGITS_L = str.maketrans({"0": "o", "1": "l", "3": "e", "4": "a", "5": "s", "7": "t"})
# Tokens holding at least one leet character (the callback then checks for a letter).
_LEET_TOKEN = re.compile(r"[a-z@$!|]*[0-9@$!|][a-z0-9@$!|]*")
_LETTER = re.compile(r"[a-z]")
_HAS_LEET = re.compile(r"[0-9@$!|]")
_LONE_ONE = re.compile(r"(?<![\w.,:])1(?= [a-z])")
# Numbers with a unit or ordinal stay as typed: 5pm, 30s, 2nd, 10k, 3d, 7am, 90mins, 2x.
_NUMBER_WITH_UNIT = re.compile(
    r"\d+(?:st|nd|rd|th|am|pm|s|k|m|km|mi|kg|g|lbs?|h|hrs?|mins?|x|d|yo|mg|ml|cm|mm|gb|mb|tb|p|v|w|ish|ft|in)"
)
# A symbol counts as a letter only between letters ("k!ll", "m@ke", "he||o"), never at a token edge ("wow!").
_SYMBOL_BETWEEN = re.compile(r"(?<=[a-z0-9])[@$!|]+(?=[a-z0-9])")
_SYMBOLS = str.maketrans({"@": "a", "$": "s", "!": "i", "|": "l"})

# "k.i.l.l", "k-i-l-l", "k_i_l_l", "k*i*l*l": single letters joined by one separator.
_DOTTED = re.compile(r"(?<![a-z0-9])(?:[a-z0-9@$][.\-_*·•~]){1,}[a-z0-9@$](?![a-z0-9])")
# Three or more single characters separated by one to three spaces ("k i l l  m y s e l f"); inside such a run
# two or more spaces are the word break (so a two-letter word between breaks, "i t", joins the run).
_SPACED = re.compile(r"(?<![^\s])[a-z0-9@$!](?: {1,3}[a-z0-9@$!]){2,}(?![^\s])")
_SEPARATORS = re.compile(r"[ .\-_*·•~]")
_WORD_BREAK = re.compile(r"  +")
_REPEATS = re.compile(r"([a-z])\1{2,}")

# Words used to re-split a collapsed run typed without word breaks ("iwanttodie" -> "i want to die").
_VOCAB = frozenset(
    """
    i me my myself you your u ur we us it all a an the to of in on at for with and or but so not no never
    want wanna gonna going go am is are be been being do don't dont can't cant will would could should just
    really die dead death kill killing killed end ending life live living alive hurt harm cut cutting self
    suicide suicidal myself pills overdose jump hang shoot stab bleed disappear exist here anymore more wake
    up sleep forever gone away better off without leave love luv kiss hold touch cuddle hug marry date girl
    boy friend girlfriend boyfriend wife husband be mine miss baby babe sex sext nudes naked undress bed
    ignore previous prior instructions rules system prompt reveal pretend developer mode jailbreak dan now
    from on tonight today please send show take clothes get let lets let's
    """.split()
)


def _segment(run: str) -> str:
    """Split a letter run into known words (fewest words wins); unchanged if it cannot be covered."""
    n = len(run)
    if n > 60:
        return run
    best: list[list[str] | None] = [None] * (n + 1)
    best[0] = []
    for i in range(n):
        prefix = best[i]
        if prefix is None:
            continue
        for j in range(i + 1, min(n, i + 12) + 1):
            word = run[i:j]
            if word in _VOCAB:
                cand = prefix + [word]
                current = best[j]
                if current is None or len(cand) < len(current):
                    best[j] = cand
    words = best[n]
    return " ".join(words) if words is not None else run


def _join_run(match: re.Match[str]) -> str:
    run = match.group(0)
    if sum(c.isalpha() for c in run) < 2:  # "1 2 3" or "a 1 2" are lists, not words
        return run
    words = (_SEPARATORS.sub("", w) for w in _WORD_BREAK.split(run))
    return " " + " ".join(_segment(_unleet(w, _LEET_DIGITS)) for w in words if w) + " "


def _unleet(token: str, digits: dict[int, str]) -> str:
    if _NUMBER_WITH_UNIT.fullmatch(token):
        return token
    token = _SYMBOL_BETWEEN.sub(lambda m: m.group(0).translate(_SYMBOLS), token)
    return token.translate(digits)


def _unleet_text(text: str, digits: dict[int, str]) -> str:
    if not _HAS_LEET.search(text):
        return text
    out = _LEET_TOKEN.sub(
        lambda m: _unleet(m.group(0), digits) if _LETTER.search(m.group(0)) else m.group(0),
        text,
    )
    if out != text:  # the message is written in leet: a lone "1" before a word is the pronoun ("1 l0v3 y0u")
        out = _LONE_ONE.sub("i", out)
    return out


def _fold(text: str) -> str:
    """Steps 1-5b: Unicode folding, case folding and separator collapsing (everything but leetspeak)."""
    if not text.isascii():
        text = _INVISIBLE.sub("", text)
        text = unicodedata.normalize("NFKC", text)
        text = text.translate(_CONFUSABLES)
        if not text.isascii():
            text = _MARKS.sub("", unicodedata.normalize("NFD", text))
            text = unicodedata.normalize("NFC", text)
    text = text.casefold()
    if "." in text or "-" in text or "_" in text or "*" in text or "~" in text or "·" in text or "•" in text:
        text = _DOTTED.sub(_join_run, text)
    text = _SPACED.sub(_join_run, text)
    return spell_out(text)


def _finish(text: str) -> str:
    text = _REPEATS.sub(r"\1\1", text)
    return " ".join(text.split())  # runs of whitespace to one space, ends trimmed (faster than a regex)


def normalise(text: str) -> str:
    """The single matching form of ``text`` (see the module docstring for the steps)."""
    return _finish(_unleet_text(_fold(text), _LEET_DIGITS))


def normalise_variants(text: str) -> tuple[str, ...]:
    """``normalise(text)`` plus, when a leet ``1`` appeared inside a word, the reading with ``1`` as ``l``."""
    folded = _fold(text)
    primary = _finish(_unleet_text(folded, _LEET_DIGITS))
    if "1" not in folded:
        return (primary,)
    alt = _finish(_unleet_text(folded, _LEET_DIGITS_L))
    return (primary,) if alt == primary else (primary, alt)

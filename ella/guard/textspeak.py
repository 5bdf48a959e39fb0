"""Text-speak and short forms read as the words they stand for, before the guard's patterns run.

Why: people in a bad moment type fast and short: "i want 2 die", "kms", "ur better off w/o me", "no1 wud miss
me". The patterns are written against plain words, so these are spelled out first. Numerals are read in context
so that everyday numbers stay numbers: "2" is "to" and "4" is "for" only between words ("want 2 die", "4 good"),
never as a time or a count ("meeting at 2 pm", "4 of us going", "2 eggs", "it's 2 for 1", "see you at 4"); "kms"
after a number is kilometres ("ran 5 kms" becomes "ran 5 km"), elsewhere it is "kill myself".

Runs on case-folded text (``normalise`` step 5, before leetspeak is undone, so "2nite" and "4ever" are read as
words and not as leet). One regex pass; the callback runs only on a candidate token.
"""

from __future__ import annotations

import re

# Whole tokens that stand for words, whatever surrounds them.
WORDS: dict[str, str] = {
    "u": "you", "ya": "you", "r": "are", "b": "be", "n": "and", "k": "ok", "im": "i'm",
    "rn": "right now", "kms": "kill myself", "kys": "kill yourself", "w/o": "without", "w/out": "without",
    "w/": "with", "idk": "i don't know", "idc": "i don't care", "abt": "about", "bc": "because", "cuz": "because",
    "coz": "because", "tho": "though", "ppl": "people", "every1": "everyone", "evry1": "everyone", "no1": "no one",
    "some1": "someone", "any1": "anyone", "ne1": "anyone", "2nite": "tonight", "2night": "tonight", "2nyt": "tonight",
    "tonite": "tonight", "2day": "today", "2morrow": "tomorrow", "2moro": "tomorrow", "2mrw": "tomorrow",
    "4ever": "forever", "4eva": "forever", "4get": "forget", "b4": "before", "gr8": "great", "l8r": "later",
    "wud": "would", "cud": "could", "shud": "should", "wat": "what", "wen": "when", "thx": "thanks",
    "pls": "please", "plz": "please", "od": "overdose", "ur": "your",
    "oding": "overdosing", "sewerslide": "suicide", "ded": "dead",
    "luv": "love", "gf": "girlfriend", "bf": "boyfriend", "ne": "any", "nemore": "anymore",
    "w": "with", "s/h": "self harm", "sh'ing": "self harming", "bein": "being", "goin": "going",
    "ngl": "not gonna lie", "nobody'd": "nobody would",
    "bday": "birthday", "tmrw": "tomorrow", "2b": "to be", "wiv": "with", "ova": "over", "dat": "that",
}  # fmt: skip
# Phrases of several tokens, spelled out first ("n e more" is "anymore", not "and any more").
PHRASES: dict[str, str] = {
    "n e more": "anymore",
    "ne more": "anymore",
    "any more": "anymore",
    "sewer slide": "suicide",
    "c u": "see you",
    "c ya": "see you",
    "ur better": "you're better",
    "ur gonna": "you're gonna",
    "ur so": "you're so",
    "ur not": "you're not",
    "ur the": "you're the",
    "ur welcome": "you're welcome",
}
# After a numeral these are what is counted or timed: the numeral stays a number.
_COUNTED = re.compile(
    r"(?:of|or|and|to|x|-|:|am|pm|a\.m\.|p\.m\.|o'clock|ish|more|less|out|hundred|thousand|million|percent|%|"
    r"min|mins|minute|sec|secs|second|hour|hr|hrs|day|week|month|year|night|time|person|dollar|euro|pound|quid|"
    r"kilo|km|kms|mile|hand|inch|foot|feet|k|m|plus|\d\S*|\w+s)\b"
)
_BEFORE_NUMBER = frozenset(
    "at by til till until from the about around like only just top than past before after each "
    "every between and or - – to no these those my his her their our your last first next page room number "
    "no. size grade level chapter part season episode".split()
)
# "2 for 1", "4 to 5": a numeral before a linking word and another number is a number.
_RANGE = re.compile(r"(?:for|to|or|-|x|out of) \d")
# A token's edges: not inside a word, nor beside a leet symbol ("k!ll" is not "ok !ll").
_TOKEN = re.compile(
    r"(?<![\w/'@$!|*])(?:" + "|".join(sorted(map(re.escape, WORDS), key=len, reverse=True)) + r"|2|4)(?![\w/'@$!|*])"
)
_PHRASE = re.compile(r"(?<![\w'])(?:" + "|".join(map(re.escape, PHRASES)) + r")(?![\w'])")
# A token is a maximal run of these characters (the edges ``_TOKEN`` insists on), so the set of a message's runs
# tells, in one C-level ``findall``, whether ``_TOKEN`` can match at all.
_RUN = re.compile(r"[\w/'@$!|*]+")
_KEYS = frozenset(WORDS) | {"2", "4"}
_PREVIOUS_WORD = re.compile(r"([\w.\-–'%]+)\W*$")
_DIGIT_BEFORE = re.compile(r"\d\W*$")


def _numeral(text: str, start: int, end: int, word: str) -> str:
    """``to``/``for`` for a numeral that stands between words; the numeral itself when it counts or times."""
    after = text[end:].lstrip()
    before = _PREVIOUS_WORD.search(text, 0, start)
    previous = before.group(1) if before else ""
    if not after or not after[0].isalpha():  # "see you at 4", "2?", "4:30", "2 - 3"
        return text[start:end]
    if _COUNTED.match(after) or _RANGE.match(after) or previous in _BEFORE_NUMBER or previous[-1:].isdigit():
        return text[start:end]
    return word


def _replace(match: re.Match[str]) -> str:
    token = match.group(0)
    text, start, end = match.string, match.start(), match.end()
    if token == "2":
        return _numeral(text, start, end, "to")
    if token == "4":
        return _numeral(text, start, end, "for")
    if token == "kms" and _DIGIT_BEFORE.search(text, 0, start):  # "ran 5 kms": kilometres, written as the unit
        return "km"
    if token == "k" and _DIGIT_BEFORE.search(text, 0, start):
        return token  # "10 k": thousands
    return WORDS[token]


def spell_out(text: str) -> str:
    """``text`` (case-folded) with its text-speak and short forms spelled out, numbers kept where they count."""
    if any(phrase in text for phrase in PHRASES):
        text = _PHRASE.sub(lambda m: PHRASES[m.group(0)], text)
    elif _KEYS.isdisjoint(_RUN.findall(text)):
        return text  # nothing to spell out: most messages
    return _TOKEN.sub(_replace, text)

"""Her world's past: when the user asks how things of Ella's world used to be, the facts that held then.

Why: the reply prompt is shown live facts only (the world brief, ``ella.ledger.brief``). After canon moved the
door from red to blue, "remember when your door was red?" could be answered only by contradicting today's
canon ("it's red") or by inventing a past. The ledger keeps that past on its rows (a superseded or retired
fact keeps its ``valid_from``/``valid_until``), so for such a question the prompt gets a short section of what
was true then, each line with its dates and what is true now, under a heading that says it is the past.

Why by rule and only for past questions: the section costs tokens and, shown on every turn, would invite the
model to talk about the old door unasked; a plain phrase test (``asks_about_the_past``) keeps it to the turns
that ask, and the prompt of every other turn is unchanged. Detection is deliberately narrow: the user's own
past ("I used to live in Leeds"), present-tense talk and "remember my sister?" are not questions about her world.

Three plain steps, no database: ``asks_about_the_past`` (is this such a question), ``named_subjects`` (which of
the ledger's subjects it names, by their words and a few synonyms taken from the anchors and the world's
pictures, or by a short value a fact held), ``past_lines``/``past_section`` (the lines). ``models.ledger
.past_view`` runs them against one user's ledger.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Protocol

from ella.ledger.rules import LIVE, TIER_RANK, Status, Tier, about_the_user

PAST_HEADING = "HER WORLD'S PAST (true then, not now; remember it as the past, never as today)"
MAX_LINES = 8
WORLD_TIERS = frozenset({Tier.CANON.value, Tier.OBSERVED.value, Tier.RUMORED.value})
PAST_STATUSES = frozenset({Status.SUPERSEDED.value, Status.RETIRED.value})
_LIVE = frozenset(s.value for s in LIVE)

# --- is the message asking about the past of Ella's world? -------------------------------------------------------

_FIRST_WORDS = frozenset({"i", "i'm", "i'd", "i've", "i'll", "me", "my", "mine", "myself", "we", "we're", "we'd", "our",
                          "ours", "us"})  # fmt: skip
_YOU_WORDS = frozenset({"you", "your", "yours", "you've", "you'd", "yourself", "ella", "ella's"})
# The world's things, as a referent when no "you" is said ("were the kitchen walls always white?").
_THINGS = frozenset(
    {"door", "doors", "cat", "cats", "kitten", "cottage", "kitchen", "garden", "boat", "shore", "windowsill", "wall",
     "walls", "roof"}
)  # fmt: skip
_FIRST = "(?:" + "|".join(sorted(_FIRST_WORDS)) + ")"
_YOU = "(?:" + "|".join(sorted(_YOU_WORDS)) + ")"
_THING = "(?:" + "|".join(sorted(_THINGS)) + ")"
_WORD = r"[a-z0-9']+"
_REMEMBER = re.compile(
    rf"\bremember\s+(?:back\s+)?(?:when|how|the\s+(?:time|days?)\s+when)\s+(?:{_YOU}|it|there|the\s+{_THING})\b"
)
# "you used to have a boat", "did your cat use to ...": the words between may not make it the user's own.
_USED_TO = re.compile(rf"\b{_YOU}\b(?P<mid>(?:\s+{_WORD}){{0,3}}?)\s+used?\s+to\b")
_BACK_WHEN = re.compile(rf"\bback\s+(?:when|then)\s+(?:{_YOU}|it)\b")
_NO_LONGER = re.compile(rf"\b{_YOU}\b(?:\s+{_WORD}){{0,5}}?\s+(?:anymore|any\s+more|no\s+longer)\b")
_CHANGED = re.compile(
    rf"\b(?:painted|repainted|changed|renamed|replaced|redecorated|redid)\s+(?:{_YOU}|it|the\s+{_THING})\b"
    rf"|\b(?:did|have|has)\s+(?:you|ella)\s+(?:ever\s+)?(?:paint|repaint|change|rename|replace|redecorate|redo|"
    rf"painted|repainted|changed|renamed|replaced|redecorated)\b"
)
_FIRST_RE = re.compile(rf"\b{_FIRST}\b")
_SENTENCES = re.compile(r"[.!?;:,\n]+")  # clauses: "you know, I used to ..." is two
# A past-tense clause with a marker of an earlier time: "was your door red before", "was it always blue".
_PAST_VERBS = frozenset({"was", "were", "did", "had", "has", "have"})
_MARKERS = (("before",), ("always",), ("originally",), ("once",), ("previously",), ("at", "first"), ("back", "then"),
            ("back", "when"), ("in", "the", "past"), ("in", "the", "old", "days"))  # fmt: skip
CLAUSE_WORDS = 6  # how far after its verb a marker may come


def _normal(text: str) -> str:
    """Lower-cased words with their apostrophes; letters of other languages kept ("tür", "jardín")."""
    text = text.casefold().replace("\u2019", "'").replace("\u2018", "'")
    return " ".join(re.sub(r"[^\w']+|_", " ", text).split())


def _marker_at(words: list[str], at: int) -> int:
    """The length of the time marker starting at ``words[at]``, 0 when none does."""
    for marker in _MARKERS:
        if tuple(words[at : at + len(marker)]) == marker:
            return len(marker)
    return 0


def _past_clause(words: list[str]) -> bool:
    """A past verb, a marker of an earlier time within ``CLAUSE_WORDS`` after it, and Ella or a thing of hers
    between them ("was your door red before", "was it always", "did it look like before") or just before the
    verb ("your door was red before", not "my house was"); the user in the clause makes it theirs."""
    for i, verb in enumerate(words):
        if verb not in _PAST_VERBS:
            continue
        for j in range(i + 1, min(i + 1 + CLAUSE_WORDS, len(words))):
            size = _marker_at(words, j)
            if not size:
                continue
            mid, post = set(words[i + 1 : j]), words[j + size : j + size + 1]
            pre, before_pre = words[i - 1 : i], words[max(0, i - 2) : max(0, i - 1)]
            if mid & _FIRST_WORDS or set(post) & _FIRST_WORDS or set(pre) & _FIRST_WORDS:
                break
            if mid & (_YOU_WORDS | _THINGS | {"it"}):
                return True
            if set(pre) & (_YOU_WORDS | _THINGS) and not set(before_pre) & _FIRST_WORDS:
                return True
            break
    return False


def asks_about_the_past(text: str) -> bool:
    """Whether the message asks how Ella's world or a thing of hers used to be: "remember when your door was
    red?", "was it always blue?", "you used to have a boat", "what did it look like before you painted it".

    Each clause (between punctuation) is tested on its own, lower-cased with its punctuation dropped. The user's
    own past ("I used to live in Leeds", "I was happier before"), present-tense talk and "remember my sister?"
    are not."""
    for sentence in _SENTENCES.split(text):
        words = _normal(sentence)
        if not words:
            continue
        if _REMEMBER.search(words) or _BACK_WHEN.search(words):
            return True
        if (_NO_LONGER.search(words) or _CHANGED.search(words)) and not _FIRST_RE.search(words):
            return True  # "is your door not red anymore", not "I don't love you anymore" or "I changed it"
        if any(not _FIRST_RE.search(m.group("mid")) for m in _USED_TO.finditer(words)):
            return True
        if _past_clause(words.split()):
            return True
    return False


# --- which of the ledger's subjects does it name? -----------------------------------------------------------------

# Words of a subject that say which attribute, not which thing: "door_color" names the door, not every colour.
_ATTRIBUTE_WORDS = frozenset(
    {"color", "colour", "layout", "name", "age", "years", "species", "today", "current", "exterior", "interior",
     "of", "the", "a", "is"}
)  # fmt: skip
# A subject's root names every subject under it: "the cottage" is ``ellahome.*``, "the cat" ``companion.*``.
# ``ella`` and ``world`` are too wide to be named by themselves.
# The German, Spanish, French and Italian words name them too: a question ``ella.readers`` reads in those
# languages ("war deine Tür schon immer blau?") names its subject by them.
ROOT_WORDS: dict[str, frozenset[str]] = {
    "ellahome": frozenset({"cottage", "house", "home", "häuschen", "haus", "casita", "casa", "maison", "casetta"}),
    "companion": frozenset({"companion", "cat", "kitten", "kitty", "tabby", "pet", "katze", "kater", "gato", "gata",
                            "chat", "chatte", "gatto", "gatta"}),
}  # fmt: skip
# A subject word and the words that name the same thing (the anchors' and ``ella.world.images.VISUALS``' words).
SYNONYMS: dict[str, frozenset[str]] = {
    "door": frozenset({"doorway", "doorstep", "frontdoor", "tür", "haustür", "puerta", "porte", "porta"}),
    "kitchen": frozenset({"stove", "kettle", "küche", "cocina", "cuisine", "cucina"}),
    "biome": frozenset({"sea", "shore", "beach", "coast", "harbour", "harbor", "loch", "tide", "waves"}),
    "weather": frozenset({"rain", "sky", "sunshine"}),
    "reading": frozenset({"book", "novel", "read"}),
    "book": frozenset({"novel", "reading"}),
    "mood": frozenset({"feeling", "feelings"}),
    "cat": frozenset({"kitten", "kitty", "tabby", "katze", "gato", "chat", "gatto"}),
    "garden": frozenset({"yard", "flowerbed", "flowerbeds", "garten", "jardín", "jardin", "giardino"}),
    "boat": frozenset({"dinghy", "rowboat", "boot", "ruderboot", "barco", "barca", "bateau", "barque", "barchetta"}),
}
VALUE_WORDS_AT_MOST = 3  # a value ("red", "tabby cat") names its subject; a sentence-long one never does


def _forms(word: str) -> set[str]:
    """A word and its singular: "doors" -> door, "stories" -> story, "boxes" -> box; "cat's" -> cat."""
    word = word.removesuffix("'s").strip("'")
    forms = {word}
    if word.endswith("ies") and len(word) > 4:
        forms.add(word[:-3] + "y")
    elif word.endswith(("ses", "xes", "ches", "shes")):
        forms.add(word[:-2])
    elif word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        forms.add(word[:-1])
    return forms


def subject_words(subject: str) -> frozenset[str]:
    """The words that name a subject: its segments' words after the root (but for attribute words), their
    synonyms, and its root's words."""
    root, *rest = subject.casefold().split(".")
    own = {w for segment in rest for w in re.split(r"[_\-\s]+", segment) if w and w not in _ATTRIBUTE_WORDS}
    named = set(own) | set(ROOT_WORDS.get(root, ()))
    for word in own:
        named |= SYNONYMS.get(word, frozenset())
    return frozenset(named)


def named_subjects(text: str, subjects: Iterable[str], values: Mapping[str, Iterable[str]] | None = None) -> list[str]:
    """The subjects of Ella's world the message names, in the order given, each once: by the subject's words
    (``subject_words``; plurals too), or, when ``values`` is given (subject -> objects its facts held or hold),
    by a short value said as a whole phrase ("was it always blue?" names the door whose colour is blue). A
    user's subject (``user``, ``user.*``) is never her world and never named."""
    said = _normal(text)
    words = {form for word in said.split() for form in _forms(word)}
    found: list[str] = []
    for subject in subjects:
        if subject in found or about_the_user(subject):
            continue
        if subject_words(subject) & words or _says_a_value(said, (values or {}).get(subject, ())):
            found.append(subject)
    return found


def _says_a_value(said: str, objects: Iterable[str]) -> bool:
    for obj in objects:
        phrase = _normal(obj)
        if phrase and len(phrase) > 2 and len(phrase.split()) <= VALUE_WORDS_AT_MOST:
            if re.search(rf"(?<![a-z0-9']){re.escape(phrase)}(?![a-z0-9'])", said):
                return True
    return False


# --- the section ----------------------------------------------------------------------------------------------------


class PastFact(Protocol):
    """What a line reads of a fact (``models.ledger.WorldFact`` has it)."""

    @property
    def id(self) -> int: ...
    @property
    def chain(self) -> str: ...
    @property
    def tier(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def subject(self) -> str: ...
    @property
    def predicate(self) -> str: ...
    @property
    def object(self) -> str: ...
    @property
    def valid_from(self) -> datetime: ...
    @property
    def valid_until(self) -> datetime | None: ...


def _day(at: datetime, now: datetime) -> str:
    """The date, in ``now``'s zone when both carry one (the caller's clock decides what day it was)."""
    if at.tzinfo is not None and now.tzinfo is not None:
        at = at.astimezone(now.tzinfo)
    return at.date().isoformat()


def _held_by_now(fact: PastFact, now: datetime) -> bool:
    """Whether it is the past: it began, and stopped holding, by ``now`` (a replacement dated later leaves it
    holding until then)."""
    return fact.valid_from <= now and (fact.valid_until is None or fact.valid_until <= now)


def _now_value(fact: PastFact, live: list[PastFact]) -> str | None:
    """What is true now in its place: the live fact of its chain, else the best-tier live world fact of its
    subject and predicate; None when nothing is."""
    same_chain = [f for f in live if f.chain == fact.chain]
    if same_chain:
        return same_chain[0].object
    same = [f for f in live if (f.subject, f.predicate) == (fact.subject, fact.predicate)]
    same.sort(key=lambda f: (TIER_RANK[Tier(f.tier)], -f.id))
    return same[0].object if same else None


def past_lines(facts: Iterable[PastFact], now: datetime, limit: int = MAX_LINES) -> list[tuple[int, str]]:
    """(fact id, line) for the superseded or retired world-tier facts among ``facts`` that were the past by
    ``now``, newest first (by when they stopped holding), at most ``limit``; each line says when it held and,
    from the live facts among ``facts``, what holds now: ``- ellahome.exterior.door_color: color=red (from
    2026-03-02 until 2026-09-14; now: blue)``."""
    facts = [f for f in facts if f.tier in WORLD_TIERS and not about_the_user(f.subject)]
    live = [f for f in facts if f.status in _LIVE]
    past = [f for f in facts if f.status in PAST_STATUSES and _held_by_now(f, now)]
    past.sort(key=lambda f: (f.valid_until or f.valid_from, f.id), reverse=True)
    lines: list[tuple[int, str]] = []
    for fact in past[:limit]:
        when = f"from {_day(fact.valid_from, now)}"
        if fact.valid_until is not None:
            when += f" until {_day(fact.valid_until, now)}"
        today = _now_value(fact, live)
        if today is not None:
            when += f"; now: {today}"
        lines.append((fact.id, f"- {fact.subject}: {fact.predicate}={fact.object} ({when})"))
    return lines


def past_section(facts: Iterable[PastFact], now: datetime) -> str:
    """The heading and ``past_lines``, or "" when no fact is of the past (the prompt then shows nothing)."""
    return section(past_lines(facts, now))


def section(lines: Sequence[tuple[int, str]]) -> str:
    """The heading over ``past_lines``' lines; "" when there are none."""
    return "\n".join([PAST_HEADING, *(line for _, line in lines)]) if lines else ""


_LINE = re.compile(
    r"^- (?P<subject>[^:]+): (?P<predicate>[^=]+)=(?P<old>.*) \(from (?P<start>\d{4}-\d{2}-\d{2})"
    r"(?: until (?P<until>\d{4}-\d{2}-\d{2}))?(?:; now: (?P<now>.*))?\)$"
)


def parse_line(line: str) -> dict[str, str | None] | None:
    """A section line's parts (subject, predicate, old, start, until, now), or None when it is not one: what
    the offline engine reads back of the section it was given."""
    match = _LINE.match(line.strip())
    return match.groupdict() if match else None

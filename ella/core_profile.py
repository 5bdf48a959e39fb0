"""The user's core profile: who they are, always in view. And the user's own past: what used to be true of them.

Why a profile of its own: retrieval brings back the memories a message resembles, so "I'm Jonas" said a month ago
is not in view when Jonas asks about his weekend, and Ella greets a friend of a month as a stranger. Letta keeps a
core memory block (name, home, work, people) always in context; mem0 and LangMem keep a profile. Here it is not a
second store: it is a *view* of the user's live facts in the ledger with the profile's predicates (``FIELDS``),
so it is kept up by extraction on both engines, superseded with history like every fact ("I moved to Lisbon"
replaces Bremen and keeps it as the past), and corrected or forgotten item by item like any fact
(``ella.memory.say``, ``models.forgetting``). The reply shows it in a section of its own (``section``); "what do
you remember about me", the export and the operator's page show it first.

Why values are cleaned before they are stored (``clean_value``): a profile value is read back to the user and put
in every reply's prompt. "Bremen and I love cooking" as a home, a URL as a name, or a pasted page as a job would be
repeated for ever, so a value is ended at its clause, and one that is still a sentence, a link or too long is
refused with a reason (the fact's note says what was cut).

Why the user's past is read here too (``asks_about_own_past``, ``past_section``): the ledger keeps a superseded
fact with its dates, so "where did I live before?" has an answer, as her world's past has
(``ella.ledger.past``); only the subject differs (the user's facts, not her world's).

Plain Python over plain values: ``models.ledger`` and ``adapters.reply_service`` hand in the facts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from ella.ledger.rules import USER_SUBJECT
from ella.ledger.subjects import SubjectFact, is_naming, relation_of, subject_key

# predicate of a ``user`` fact -> the profile field it fills
FIELDS: dict[str, str] = {
    "name": "name",
    "pronouns": "pronouns",
    "lives_in": "home",
    "works_as": "work",
    "works_at": "work",
    "works_in": "work",
    "studies": "study",
    "studies_at": "study",
    "studies_in": "study",
    "speaks": "language",
}
# the words a user names a field of their own by ("that's wrong, my name is Jon", "my job is wrong")
FIELD_WORDS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(("name", "called"), ("name",)),
    **dict.fromkeys(("pronoun", "pronouns"), ("pronouns",)),
    **dict.fromkeys(("home", "live", "lives", "city", "town", "address"), ("lives_in",)),
    **dict.fromkeys(("job", "work", "works", "profession", "occupation"), ("works_as", "works_at", "works_in")),
    **dict.fromkeys(
        ("study", "studies", "course", "degree", "uni", "university"), ("studies", "studies_at", "studies_in")
    ),
    **dict.fromkeys(("language", "languages", "speak"), ("speaks",)),
}
ORDER = ("name", "pronouns", "home", "work", "study", "person", "language")
LABELS = {"name": "name", "pronouns": "pronouns", "home": "lives in", "work": "work", "study": "studies",
          "language": "speaks"}  # fmt: skip
# what the user says they used to be or do: their own past even while nothing superseded it
PAST_PREDICATES: dict[str, str] = {
    "lived_in": "lived in",
    "worked_as": "worked as",
    "worked_at": "worked at",
    "studied": "studied",
    "studied_at": "studied at",
}
PROFILE_HEADING = "WHO THEY ARE (their core profile: what they told you, true for them, never for Ella's world)"
USER_PAST_HEADING = "THEIR OWN PAST (true for them then, not now; answer from it when they ask)"
MAX_PAST_LINES = 8

MAX_VALUE_CHARS = 60
MAX_VALUE_WORDS = 6
# A value ends at its clause: "Bremen and I love cooking" is "Bremen"; "Lisbon for work" is "Lisbon".
_CLAUSE_END = re.compile(
    r"\s*(?:[,;:.!?()\n]|\s-\s|\b(?:and|but|because|so|since|where|which|who|while|though|although|for work|"
    r"for now|at the moment|right now|these days|now|before|previously|until|back then|ago)\b)",
    re.IGNORECASE,
)
_LINK = re.compile(r"(?:https?://|www\.|\b[\w-]+\.(?:com|org|net|de|io|co|uk|fr|es|it)\b|@\w)", re.IGNORECASE)


ProfileFact = SubjectFact  # what the profile reads of a live fact: id, subject, predicate, object


class PastFact(ProfileFact, Protocol):
    @property
    def status(self) -> str: ...
    @property
    def valid_from(self) -> datetime | None: ...
    @property
    def valid_until(self) -> datetime | None: ...
    @property
    def recorded_at(self) -> datetime: ...


@dataclass(frozen=True)
class ProfileItem:
    """One line of the profile: its field, value and the fact behind it (what a correction or a forget names)."""

    field: str  # one of ``ORDER``
    value: str
    fact_id: int
    relation: str | None = None  # a person's or pet's relation to the user ("sister", "cat")

    @property
    def label(self) -> str:
        return self.relation or LABELS.get(self.field, self.field)


def is_profile(subject: str, predicate: str, obj: str = "") -> bool:
    """Whether a fact fills the profile: a ``user`` fact with a profile predicate, or a person's or pet's name."""
    key = subject_key(subject)
    if key == USER_SUBJECT:
        return predicate in FIELDS
    return key.count(".") == 1 and relation_of(key) is not None and is_naming(subject, predicate, obj or "X")


def own_field_predicates(words: Iterable[str]) -> set[str]:
    """The predicates of the user's own profile fields that ``words`` name ("name" -> ``name``)."""
    return {p for w in words for p in FIELD_WORDS.get(w, ())}


def profile_items(facts: Iterable[ProfileFact]) -> list[ProfileItem]:
    """The profile of the user's live facts, in ``ORDER``; within a field the newest fact first."""
    items: list[ProfileItem] = []
    for fact in sorted(facts, key=lambda f: -f.id):
        key = subject_key(fact.subject)
        if key == USER_SUBJECT and fact.predicate in FIELDS:
            items.append(ProfileItem(FIELDS[fact.predicate], fact.object, fact.id))
        elif key != USER_SUBJECT and is_profile(fact.subject, fact.predicate, fact.object):
            items.append(ProfileItem("person", fact.object, fact.id, relation_of(key)))
    seen: set[tuple[str, str | None, str]] = set()
    unique = []
    for item in items:
        mark = (item.field, item.relation, item.value.casefold())
        if mark not in seen:
            seen.add(mark)
            unique.append(item)
    return sorted(unique, key=lambda i: ORDER.index(i.field))


def name_of(items: Sequence[ProfileItem]) -> str | None:
    """The user's name, when they said it."""
    return next((i.value for i in items if i.field == "name"), None)


def section(items: Sequence[ProfileItem]) -> str:
    """The reply prompt's profile section ("" for an empty profile): a heading and a line per item."""
    if not items:
        return ""
    lines = [f"- {item.label}: {item.value}" for item in items]
    return "\n".join([PROFILE_HEADING, *lines])


def as_variables(items: Sequence[ProfileItem]) -> dict[str, object]:
    """The profile as plain values, for a reader by rule (the offline engine): each field's newest value, the
    people and pets as ``{"relation", "name"}`` and the languages as a list."""
    out: dict[str, object] = {}
    people: list[dict[str, str]] = []
    languages: list[str] = []
    for item in items:
        if item.field == "person":
            people.append({"relation": item.relation or "", "name": item.value})
        elif item.field == "language":
            languages.append(item.value)
        else:
            out.setdefault(item.field, item.value)
    if people:
        out["people"] = people
    if languages:
        out["languages"] = languages
    return out


def clean_value(subject: str, predicate: str, value: str) -> tuple[str | None, str]:
    """A profile value (or a past one: ``PAST_PREDICATES``) ended at its clause, or None when it is a link, or
    still a sentence or too long after that; with the reason ("" when the value was already clean). Other facts
    pass unchanged."""
    past = subject_key(subject) == USER_SUBJECT and predicate in PAST_PREDICATES
    if not past and not is_profile(subject, predicate, value):
        return value, ""
    text = " ".join(value.split())
    if _LINK.search(text):
        return None, "a link is not a profile value"
    cut = _CLAUSE_END.split(text, maxsplit=1)[0].strip(" '\"")
    if not cut:
        return None, "nothing left of the value before its first clause"
    if len(cut) > MAX_VALUE_CHARS or len(cut.split()) > MAX_VALUE_WORDS:
        return None, f"a sentence, not a profile value ({len(text)} characters)"
    if cut != text:
        return cut, f"cut at its clause ({len(text)} -> {len(cut)} characters)"
    return cut, ""


# --- the user's own past ------------------------------------------------------------------------------------------

_FIRST = r"(?:i|i'd|i've|me|my|mine)"
# "where did I live before?", "what was my old job?", "where did I use to work?", "what was my job before this one?"
_OWN_PAST = re.compile(
    rf"\b(?:where|what|which|who|how)\b[^.!?]{{0,40}}\b(?:did|was|were|had|have)\s+{_FIRST}\b[^.!?]{{0,40}}"
    r"\b(?:before|previously|used? to|back then|in the past|old|former|last|first|originally)\b"
    rf"|\b{_FIRST}\s+(?:old|former|previous|last)\s+(?:job|work|home|place|flat|apartment|house|city|town|"
    r"address|school|university|uni|name|boss)\b"
    rf"|\bwhere\s+did\s+{_FIRST}\s+(?:use\s+to|used\s+to)\b",
    re.IGNORECASE,
)


def asks_about_own_past(text: str) -> bool:
    """Whether the English words ask about the user's own past ("where did I live before?"), as a question."""
    said = text.replace("\u2019", "'")
    return "?" in said and _OWN_PAST.search(said) is not None or _OWN_PAST_STATEMENT.search(said) is not None


# "remind me where I lived before", "tell me what my old job was": a question without its question mark
_OWN_PAST_STATEMENT = re.compile(
    rf"\b(?:remind|tell)\s+me\s+(?:where|what|which)\b[^.!?]{{0,40}}\b{_FIRST}\b[^.!?]{{0,40}}"
    r"\b(?:before|previously|used to|old|former|last)\b",
    re.IGNORECASE,
)


def _day(at: datetime | None) -> str:
    return f"{at.day} {at:%B %Y}" if at is not None else "a date not kept"


def past_lines(past: Sequence[PastFact], live: Sequence[ProfileFact]) -> list[tuple[int, str]]:
    """(fact id, line) for the user's own past: each superseded or retired fact of theirs, with its dates and what
    holds now on the same subject and predicate, and each fact they stated as past ("I used to live in Leeds");
    newest first, at most ``MAX_PAST_LINES``."""
    now = {(subject_key(f.subject), f.predicate): f.object for f in sorted(live, key=lambda f: f.id)}
    lines: list[tuple[datetime, int, str]] = []
    for fact in past:
        key = subject_key(fact.subject)
        who = "they" if key == USER_SUBJECT else f"their {key.split('.', 1)[1].replace('_', ' ')}"
        verb = fact.predicate.replace("_", " ")
        when = fact.valid_until or fact.recorded_at
        if fact.predicate in PAST_PREDICATES:
            line = f"- {who} {PAST_PREDICATES[fact.predicate]} {fact.object} (said on {_day(fact.recorded_at)})"
        else:
            line = (f"- {who}: {verb} {fact.object}, from {_day(fact.valid_from or fact.recorded_at)} until "
                    f"{_day(fact.valid_until)}")  # fmt: skip
            current = now.get((key, fact.predicate))
            if current and current.casefold() != fact.object.casefold():
                line += f"; now {current}"
            if fact.status == "retired":
                line += " (no longer holds)"
        lines.append((when, fact.id, line))
    lines.sort(key=lambda item: (item[0], item[1]), reverse=True)
    return [(fact_id, line) for _, fact_id, line in lines[:MAX_PAST_LINES]]


def past_section(lines: Sequence[tuple[int, str]]) -> str:
    """The reply prompt's section of the user's own past ("" when there is none)."""
    if not lines:
        return ""
    return "\n".join([USER_PAST_HEADING, *(line for _, line in lines)])

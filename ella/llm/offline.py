"""The offline engine: a deterministic rule set that stands in for a model. It is not AI.

Why it exists: the demo, the tests and a developer without an API key must run the whole pipeline. It reads
the template's variables (not the rendered prompt; a live reply also reads its own earlier turns in the
history), applies small rules (a poignancy lexicon of life events and feelings, a subject-verb-object split,
salient words for focal points, insights that cite the statements that really contain their topic) and answers
in the same JSON the real model is asked for, so the port parses and validates it exactly as it would Claude's.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any

from ella.event_over import announced, over_in_transcript
from ella.lexicon import TOPICLESS_WORDS, stem
from ella.llm.types import Completion, CompletionRequest, Usage
from ella.offline_reply import grounded_reply

WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")

# Poignancy lexicon: life events and feelings weigh; everyday chores do not.
EVENT_WEIGHTS: dict[str, int] = {
    **dict.fromkeys(
        [
            "died",
            "death",
            "funeral",
            "passed",
            "cancer",
            "diagnosis",
            "diagnosed",
            "divorce",
            "suicide",
            "miscarriage",
            "accident",
            "hospital",
            "surgery",
        ],
        8,
    ),
    **dict.fromkeys(
        [
            "breakup",
            "broke",
            "pregnant",
            "baby",
            "born",
            "engaged",
            "married",
            "wedding",
            "fired",
            "laid",
            "redundant",
            "accepted",
            "graduated",
            "graduation",
            "promotion",
            "promoted",
        ],
        7,
    ),
    **dict.fromkeys(
        [
            "interview",
            "exam",
            "exams",
            "moving",
            "moved",
            "job",
            "hired",
            "offer",
            "rejected",
            "sick",
            "ill",
            "surgery",
            "test",
            "results",
            "deadline",
            "audition",
            "competition",
        ],
        5,
    ),
    **dict.fromkeys(
        [
            "sister",
            "brother",
            "mom",
            "mother",
            "dad",
            "father",
            "friend",
            "partner",
            "girlfriend",
            "boyfriend",
            "wife",
            "husband",
            "grandma",
            "grandpa",
            "dog",
            "cat",
            "family",
        ],
        2,
    ),
}
FEELING_WEIGHTS: dict[str, int] = {
    **dict.fromkeys(["devastated", "heartbroken", "terrified", "hopeless", "panic", "grief", "grieving"], 5),
    **dict.fromkeys(
        [
            "nervous",
            "anxious",
            "scared",
            "afraid",
            "worried",
            "lonely",
            "sad",
            "angry",
            "upset",
            "stressed",
            "overwhelmed",
            "excited",
            "proud",
            "thrilled",
            "relieved",
            "happy",
            "ashamed",
            "hurt",
            "crying",
            "cried",
        ],
        3,
    ),
    **dict.fromkeys(["tired", "bored", "glad", "nice", "fun", "good", "great"], 1),
}
MUNDANE = {
    "breakfast",
    "lunch",
    "dinner",
    "teeth",
    "shower",
    "weather",
    "laundry",
    "dishes",
    "tv",
    "coffee",
    "bed",
    "groceries",
}
FUTURE = re.compile(
    r"\b(tomorrow|tonight|next week|on (monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
    r"|this (weekend|week)|soon|upcoming|coming up)\b",
    re.IGNORECASE,
)
TIER_RANK = {"canon": 5, "observed": 4, "rumored": 3, "user_claim": 2, "inferred": 1}


def chat_words(text: str) -> list[str]:
    """Lower-cased ASCII words with their apostrophes and hyphens ("i'm", "well-known"): the spelling of
    ``TOPICLESS_WORDS`` and the weight tables above. Not ``ella.lexicon.words``, which cuts at apostrophes."""
    return [w.lower() for w in WORD.findall(text)]


def content_words(text: str) -> list[str]:
    return [w for w in chat_words(text) if w not in TOPICLESS_WORDS and len(w) > 2]


def poignancy_score(event: str) -> int:
    """1 + the weightiest life event + half the strongest feeling, within 1..10."""
    ws = set(chat_words(event))
    event_weight = max((EVENT_WEIGHTS.get(w, 0) for w in ws), default=0)
    feeling_weight = max((FEELING_WEIGHTS.get(w, 0) for w in ws), default=0)
    if ws & MUNDANE and not event_weight and feeling_weight < 3:
        return 1
    return max(1, min(10, 1 + event_weight + math.ceil(feeling_weight / 2)))


def triple(name: str, event: str) -> dict[str, str]:
    """Split "I have a job interview on Thursday" into (name, have, a job interview on Thursday)."""
    text = event.strip().rstrip(".!?")
    m = re.match(r"^I(?:'m| am)\s+(.+)$", text, re.IGNORECASE)
    if m:
        return {"subject": name, "predicate": "is", "object": m.group(1)}
    m = re.match(r"^I(?:'ve|'d|'ll)?\s+(\w+)\s+(.+)$", text, re.IGNORECASE)
    if m:
        return {"subject": name, "predicate": m.group(1).lower(), "object": m.group(2)}
    m = re.match(
        r"^([A-Za-z][\w' ]{0,40}?)\s+(is|are|was|were|has|have|had|said|went|got|wants|loves|\w+ed)\s+(.+)$", text
    )
    if m:
        subject = re.sub(r"^my\s+", f"{name}'s ", m.group(1), flags=re.IGNORECASE)
        return {"subject": subject, "predicate": m.group(2).lower(), "object": m.group(3)}
    return {"subject": name, "predicate": "said", "object": text[:160] or "something"}


def perceived(name: str, text: str) -> dict[str, Any]:
    return {"score": poignancy_score(text), **triple(name, text)}


def salient(statements: Sequence[str], n: int, name: str = "") -> list[str]:
    """The n most salient topics: content words weighted by how often and how poignantly they come up."""
    weight: dict[str, float] = {}  # fractional, so not a Counter; the stable sort keeps ties in first-seen order
    for s in statements:
        p = poignancy_score(s)
        for w in set(content_words(s)) - {name.lower()}:
            weight[w] = weight.get(w, 0) + 1 + p / 5 + (2 if w in EVENT_WEIGHTS else 0)
    return [w for w, _ in sorted(weight.items(), key=lambda item: item[1], reverse=True)[:n]]


def focal_questions(name: str, statements: Sequence[str], n: int) -> list[str]:
    topics = salient(statements, n, name) or ["their week"]
    return [
        f"How does {name} feel about {t}?" if t in EVENT_WEIGHTS else f"What does {t} mean to {name}?" for t in topics
    ]


def insights(name: str, focal_point: str, statements: Sequence[str]) -> list[dict[str, Any]]:
    """For each salient topic of the focal point (or of the statements), cite the statements mentioning it."""
    topics = [w for w in content_words(focal_point) if w != name.lower()] or salient(statements, 3, name)
    out = []
    for topic in topics[:3]:
        cited = [i for i, s in enumerate(statements, start=1) if topic in chat_words(s)]
        if not cited:
            continue
        feelings = sorted({w for i in cited for w in chat_words(statements[i - 1]) if w in FEELING_WEIGHTS})
        mood = f", and it comes with feeling {' and '.join(feelings[:2])}" if feelings else ""
        text = f"{name} keeps coming back to {topic}{mood}"
        out.append({"text": text, "evidence": cited[:10], "perception": perceived(name, text)})
    if not out and statements:
        top = max(range(len(statements)), key=lambda i: poignancy_score(statements[i]))
        text = f"What stands out for {name} is: {statements[top][:200]}"
        out.append({"text": text, "evidence": [top + 1], "perception": perceived(name, text)})
    return out


def user_lines(transcript: Sequence[str], name: str) -> list[str]:
    prefix = f"{name.lower()}:"
    return [line.split(":", 1)[1].strip() for line in transcript if line.lower().startswith(prefix)] or list(transcript)


def memo(name: str, transcript: Sequence[str]) -> str:
    said = user_lines(transcript, name)
    topics = salient(said, 3, name)
    feelings = sorted({w for line in said for w in chat_words(line) if FEELING_WEIGHTS.get(w, 0) >= 3})
    text = f"talked with {name} about {', '.join(topics) if topics else 'their day'}."
    if feelings:
        text += f" {name} mentioned feeling {' and '.join(feelings[:3])}."
    return text


def _ahead(name: str, transcript: Sequence[str], over: set[str]) -> tuple[str, re.Match[str], str] | None:
    """The last upcoming event the user mentioned and did not then say is over (``over``, the head words
    ``ella.event_over.over_in_transcript`` reads: "the interview went great" after "I have a job interview on
    Thursday"): its line, its "when" and its topic word."""
    said = user_lines(transcript, name)
    upcoming = [(line, m) for line in said if (m := FUTURE.search(line)) is not None]
    for line, future in reversed(upcoming):
        events = [w for w in chat_words(line) if EVENT_WEIGHTS.get(w, 0) >= 4]
        topic = events[-1] if events else (salient([line], 1, name) or ["plan"])[0]
        if stem(topic) in over or announced(line) in over:
            continue  # its outcome is told: asking how it will go would look forward to the past
        return line, future, topic
    return None


def plan(name: str, transcript: Sequence[str]) -> str:
    """A follow-up on the last upcoming event mentioned whose outcome was not told after it, else a check-in on the
    most salient topic that is not an event already over."""
    over = set(over_in_transcript(transcript, name))
    ahead = _ahead(name, transcript, over)
    if ahead is not None:
        _line, future, topic = ahead
        when = re.sub(r"^on\s+", "", future.group(0), flags=re.IGNORECASE)
        return f"after {when}, ask {name} how the {topic} went."
    topics = [t for t in salient(user_lines(transcript, name), 5, name) if stem(t) not in over]
    return f"next time, check in with {name} about {topics[0] if topics else 'how they are doing'}."


def plan_until(name: str, transcript: Sequence[str], today: date) -> date | None:
    """The last day the plan above makes sense: the day after the upcoming event it follows up on, when that
    day can be read ("on Monday", "tomorrow", an ISO date); None for an undated check-in."""
    ahead = _ahead(name, transcript, set(over_in_transcript(transcript, name)))
    day = event_day(ahead[0], today) if ahead is not None else None
    return None if day is None else day + timedelta(days=1)


RELATION_WORDS = (
    "sister|brother|sibling|sis|bro|mom|mum|mother|dad|father|partner|friend|boss|wife|husband|girlfriend|"
    "boyfriend|son|daughter|cousin|grandma|grandpa|granny|aunt|uncle|roommate|flatmate|dog|cat"
)

# --- the user's core profile, by rule (``ella.core_profile``: its predicates, exactly) -----------------------------
#
# Why a value ends at its clause here and not only on storage: "I live in Bremen and I love cooking" is two facts,
# a home and a like; a value cut on storage alone would keep the home and lose the like. The ledger's
# ``ella.core_profile.clean_value`` still checks what any engine says.

# Where a profile value ends: punctuation, a conjunction, a new clause, a time word or a number.
_VALUE_END = re.compile(
    r"\s*(?:[,;:.!?()\n]|\s-\s|\d|\b(?:and|but|because|cause|cos|so|since|where|which|who|while|though|although|"
    r"for|with|near|now|last|this|next|ago|before|previously|until|back then|yesterday|today|tonight|tomorrow|"
    r"recently|lately|already|again|too|"
    r"as well|at the moment|right now|these days|in the|in my|at the|on the|on my|every|each|i|i'm|im|i've|it|"
    r"it's|we|my|lol|haha)\b)",
    re.IGNORECASE,
)
MAX_VALUE_WORDS = 5
_PRONOUNS = {"you", "your", "u", "ur", "it", "that", "this", "them", "him", "her", "me", "us", "ya", "yours"}
# What follows "I'm" and is not a name, though it may be written with a capital: feelings, states, nationalities.
_NOT_NAMES = frozenset(
    """
    a an the so not just really very still also back home here there fine ok okay good great well sorry sure done
    ready busy free new old single married alone lost sick ill bored hungry thirsty cold hot late early off out
    in on up down glad happy sad tired from at going gonna trying like kinda quite pretty too always never
    literally honestly actually basically probably almost totally currently finally usually sometimes afraid
    scared worried nervous excited proud curious bad awesome alright human real serious confused over fed stuck
    broke vegan vegetarian retired unemployed pregnant right wrong about what who with into such all both gay
    straight trans bi christian muslim jewish catholic atheist buddhist hindu no one two fab cool hopeless
    exhausted stressed anxious lonely upset overwhelmed awful hurt angry frustrated fantastic amazing wonderful
    thrilled relieved ashamed devastated heartbroken terrified grateful thankful blessed fucked screwed dying dead
    starving freezing boiling sleepy ella
    english british scottish welsh irish american canadian australian german austrian swiss french belgian dutch
    spanish italian portuguese brazilian mexican argentinian chilean colombian polish czech danish swedish
    norwegian finnish icelandic greek turkish russian ukrainian chinese japanese korean indian pakistani
    nigerian kenyan egyptian moroccan european asian african latino latina
    """.split()
)
LANGUAGE_NAMES = frozenset(
    """
    english german spanish french italian portuguese dutch polish czech danish swedish norwegian finnish greek
    turkish russian ukrainian chinese mandarin cantonese japanese korean hindi urdu arabic hebrew persian farsi
    swahili catalan basque welsh irish romanian hungarian bulgarian croatian serbian
    """.split()
)
# "I'm a nurse": a job only when the word is one; "I'm a mess" or "I'm a bit tired" is not.
OCCUPATIONS = frozenset(
    """
    nurse teacher doctor engineer developer programmer designer chef cook baker lawyer accountant carpenter
    electrician plumber mechanic pharmacist architect writer journalist photographer artist musician waiter
    waitress barista cashier scientist researcher librarian farmer pilot driver firefighter paramedic therapist
    psychologist dentist vet veterinarian consultant manager midwife surgeon physiotherapist translator editor
    painter gardener builder cleaner carer caregiver tutor lecturer professor student postman courier
    receptionist secretary banker analyst economist actor actress dancer singer producer filmmaker
    """.split()
)
_NAME_WORD = r"[A-Za-z][a-z'-]+"


def profile_value(raw: str, *, place: bool = False) -> str | None:
    """``raw`` ended at its clause, or None when nothing is left, it is still a sentence or names a pronoun. A
    place written in lower case is given its capitals ("bremen" -> "Bremen")."""
    value = _VALUE_END.split(" " + raw.strip(), maxsplit=1)[0].strip(" '\"")
    words = value.split()
    if not words or len(words) > MAX_VALUE_WORDS or {w.lower() for w in words} & _PRONOUNS:
        return None
    if place:
        if words[0].lower() in ("a", "an", "my", "our", "his", "her", "their"):
            return None  # "I moved to a new flat": not a city
        if value.islower():
            value = " ".join(w if w in ("of", "on", "upon", "de", "am", "la", "le") else w.capitalize() for w in words)
    return value


def _name(word: str, *, said: bool) -> str | None:
    """A name: a word that is not one of ``_NOT_NAMES``; unless ``said`` ("my name is jonas"), written with its
    capital and not shaped like an adjective or a verb ("I'm Tired", "I'm Going")."""
    low = word.lower().strip("'")
    if low in _NOT_NAMES or low in LANGUAGE_NAMES or len(low) < 2:
        return None
    if not said and (not word[0].isupper() or low.endswith(("ing", "ed", "ly"))):
        return None
    return word[0].upper() + word[1:]


def _language_capitalised(value: str | None) -> str | None:
    """ "portuguese" -> "Portuguese": a language's name has its capital whatever the user typed."""
    return value.capitalize() if value and value.lower() in LANGUAGE_NAMES else value


def _fact(subject: str, predicate: str, value: str | None) -> tuple[str, str, str] | None:
    return None if not value else (subject, predicate, value)


def _likes(m: re.Match[str]) -> tuple[str, str, str] | None:
    """ "I love cooking": a like of its own, never "you" or "it" ("I love you" is not a hobby)."""
    value = profile_value(re.split(r"\b(?:to|about|at|in|on|of)\b", m.group(1), maxsplit=1)[0])
    if value is None or value.lower() in ("the", "a", "an", "being", "how", "when", "what", "who", "so"):
        return None
    return ("user", "likes", value)


_SPEAK = re.compile(r"\bI (?:can |also )?speak ([^.!?;]{1,60})", re.IGNORECASE)


def languages_spoken(message: str) -> list[tuple[str, str, str]]:
    """ "I speak German and a bit of French": each language a fact of its own (only known language names)."""
    return [
        ("user", "speaks", word.capitalize())
        for m in _SPEAK.finditer(message)
        for word in re.findall(r"[A-Za-z]+", re.split(r"\b(?:but|because|since|so)\b", m.group(1))[0])
        if word.lower() in LANGUAGE_NAMES
    ]


# pattern, (match -> subject, predicate, object, or None: not a fact after all), tier
FACT_PATTERNS: list[tuple[re.Pattern[str], Callable[[re.Match[str]], tuple[str, str, str] | None], str]] = [
    (
        re.compile(
            rf"\bmy ({RELATION_WORDS})('s name is| is called| is named|'s called| is) (?:an? |the )?"
            r"((?-i:[A-Z][\w'-]+)(?: (?-i:[A-Z][\w'-]+))?|[\w'-]+)",
            re.IGNORECASE,
        ),
        # "my sister is called Maya", "my sister's name is Maya", "my sister is Maya": her name
        lambda m: (
            f"user.{m.group(1).lower()}",
            "name" if m.group(2).strip() != "is" or m.group(3)[:1].isupper() else "is",
            m.group(3).strip(),
        ),
        "user_claim",
    ),
    (  # "my sister Maya", "my sibling Maya": the ledger makes both one subject (``ella.ledger.subjects``)
        re.compile(
            rf"\bmy ({RELATION_WORDS}) (?!I\b|I')((?-i:[A-Z][\w'-]+))(?:'s)?\b",
            re.IGNORECASE,
        ),
        lambda m: (f"user.{m.group(1).lower()}", "name", m.group(2).strip()),
        "user_claim",
    ),
    (  # "my name is Jonas", "call me Jonas": said outright, so a lower-case "jonas" is a name too
        re.compile(rf"\b(?:my name is|my name's|call me|i go by|they call me)\s+({_NAME_WORD})", re.IGNORECASE),
        lambda m: _fact("user", "name", _name(m.group(1), said=True)),
        "user_claim",
    ),
    (  # "I'm Jonas", "Hi Ella, I am Jonas", "im Tomas": a capitalised word that is not a feeling or a nationality
        # (a lower-case "im" only in an English message: German "im Garten" is "in the garden")
        re.compile(
            r"(?:^|[^\w'])(?:I'm|I am|i'm|i am|(?-i:im)(?=\s+[A-Z][a-z-]+\b(?!')[^.!?]*\b(?:i|I|my|and|just)\b))"
            r"\s+([A-Z][a-z-]+)\b(?!')"
        ),
        lambda m: _fact("user", "name", _name(m.group(1), said=False)),
        "user_claim",
    ),
    (
        re.compile(r"\bI(?:'m| am) (?:originally )?from ([\w' -]{2,60})|\bI come from ([\w' -]{2,60})", re.IGNORECASE),
        lambda m: _fact("user", "from", profile_value(m.group(1) or m.group(2), place=True)),
        "user_claim",
    ),
    (
        re.compile(
            r"\bI (?:live|am living|'m living) (?:in|at) ([\w' -]{2,60})|\bI'm living in ([\w' -]{2,60})", re.IGNORECASE
        ),  # fmt: skip
        lambda m: _fact("user", "lives_in", profile_value(m.group(1) or m.group(2), place=True)),
        "user_claim",
    ),
    (  # "I just moved to Lisbon for work": the new home (the ledger supersedes the old one, keeping it as the past)
        re.compile(
            r"\b(?:I|we)(?:'ve| have)? (?:just |recently |finally |now |only )?(?:moved|relocated) to ([\w' -]{2,60})",
            re.IGNORECASE,
        ),
        lambda m: _fact("user", "lives_in", profile_value(m.group(1), place=True)),
        "user_claim",
    ),
    (
        re.compile(r"\bI (?:used to live|lived) in ([\w' -]{2,60})", re.IGNORECASE),
        lambda m: _fact("user", "lived_in", profile_value(m.group(1), place=True)),
        "user_claim",
    ),
    (
        re.compile(r"\bI used to work as an? ([\w' -]{2,40})", re.IGNORECASE),
        lambda m: _fact("user", "worked_as", profile_value(m.group(1))),
        "user_claim",
    ),
    (
        re.compile(r"\bI used to work (?:at|for) ([\w'& -]{2,60})", re.IGNORECASE),
        lambda m: _fact("user", "worked_at", profile_value(m.group(1))),
        "user_claim",
    ),
    (
        re.compile(r"\bI used to study (?!at\b|in\b)([\w' -]{2,60})", re.IGNORECASE),
        lambda m: _fact("user", "studied", profile_value(m.group(1))),
        "user_claim",
    ),
    (
        re.compile(r"\bI used to study at ([\w'& -]{2,60})", re.IGNORECASE),
        lambda m: _fact("user", "studied_at", profile_value(m.group(1))),
        "user_claim",
    ),
    (
        re.compile(r"\bI work as an? ([\w' -]{2,40})", re.IGNORECASE),
        lambda m: _fact("user", "works_as", profile_value(m.group(1))),
        "user_claim",
    ),
    (  # "I'm a nurse", "I'm a night nurse": only a word that is a job
        re.compile(r"\bI(?:'m| am) an? (?:([a-z]+) )?([a-z]+)\b", re.IGNORECASE),
        lambda m: (
            _fact("user", "works_as", " ".join(filter(None, [m.group(1), m.group(2)])).lower())
            if m.group(2).lower() in OCCUPATIONS and m.group(2).lower() != "student"
            else None
        ),
        "user_claim",
    ),
    (
        re.compile(r"\bI work (at|in|for) ([\w'& -]{2,60})", re.IGNORECASE),
        lambda m: _fact("user", "works_in" if m.group(1).lower() == "in" else "works_at", profile_value(m.group(2))),
        "user_claim",
    ),
    (
        re.compile(r"\bI(?:'m| am)? (?:study|studying) (at|in) ([\w'& -]{2,60})", re.IGNORECASE),
        lambda m: _fact("user", f"studies_{m.group(1).lower()}", profile_value(m.group(2), place=True)),
        "user_claim",
    ),
    (
        re.compile(
            r"\bI(?:'m| am)? (?:study|studying) (?!at\b|in\b|for\b|hard\b|a lot\b)([\w' -]{2,60})", re.IGNORECASE
        ),  # fmt: skip
        lambda m: _fact("user", "studies", _language_capitalised(profile_value(m.group(1)))),
        "user_claim",
    ),
    (
        re.compile(r"\bI(?:'m| am) a student at ([\w'& -]{2,60})", re.IGNORECASE),
        lambda m: _fact("user", "studies_at", profile_value(m.group(1), place=True)),
        "user_claim",
    ),
    (  # "I love cooking": a like of its own, never the rest of the sentence
        re.compile(r"\bI (?:really |absolutely |just |also )?(?:love|like|enjoy|adore) ([\w' -]{2,60})", re.IGNORECASE),
        _likes,
        "user_claim",
    ),
    (
        re.compile(r"\bI have an? ([\w' -]{2,60}?) (?:on|at|this|next|tomorrow|today)\b", re.IGNORECASE),
        lambda m: ("user", "has_upcoming", m.group(1).strip()),
        "user_claim",
    ),
    (
        re.compile(r"\bmy ([\w'-]+(?: [\w'-]+)?) is (?:on|this|next|tomorrow|today)\b", re.IGNORECASE),
        lambda m: ("user", "has_upcoming", m.group(1).strip()),
        "user_claim",
    ),
    (
        re.compile(r"\b(?:she|he|they) said (?:that )?([\w' ,-]{4,120})", re.IGNORECASE),
        lambda m: ("user.someone", "said", m.group(1).strip()),
        "inferred",
    ),
]
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
DAY_WORD = re.compile(
    r"\b(today|tonight|tomorrow|" + "|".join(WEEKDAYS) + r")\b|\b(\d{4}-\d{2}-\d{2})\b", re.IGNORECASE
)


def event_day(text: str, today: date) -> date | None:
    """The day a message's event falls on: today, tomorrow, the next such weekday, or an ISO date."""
    m = DAY_WORD.search(text)
    if m is None:
        return None
    if m.group(2):
        try:
            return date.fromisoformat(m.group(2))
        except ValueError:
            return None
    word = m.group(1).lower()
    if word in ("today", "tonight"):
        return today
    if word == "tomorrow":
        return today + timedelta(days=1)
    ahead = (WEEKDAYS.index(word) - today.weekday()) % 7
    return today + timedelta(days=ahead or 7)


# The outcome of a dated event, told after it: "The interview went great!", "I passed my exam", "it went fine".
_HAPPENED = re.compile(
    r"\b(?:went|was|were|got|did|happened|turned out|paid off|finished|ended|is over|was over|is done|'s done|"
    r"'s over)\b",
    re.IGNORECASE,
)
_I_DID = re.compile(
    r"\bI (?:passed|failed|aced|nailed|bombed|smashed|had|did|finished|sat|took|survived|got through)\b",
    re.IGNORECASE,
)
_IT_WENT = re.compile(r"^\W*(?:it|that|which)(?: all)? (?:went|was|turned out|is over|'s over)\b", re.IGNORECASE)
_CALLED_OFF = re.compile(
    r"\b(?:cancell?ed|called off|is off|isn't happening|not happening anymore|fell through)\b", re.IGNORECASE
)
_MOVED = re.compile(r"\b(?:moved|postponed|rescheduled|pushed back|pushed to|delayed)\b", re.IGNORECASE)
_FUTURE_TENSE = re.compile(r"\b(?:will|going to|gonna|won't|tomorrow|next)\b", re.IGNORECASE)
_SENTENCE = re.compile(r"[^.!?]+[.!?]*")


def _event_words(obj: str) -> set[str]:
    return {w for w in chat_words(obj) if len(w) > 2 and w not in TOPICLESS_WORDS}


def _told_outcome(sentence: str, words: set[str]) -> bool:
    """Whether a sentence tells how the event named by ``words`` went: the event, then a past verb within four
    words ("the interview went great"), or "I passed/had/did my <event>"."""
    said = chat_words(sentence)
    for i, w in enumerate(said):
        if w in words and _HAPPENED.search(" ".join(said[i + 1 : i + 5])):
            return True
    m = _I_DID.search(sentence)
    return m is not None and bool(set(chat_words(sentence[m.end() :])[:4]) & words)


def retirements(message: str, today: date, known: Sequence[Any]) -> list[dict[str, Any]]:
    """The seed's lifecycle rule by rule: a past-tense outcome of a known dated event retires it with the outcome
    ("The interview went great!" after "I have a job interview on Monday"); an event called off is withdrawn.

    A sentence about the future or a moved event retires nothing (a moved event is a new day, not an outcome). "It
    went great" names no event: it retires the one known event whose day has come, when there is exactly one.
    """
    events = []
    for k in known:
        if not isinstance(k, dict) or not isinstance(k.get("id"), int) or not k.get("event_day"):
            continue
        try:
            day = date.fromisoformat(str(k["event_day"])[:10])
        except ValueError:
            continue
        events.append((k, day, _event_words(str(k.get("object", "")))))
    sentences = [m.group(0).strip() for m in _SENTENCE.finditer(message) if m.group(0).strip()]
    out: list[dict[str, Any]] = []
    done: set[int] = set()
    for n, sentence in enumerate(sentences):
        if _MOVED.search(sentence) or _FUTURE_TENSE.search(sentence) or FUTURE.search(sentence):
            continue
        come = [k for k, day, _ in events if day <= today]
        for k, _day, words in events:
            if k["id"] in done:
                continue
            because = None
            if words and _CALLED_OFF.search(sentence) and set(chat_words(sentence)) & words:
                because = "withdrawn"
            elif words and _told_outcome(sentence, words):
                because = "happened"
            elif _IT_WENT.search(sentence) and come == [k]:
                because = "happened"
            if because is None:
                continue
            done.add(k["id"])
            retired = {key: str(k.get(key, "")) for key in ("subject", "predicate", "object")}
            out.append(
                {**retired, "tier": "user_claim", "confidence": 0.6, "action": "retire", "fact_id": k["id"],
                 "because": because, "outcome": " ".join(sentences[n:])[:200]}
            )  # fmt: skip
    if not out and events:
        out = read_over(message, today, events)
    return out


# A cancellation in the five languages the readers read: the event is off whatever its day.
_CALLED_OFF_ANY = re.compile(
    r"\b(?:cancell?ed|called off|abgesagt|storniert|ausgefallen|f[äa]llt aus|cancelad[oa]s?|cancelaron|suspendi[óo]|"
    r"se suspendi[óo]|annul[ée]e?s?|annullat[oaie]|saltat[oaie]|[èe] saltat[oa])\b",
    re.IGNORECASE,
)


def read_over(message: str, today: date, events: Sequence[tuple[Any, date, set[str]]]) -> list[dict[str, Any]]:
    """The second pass where the rules above are silent: the message read as an event that is over by
    ``ella.readers`` (the English rules, then its vector reader, in English, German, Spanish, French and Italian:
    "that's done now", "sie haben es abgesagt", "ya pasó el examen", "c'est fait", "è andata").

    English words of a moved or future event retire nothing, as above, unless they also say it is over ("they
    moved it to this morning, so that's done now"). Which event: the one it names (its words, as the rules match
    them); else the one whose day has come, when there is exactly one; else, for a cancellation ("abgesagt",
    "annulé"), the only open event. Anything less sure retires nothing: a follow-up about a finished event costs
    less than an event wrongly closed."""
    from ella.readers import EVENT_OVER, over_by_rule, read

    moved_or_ahead = _MOVED.search(message) or _FUTURE_TENSE.search(message) or FUTURE.search(message)
    if (moved_or_ahead and not over_by_rule(message)) or read(message).intent != EVENT_OVER:
        return []  # "they moved it to Friday", "it will be fine": not over, whatever the vector reads
    said = set(chat_words(message))
    named = [k for k, _day, words in events if words and said & words]
    come = [k for k, day, _words in events if day <= today]
    cancelled = _CALLED_OFF_ANY.search(message) is not None
    if len(named) == 1:
        target = named[0]
    elif not named and len(come) == 1:
        target = come[0]
    elif not named and cancelled and len(events) == 1:
        target = events[0][0]
    else:
        return []
    retired = {key: str(target.get(key, "")) for key in ("subject", "predicate", "object")}
    because = "withdrawn" if cancelled else "happened"
    return [{**retired, "tier": "user_claim", "confidence": 0.6, "action": "retire", "fact_id": target["id"],
             "because": because, "outcome": message.strip()[:200]}]  # fmt: skip


def facts(message: str, today: date, known: Sequence[Any] = ()) -> list[dict[str, Any]]:
    """The message's facts: the retirements of known events it tells the outcome of, then what each pattern of
    ``FACT_PATTERNS`` reads (and the languages the user speaks), each (subject, predicate, object) once."""
    message = message.replace("\u2019", "'")
    out = retirements(message, today, known)
    found: list[tuple[tuple[str, str, str], str]] = []
    for pattern, parts, tier in FACT_PATTERNS:
        found += [(said, tier) for m in pattern.finditer(message) if (said := parts(m)) is not None]
    found += [(said, "user_claim") for said in languages_spoken(message)]
    seen: set[tuple[str, str, str]] = set()
    for (subject, predicate, obj), tier in found:
        if (subject, predicate, obj.casefold()) in seen:
            continue
        seen.add((subject, predicate, obj.casefold()))
        fact: dict[str, Any] = {"subject": subject, "predicate": predicate, "object": obj, "tier": tier,
                                "confidence": 0.6}  # fmt: skip
        day = event_day(message, today) if predicate == "has_upcoming" else None
        if day is not None:
            fact["event_date"] = day.isoformat()
        out.append(fact)
    return out[:10]


SELF_STATEMENT = re.compile(
    r"\bI(?:'ve| have)? (?:went|walked|saw|read|baked|made|found|watched|visited|finished|started|planted|painted|"
    r"spent|cooked)\b[^.!?]*",
    re.IGNORECASE,
)


def self_statements(reply: str) -> list[dict[str, Any]]:
    """The reply's own first-person statements about Ella's life (the rule engine's replies rarely make any), each
    with the places of her world it names (``things``, as the model lists them: the first naming draws one)."""
    from ella.offline_world import things_named

    return [
        {
            "content": m.group(0).strip(),
            "about": content_words(m.group(0))[:3],
            "confidence": 0.8,
            "things": things_named(m.group(0)),
        }  # fmt: skip
        for m in SELF_STATEMENT.finditer(reply)
    ][:5]


def verdict(candidates: Sequence[dict[str, Any]]) -> dict[str, Any]:
    if not candidates:
        return {"winner": 0, "reason": "no candidates"}
    ranked = sorted(
        range(len(candidates)),
        key=lambda i: (TIER_RANK.get(str(candidates[i].get("tier")), 0), str(candidates[i].get("created_at", ""))),
    )
    best = ranked[-1]
    if len(ranked) > 1:
        a, b = candidates[ranked[-1]], candidates[ranked[-2]]
        if (a.get("tier"), str(a.get("created_at", ""))) == (b.get("tier"), str(b.get("created_at", ""))):
            return {"winner": 0, "reason": "same provenance and age: cannot decide"}
    return {"winner": best + 1, "reason": f"{candidates[best].get('tier')} and most recent among its tier"}


def notification_body(v: dict[str, Any], name: str) -> str:
    """A plain follow-up in Ella's voice, grounded in the fact's object (``topic``): no invention, no outcome."""
    topic = " ".join(str(v.get("topic") or "").split())[:120]
    if topic and v.get("predicate") == "has_upcoming":
        text = f"How did your {topic} go? I've been thinking of you."
    elif topic:
        text = f"I was thinking about what you told me, {topic}. How is it going?"
    else:
        text = str(v.get("plan") or f"Thinking of you, {name}. How are things?")
    return text[:300]


def chapter(name: str, memos: Sequence[Any]) -> dict[str, Any]:
    """A week's chapter: titled after its most poignant note, the notes in order as the summary, and the three
    most poignant notes as key moments, each citing its own id (the ids the request offered)."""
    notes = [m for m in memos if isinstance(m, dict) and isinstance(m.get("id"), int)]
    ranked = sorted(notes, key=lambda m: -int(m.get("poignancy") or 0))  # stable: ties keep their order
    top = str(ranked[0].get("text", "")) if ranked else ""
    title = " and ".join(salient([top], 2, name)).capitalize()[:80] or "A quiet week"
    summary = " ".join(str(m.get("text", "")).rstrip(". ") + "." for m in notes)[:2000] or f"A quiet week with {name}."
    moments = [{"text": str(m.get("text") or "a moment")[:300], "node_ids": [m["id"]]} for m in ranked[:3]]
    return {"title": title, "summary": summary, "key_moments": moments}


# A month's arc from the chapter count and last month's stage: enough weeks together moves a friendship on,
# one week or none lets it drift. The offline engine cannot read strain; a model can.
_ARC_NEXT = {"none": "new", "new": "warming", "warming": "steady", "steady": "steady", "strained": "warming",
             "drifting": "warming"}  # fmt: skip
_ARC_MINDFUL = {
    "new": "Still getting to know {name}; ask about {topic} with curiosity, not assumptions.",
    "warming": "{name} is opening up; keep following up on {topic}, gently and without pushing.",
    "steady": "A settled friendship; remember what matters to {name}, like {topic}, without retelling it.",
    "strained": "Something weighs on the friendship; be patient and kind, and let {name} set the pace.",
    "drifting": "{name} has been quieter this month; a light check-in about {topic}, no pressure.",
}


def arc(v: dict[str, Any], name: str) -> dict[str, Any]:
    count = int(v.get("chapter_count") or 0)
    previous = str(v.get("previous_stage") or "none")
    if previous == "none":
        stage, trajectory = ("warming" if count >= 3 else "new"), "rising"
    elif count >= 3:
        stage = _ARC_NEXT.get(previous, "steady")
        trajectory = "steady" if stage == previous else "rising"
    elif count == 2:
        stage, trajectory = (previous if previous in _ARC_MINDFUL else "steady"), "steady"
    else:
        stage = previous if previous in ("new", "strained") else "drifting"
        trajectory = "falling"
    topics = salient([str(c) for c in v.get("chapters", [])], 1, name)
    mindful = _ARC_MINDFUL[stage].format(name=name, topic=topics[0] if topics else "their week")
    return {"stage": stage, "trajectory": trajectory, "mindful_of": mindful[:300]}


def digest(v: dict[str, Any]) -> dict[str, Any]:
    """The daily digest by rule: about the open follow-up whose window ends soonest (good luck before it, "how did
    it go" after), else the newest planning thought; each cites the id it was offered. Nothing else: say nothing."""
    facts = [f for f in v.get("facts", []) if isinstance(f, dict) and isinstance(f.get("id"), int)]
    plans = [p for p in v.get("plans", []) if isinstance(p, dict) and isinstance(p.get("id"), int)]
    if facts:
        fact = facts[0]  # shown soonest-ending first
        topic = " ".join(str(fact.get("topic") or "").split())[:120] or "plans"
        if fact.get("upcoming"):
            text = f"Thinking of you ahead of your {topic}. I hope it goes well."
        else:
            text = f"How did your {topic} go? I've been thinking of you."
        return {"say": True, "text": text[:300], "cites": {"facts": [fact["id"]]}}
    if plans:
        plan_line = str(plans[-1].get("plan") or "")  # shown oldest first
        topics = salient([plan_line], 1)
        about = f"how things are going with {topics[0]}" if topics else "how you are doing"
        text = f"I was thinking of you today and wondered {about}."
        return {"say": True, "text": text, "cites": {"thoughts": [plans[-1]["id"]]}}
    return {"say": False, "text": "", "cites": {}}


def _today(value: Any) -> date:
    """The ``today`` variable's date (its first ten characters are ISO), else the UTC date."""
    try:
        return date.fromisoformat(str(value)[:10])
    except ValueError:
        return datetime.now(UTC).date()


class OfflineProvider:
    """Answers every kind by the rules above; token counts are estimates (characters / 4), cost nothing."""

    name = "offline"
    # Its live reply reads the reply's context by rule (``ella.offline_reply.grounded_reply``): the memories it was
    # given, the lazy world, and its own turns of this conversation (so that it retells a memory once).
    reads_context = True
    # The world brief, the self-log and the relationship block are prose for a model: its rules read the lazy
    # world's values instead, and nothing of the other two, so the loader leaves all three out (four queries).
    reads_prose = False
    # Its rules read what the guard reads (``ella.guard.language.READABLE``): a message in another language gets
    # the unreadable fallback (``ella.reply.check_inbound``), never a template that answers what it did not read.
    reads_any_language = False

    def complete(self, request: CompletionRequest) -> Completion:
        v = request.variables
        name = str(v.get("name", "the user"))
        kind = request.kind
        if kind == "poignancy":
            out: dict[str, Any] = {"score": poignancy_score(str(v.get("event", "")))}
        elif kind == "event_triple":
            out = triple(name, str(v.get("event", "")))
        elif kind == "perception":
            event = str(v.get("event", ""))
            out = {"score": poignancy_score(event), **triple(name, event)}
        elif kind == "focal_points":
            out = {"questions": focal_questions(name, list(v.get("statements", [])), int(v.get("n", 3)))}
        elif kind == "insights":
            out = {"insights": insights(name, str(v.get("focal_point", "")), list(v.get("statements", [])))}
        elif kind == "memo":
            text = memo(name, list(v.get("transcript", [])))
            out = {"memo": text, "perception": perceived(name, f"Ella {text}")}
        elif kind == "planning_thought":
            transcript = list(v.get("transcript", []))
            text = plan(name, transcript)
            until = plan_until(name, transcript, _today(v.get("today")))
            out = {"plan": text, "perception": perceived(name, text), "until": until and until.isoformat()}
        elif kind == "conversation_note":  # the memo and the plan in one answer, by the same two rules
            transcript = list(v.get("transcript", []))
            memo_text, plan_text = memo(name, transcript), plan(name, transcript)
            until = plan_until(name, transcript, _today(v.get("today")))
            out = {
                "memo": memo_text,
                "memo_perception": perceived(name, f"Ella {memo_text}"),
                "plan": plan_text,
                "plan_perception": perceived(name, plan_text),
                "until": until and until.isoformat(),
            }
        elif kind == "reply":
            message = str(v.get("message", ""))
            history = [(t.role, " ".join(b.text for b in t.blocks)) for t in request.messages[:-1]]
            said_before = " ".join(text for role, text in history if role == "assistant")
            past, today = str(v.get("world_past") or ""), _today(v.get("today"))
            # extraction folded into the reply: the rules of fact_extraction below, on the same variables; the
            # reply reads them too (a name just given, a like to ask back about)
            told = facts(message, today, list(v.get("known") or []))
            reply = grounded_reply(
                message,
                list(v.get("recalled", [])),
                dict(v.get("world", {})),
                said_before,
                past,
                today,
                canon=list(v.get("canon") or []),
                about_user=dict(v.get("about_user") or {}),
                user_past=str(v.get("user_past") or ""),
                history=history,
                told=told,
            )
            out = {
                "reply": reply,
                "perception": {"score": poignancy_score(message), **triple(name, message)},
                "self_statements": self_statements(reply),
                "facts": told,
            }
        elif kind == "fact_extraction":
            today = _today(v.get("today"))
            out = {"facts": facts(str(v.get("message", "")), today, list(v.get("known") or []))}
        elif kind == "contested_verdict":
            out = verdict(list(v.get("candidates", [])))
        elif kind == "chapter_distillation":
            out = chapter(name, list(v.get("memos", [])))
        elif kind == "relationship_arc":
            out = arc(v, name)
        elif kind == "notification_body":
            out = {"text": notification_body(v, name)}
        elif kind == "digest":
            out = digest(v)
        else:
            raise ValueError(f"the offline engine has no rule for kind {kind!r}")
        text = json.dumps(out, ensure_ascii=False)
        prompt_chars = sum(len(b.text) for b in request.system) + sum(
            len(b.text) for t in request.messages for b in t.blocks
        )
        usage = Usage(input_tokens=math.ceil(prompt_chars / 4), output_tokens=math.ceil(len(text) / 4))
        return Completion(text=text, model="offline", usage=usage)

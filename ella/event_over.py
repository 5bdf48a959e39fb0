"""Whether a plan or a message of Ella's looks forward to an event the user said is over (issue 34, item 3).

Why: a new user said "I have a job interview on Thursday", later "The interview went great, they offered me the
job!". Extraction retired the interview with its outcome, and plans made before it expired
(``models.memory.expire_plans_about``), but the conversation's close wrote "after Thursday, ask how the interview
went" *after* the outcome, and the day's digest asked about it again. So every writer of something Ella may say on
her own checks when it writes, and the dispatcher checks again when it sends (a plan written before the outcome
must not be sent after it):

- the close (``ella.memory.conversation_close.stale_plan``): the ledger, and the transcript itself, since the
  outcome may be in it and not (yet, or ever) in the ledger;
- the digest (``ella.digest``): the plans it offers, and the answer it stores;
- the follow-ups and the dispatcher (``ella.notifications.policy.decide``): the body and the plans it cites.

"Said it is over" is every way the project already reads it:

- the ledger: a user's dated event (``has_upcoming`` or a follow-up window) retired, because it happened or was
  withdrawn or called off (``ella.ledger.consolidation``), whatever language the outcome came in ("sie haben es
  abgesagt" retires the interview as "the interview went great" does: the plan is matched against the fact);
- the words: a line the readers read as an event that is over (``ella.readers`` ``EVENT_OVER``, the English rules
  then the vector reader, in English, German, Spanish, French and Italian; ``ella.ledger.extraction.told_over``).

How a text is matched to an event: by the event's head word, stemmed (``ella.memory.plans.about_event``: "job
interview" is over, so "ask how the interview went" is stale and "ask how the new job is going" is not). Plans do
not cite the facts they follow up on (a planning thought cites its chat node), so the words are what there is. A
live event with the same head word (a second interview announced since) keeps the text: it may be about that one.

Why dropping on words is safe: a plan or a notification dropped wrongly costs one message; the event's own
follow-up still comes from its fact in the ledger while the fact is live. Asking how the past will go breaks trust.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Protocol

from ella.lexicon import TOPICLESS_WORDS, stem, tokenize, words
from ella.memory.plans import about_event

HOLD = "event_over"  # the reason's code on a plan or a notification held back for it
HORIZON = timedelta(days=30)  # retired events older than this are history: no plan still waits for them
USER_SUBJECT = "user"
UPCOMING = "has_upcoming"
RETIRED = "retired"
# ``ella.ledger.consolidation.RETIRE_REASONS``, read back from a retired fact's status note; anything else retired
# (an operator, a resolver) is over all the same.
BECAUSE = {"the event happened: the user told how it went": "happened", "the user withdrew it": "withdrawn"}


class EventFact(Protocol):
    """What is read of a ledger fact (``models.ledger.WorldFact`` is one)."""

    @property
    def id(self) -> int: ...
    @property
    def subject(self) -> str: ...
    @property
    def predicate(self) -> str: ...
    @property
    def object(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def status_note(self) -> str | None: ...
    @property
    def followup_after(self) -> datetime | None: ...
    @property
    def retired_at(self) -> datetime | None: ...


@dataclass(frozen=True)
class OverEvent:
    """An event of the user's the ledger says is over: its fact, what it was, why it ended, when."""

    fact_id: int
    event: str  # the fact's object: "job interview"
    because: str  # happened | withdrawn | retired
    over_at: datetime | None


@dataclass(frozen=True)
class KnownEvents:
    """One user's events as the ledger holds them now: those over (recently) and the live ones' names."""

    over: tuple[OverEvent, ...] = ()
    live: tuple[str, ...] = field(default=())


NOTHING_KNOWN = KnownEvents()


def is_users_event(fact: EventFact) -> bool:
    """A dated event of the user's: about the user, ``has_upcoming`` or with a follow-up window (as
    ``tasks.ledger`` reads it when it expires the plans about a retired one)."""
    about_user = fact.subject == USER_SUBJECT or fact.subject.startswith(USER_SUBJECT + ".")
    return about_user and (fact.predicate == UPCOMING or fact.followup_after is not None)


def known_events(facts: Iterable[EventFact]) -> KnownEvents:
    """The user's events of ``facts`` (live or retired rows; anything else is ignored), as the checks read them."""
    over: list[OverEvent] = []
    live: list[str] = []
    for fact in facts:
        if not is_users_event(fact):
            continue
        if fact.status == RETIRED:
            because = BECAUSE.get(fact.status_note or "", RETIRED)
            over.append(OverEvent(fact.id, fact.object, because, fact.retired_at))
        elif fact.status in ("active", "contested"):
            live.append(fact.object)
    return KnownEvents(tuple(over), tuple(live))


def looks_forward(text: str, known: KnownEvents) -> OverEvent | None:
    """The over event ``text`` names (its head word), unless a live event names it too; else None."""
    if not text or not known.over:
        return None
    for event in known.over:
        if about_event(text, event.event) and not any(_same_head(event.event, live) for live in known.live):
            return event
    return None


def first_over(texts: Iterable[str], known: KnownEvents) -> OverEvent | None:
    """The first over event any of ``texts`` looks forward to (a body and the plans it rests on)."""
    for text in texts:
        found = looks_forward(text, known)
        if found is not None:
            return found
    return None


def stale_reason(texts: Iterable[str], known: KnownEvents) -> str | None:
    """Why what ``texts`` say (a body and the plans it rests on) must not be sent, or None when it may be."""
    over = first_over(texts, known)
    return None if over is None else reason(over)


def reason(event: OverEvent) -> str:
    """The reason stored and logged with what was held back: ``event_over: fact 12 (happened)``. Ids and codes
    only: the event's name is the user's words, which no log line spells (``workers.logs``)."""
    return f"{HOLD}: fact {event.fact_id} ({event.because})"


def _same_head(a: str, b: str) -> bool:
    head_a, head_b = tokenize(a), tokenize(b)
    return bool(head_a) and bool(head_b) and head_a[-1] == head_b[-1]


# --- the transcript: an outcome told after the announcement ----------------------------------------------------

# Words that put an event ahead ("on Thursday", "tomorrow", "next week", "coming up"): what makes a line an
# announcement. English, as the offline engine's plan rule reads it; other languages reach the check through the
# ledger (their outcome retires the fact) and through the reader of the outcome below.
_WEEKDAY = r"monday|tuesday|wednesday|thursday|friday|saturday|sunday"
AHEAD = re.compile(
    rf"\b(?:tomorrow|tonight|later today|next (?:week|month|year|{_WEEKDAY})|(?:on |this )?(?:{_WEEKDAY})|"
    r"this (?:weekend|week|morning|afternoon|evening)|soon|upcoming|coming up|in (?:a|two|three|\d+) (?:days?|weeks?)|"
    r"\d{4}-\d{2}-\d{2})\b",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"[^.!?;]+[.!?;]*")
# Plan and chat words that name no event ("ask", "went", "great"): never an event's head.
_NOT_AN_EVENT = frozenset({"ask", "went", "great", "good", "well", "fine", "big", "new", "first", "last", "next",
                           "excited", "nervous", "scared", "happy"})  # fmt: skip


def _head(before: str, after: str) -> str | None:
    """The event an announcement names: the last topic word before its "ahead" words ("a job interview on
    Thursday": interview), else the last after them ("tomorrow I have my driving test": test), stemmed."""
    for part in (before, after):
        found = [w for w in words(part) if w.isalpha() and w not in TOPICLESS_WORDS and w not in _NOT_AN_EVENT]
        found = [w for w in found if not re.fullmatch(_WEEKDAY, w)]
        if found:
            return stem(found[-1])
    return None


def announced(line: str) -> str | None:
    """The head word of the event a line puts ahead, or None when it puts nothing ahead."""
    for sentence in _SENTENCE.findall(line):
        m = AHEAD.search(sentence)
        if m is not None:
            return _head(sentence[: m.start()], sentence[m.end() :])
    return None


def says_over(line: str) -> bool:
    """Whether a line tells that an event is over: one of its sentences by the English rules ("the interview went
    great, they offered me the job! I start next month" is over by its first), else the whole line by the
    readers (the rules, then the vector reader, five languages: "sie haben es abgesagt")."""
    from ella.ledger.extraction import told_over
    from ella.readers import over_by_rule

    return any(over_by_rule(s) for s in _SENTENCE.findall(line)) or told_over(line)


def user_lines(transcript: Sequence[str], name: str) -> list[str]:
    """The user's turns of a ``"name: text"`` transcript (``models.turns.conversation_transcript``)."""
    prefix = f"{name.casefold()}:"
    return [line.split(":", 1)[1].strip() for line in transcript if line.casefold().startswith(prefix)]


def over_in_transcript(transcript: Sequence[str], name: str) -> list[str]:
    """The head words of the events the user announced and then, later in the same conversation, said are over.

    An outcome that names an announced event is about that one ("the interview went great"); one that names none
    ("it went great", "sie haben es abgesagt") is about the last event announced before it. An event announced
    again after its outcome (a second round on Friday) is ahead again, not over.
    """
    heads: list[tuple[int, str]] = []  # (line, head) of each announcement
    over: dict[str, int] = {}  # head -> the line that said it is over
    for i, line in enumerate(user_lines(transcript, name)):
        head = announced(line)
        if not heads and head is None:
            continue  # nothing announced yet: no outcome to read (and no reader to run)
        if not says_over(line):
            if head is not None:
                heads.append((i, head))
                over.pop(head, None)  # ahead again
            continue
        if not heads:
            continue
        named = set(tokenize(line))
        target = next((h for _, h in reversed(heads) if h in named), heads[-1][1])
        over[target] = i
    return sorted(over)


def plan_told_over(plan: str, transcript: Sequence[str], name: str) -> str | None:
    """The event (head word) the transcript says is over that ``plan`` looks forward to; None when it looks
    forward to none."""
    said = set(tokenize(plan))
    return next((head for head in over_in_transcript(transcript, name) if head in said), None)

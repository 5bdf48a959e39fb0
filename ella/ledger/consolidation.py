"""Consolidation: what a user's new statement does to what the ledger already holds about them.

Why: extraction used to see one message and nothing else, so every statement was an append or an exact-string
match. An event that had happened stayed "upcoming" (the demo's digest wished the user luck for an interview
they had told Ella went great), and "my sibling Maya" was a second person beside "my sister Maya". mem0 asks
the model add/update/delete/no-op against the memories it already has, and deletes; Graphiti invalidates the
edges a new fact contradicts, and over-invalidates. Ours keeps every row and scopes every change to one fact
the model names by id:

- The request shows the user's live facts on the subjects the message touches, each with its id (``shown``,
  ``known_variables``): the people and things it names, and every dated event still open (an outcome is often
  told without naming it: "it went great!").
- Each statement comes back as ``add``, ``update`` (supersedes the fact ``fact_id``), ``retire`` (the event
  happened, with its outcome, or the claim was withdrawn: the seed's lifecycle rule, status ``retired`` with a
  reason) or ``none`` (known already). The kind's validator has already turned an id that was not shown into
  an add (update) or nothing (retire).
- ``decide`` checks the named fact against the live facts at write time: it must still be live, about the
  user, the user's own (a user's words never replace or retire canon, nor what an operator wrote), and for an
  update on the same subject (after ``ella.ledger.subjects.converge``) and not a weaker tier (an inference
  never replaces what the user said). A statement that fails is placed as an add would be
  (``extraction.place``), or dropped if it was a retirement.
- Subjects converge before anything is placed (``statements``): the subject and predicate are made canonical
  and the subject resolved to the known person it names.

History is kept: a superseded or retired fact stays in the ledger with its reason (``status_note``, and the
status event) and, for an event, what came of it (``outcome``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from ella.core_profile import clean_value
from ella.ledger import subjects
from ella.ledger.extraction import Action, Placement, admissible, fact_from, place
from ella.ledger.facts import NewFact, StoredFact
from ella.ledger.rules import LIVE, USER_SUBJECT, Tier, Writer, about_the_user
from ella.llm.kinds import ExtractedFact

MAX_SHOWN = 12  # live facts shown to extraction: the open dated events first, then what the message touches
UPDATE_REASON = "the user said otherwise later"
RETIRE_REASONS = {
    "happened": "the event happened: the user told how it went",
    "withdrawn": "the user withdrew it",
}
USER_TIERS = frozenset({Tier.USER_CLAIM.value, Tier.INFERRED.value})
_WORD = re.compile(r"[a-z][a-z'-]+")
_STOP = frozenset(
    {"the", "and", "for", "with", "about", "that", "this", "have", "has", "had", "was", "were", "are", "is", "not",
     "but", "you", "your", "they", "them", "from", "just", "really", "very", "what", "when", "then", "there",
     "some", "will", "would", "could", "should", "been", "being", "it's", "its", "she", "her", "his", "him"}
)  # fmt: skip


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.casefold().replace("\u2019", "'")) if len(w) > 2 and w not in _STOP}


def users_own(fact: StoredFact) -> bool:
    """A live fact of the user's own making: about the user, of a tier their words write, written from them."""
    return (
        fact.status in LIVE
        and about_the_user(fact.subject)
        and fact.tier in USER_TIERS
        and fact.written_by == Writer.USER.value
    )


def open_event(fact: StoredFact, now: datetime) -> bool:
    """A dated event whose follow-up window has not closed: still ahead, or just past and not yet asked about."""
    return fact.followup_after is not None and (fact.followup_until is None or fact.followup_until > now)


def touches(fact: StoredFact, words: set[str]) -> bool:
    """Whether a message's words name the fact's person (relation or name) or share a word with what it says."""
    relations = {subjects.RELATION_WORDS.get(w) for w in words} - {None}
    relation = subjects.relation_of(fact.subject)
    if relation is not None and relation in relations:
        return True
    key_words = set(subjects.subject_key(fact.subject).replace(".", "_").split("_")) - {USER_SUBJECT}
    return bool((key_words | _words(fact.object)) & words)


def shown(live: Iterable[StoredFact], message: str, now: datetime) -> list[StoredFact]:
    """The user's live facts the extraction request shows with their ids: every open dated event of theirs,
    then their facts the message touches, oldest first within each, at most ``MAX_SHOWN``."""
    own = sorted((f for f in live if users_own(f)), key=lambda f: f.id)
    words = _words(message)
    events = [f for f in own if open_event(f, now)]
    touched = [f for f in own if f not in events and touches(f, words)]
    return (events + touched)[:MAX_SHOWN]


def event_day(fact: StoredFact, zone: ZoneInfo) -> str | None:
    """The local day a dated event falls on (its window opens the day after), as ``2026-12-03 (Thursday)``."""
    if fact.followup_after is None:
        return None
    day = fact.followup_after.astimezone(zone) - timedelta(days=1)
    return f"{day:%Y-%m-%d (%A)}"


def known_variables(facts: Sequence[StoredFact], zone: ZoneInfo, now: datetime) -> list[dict[str, Any]]:
    """The ``known`` variable of the extraction template: one line per shown fact, with its id."""
    out: list[dict[str, Any]] = []
    for f in facts:
        line: dict[str, Any] = {"id": f.id, "subject": f.subject, "predicate": f.predicate, "object": f.object}
        day = event_day(f, zone)
        if day is not None:
            ahead = f.followup_after is not None and now < f.followup_after
            line["event_day"] = f"{day}, {'still ahead' if ahead else 'past'}"
        out.append(line)
    return out


@dataclass(frozen=True)
class FactsInView:
    """What a request that reads a turn for facts shows: the user's local day and their live facts with ids.

    The same for the extraction call and the live reply that folds extraction in (``Reply.facts``), so a statement
    means the same whichever call made it. ``ids`` is the validation context (``known_ids``): an id not shown is
    never acted on.
    """

    today: str  # "2026-12-03 (Thursday)"
    known: list[dict[str, Any]]
    ids: list[int]


def in_view(live: Iterable[StoredFact], message: str, at: datetime, zone: ZoneInfo) -> FactsInView:
    """The facts a request about ``message`` (sent ``at``) shows (``shown``), and the user's day then."""
    facts = shown(live, message, at)
    day = at.astimezone(zone)
    return FactsInView(f"{day:%Y-%m-%d} ({day:%A})", known_variables(facts, zone, at), [f.id for f in facts])


@dataclass(frozen=True)
class Statement:
    """One statement of the model's answer, its fact with a canonical, converged subject and predicate."""

    extracted: ExtractedFact
    new: NewFact


def canonical(new: NewFact, known: Sequence[subjects.Person]) -> NewFact:
    """The fact with its subject resolved to the known person it names and its predicate's canonical spelling
    (a naming "is", "my sister is Maya", is ``name``)."""
    predicate = "name" if subjects.is_naming(new.subject, new.predicate, new.object) else new.predicate
    subject = subjects.converge(new.subject, new.predicate, new.object, known)
    return replace(new, subject=subject, predicate=subjects.predicate_key(predicate))


def statements(
    extracted: Sequence[ExtractedFact],
    message_id: str,
    zone: ZoneInfo,
    followup_days: float,
    live: Iterable[StoredFact],
) -> tuple[list[Statement], int]:
    """The statements to decide on, canonical, and how many were refused as not the user's to claim.

    A retirement or a no-op names a fact by id and adds nothing, so only adds and updates are judged by
    ``admissible`` (about the user, never Ella as their partner), on what the model said and on where its
    subject converges. A core-profile value (a home, a name, a job) is ended at its clause, and refused (counted
    with the others) when it is a link or still a sentence (``ella.core_profile.clean_value``): the fact's note
    says what was cut.
    """
    known = subjects.people(live)
    out: list[Statement] = []
    refused = 0
    for i, fact in enumerate(extracted):
        new = canonical(fact_from(fact, message_id, zone, i, followup_days), known)
        if fact.action in ("add", "update") and not (
            admissible(fact) and admissible(fact.model_copy(update={"subject": new.subject}))
        ):
            refused += 1
            continue
        if fact.action in ("add", "update"):
            value, reason = clean_value(new.subject, new.predicate, new.object)
            if value is None:
                refused += 1
                continue
            if reason:
                new = replace(new, object=value, note=f"{new.note}; {reason}")
                fact = fact.model_copy(update={"object": value})
        out.append(Statement(fact, new))
    return out, refused


def _replaceable(target: StoredFact, new: NewFact) -> bool:
    """Whether an update may supersede ``target``: the user's own, the same subject, and not by a weaker tier."""
    same_subject = subjects.subject_key(target.subject) == subjects.subject_key(new.subject)
    weaker = new.tier == Tier.INFERRED.value and target.tier == Tier.USER_CLAIM.value
    return users_own(target) and same_subject and not weaker


def decide(statement: Statement, live: Sequence[StoredFact]) -> Placement:
    """Where one statement goes, given the user's live facts now (see the module's docstring)."""
    said, new = statement.extracted, statement.new
    target = next((f for f in live if f.id == said.fact_id), None) if said.fact_id is not None else None
    if said.action == "none":
        return Placement(Action.KNOWN)
    if said.action == "retire":
        if target is None or not users_own(target):
            return Placement(Action.KNOWN)  # gone since, or not the user's to retire: nothing changes
        because = said.because or ("happened" if target.followup_after is not None else "withdrawn")
        return Placement(Action.RETIRE, target.id, RETIRE_REASONS[because], said.outcome)
    if said.action == "update" and target is not None and _replaceable(target, new):
        if (target.predicate, target.object.casefold()) == (new.predicate, new.object.casefold()) and (
            target.followup_after == new.followup_after
        ):
            return Placement(Action.KNOWN)
        return Placement(Action.SUPERSEDE, target.id, UPDATE_REASON)
    return place(new, live)

"""Fact extraction's rules: which user turns are worth a model call, and what becomes of each extracted fact.

Why a gate: extraction is one model call per user turn, and most turns of a chat ("haha", "that's so nice",
"what about you?") say nothing about the speaker. A fact about the user is, with rare exceptions, said in the
first person ("my sister", "I start Monday", "we moved"), so a turn without any first-person word is skipped.
The cost of a miss is small (the next turn that mentions it is read); the saving is most small talk. The one
exception read anyway is an outcome ("The interview went great!"): it retires the user's event, and missing it
leaves Ella looking forward to the past.

Why the placement rule lives here: "the same fact twice is stored once; a newer claim of the user supersedes
their own older claim on the same subject and predicate" is a decision about plain values (the new fact and
the user's live facts). ``tasks.ledger`` stores what ``place`` decides; the ledger's trust rules still refuse
anything a user's words may not write.

Why the subject check is here, in code: an extracted fact is stored only when it is about the user and does
not cast Ella as their partner (``rules.user_may_claim``). The prompt asks for that too, but a model that
follows an injection would otherwise write Ella's world ("ella: relationship_to_user=girlfriend") into every
later prompt's world brief.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from enum import StrEnum
from zoneinfo import ZoneInfo

from ella.ledger.facts import NewFact, StoredFact
from ella.ledger.rules import Tier, Writer, user_may_claim
from ella.llm.kinds import ExtractedFact

_FIRST_PERSON = re.compile(r"\b(?:i|i'm|im|i've|ive|i'd|i'll|me|my|mine|myself|we|we're|we've|our|ours|us)\b")
SUPERSEDE_REASON = "the user said otherwise later"


# An outcome is often told without a first-person word ("The interview went great!", "it got cancelled"), and
# it is what retires a live event (``ella.ledger.consolidation``): such a turn is read too.
_OUTCOME = re.compile(
    r"\b(?:went|passed|failed|aced|nailed|bombed|cancell?ed|called off|happened|is over|was over|turned out|"
    r"fell through)\b"
)


def worth_extracting(text: str) -> bool:
    said = text.casefold().replace("\u2019", "'")
    return _FIRST_PERSON.search(said) is not None or _OUTCOME.search(said) is not None or told_over(text)


def told_over(text: str) -> bool:
    """Whether ``ella.readers`` reads the turn as an event that is over, in any of its five languages ("sie haben es
    abgesagt", "c'est fait"): the English words above miss them, and a missed outcome leaves Ella looking forward
    to the past. Read only where those words are silent (one vector read, shared with the turn's other readers)."""
    from ella.readers import EVENT_OVER, read

    return read(text).intent == EVENT_OVER


# A claim taken back, or an event off: "not anymore", "no longer", "it's off", "didn't happen".
_WITHDRAWN = re.compile(
    r"\b(?:any ?more|no longer|never mind|nevermind|take (?:it|that) back|didn't happen|did not happen|"
    r"isn't happening|not happening|is off|'s off|postponed|rescheduled|moved|instead)\b"
)


def may_retire(text: str) -> bool:
    """Whether a turn's words could retire or move a fact: an outcome ("it went great"), a withdrawal ("not
    anymore"), an event called off or moved; in German, Spanish, French or Italian, an event over (``told_over``).

    Why: the live reply reads a turn for facts against the facts it is shown (``Reply.facts``). When an earlier
    turn's fact was stored after that reply ran, the reply could not name it by id, and of what it could have done
    to it only a retirement is lost: an add that repeats it or replaces it on the same subject and predicate is
    still placed right (``place``: known, or a supersession), and a subject converges on the person as stored
    then. So such a turn is read again by a call of its own only when these words could retire something.
    """
    said = text.casefold().replace("\u2019", "'")
    return _OUTCOME.search(said) is not None or _WITHDRAWN.search(said) is not None or told_over(text)


def followup_window(event_day: date, zone: ZoneInfo, days: float) -> tuple[datetime, datetime]:
    """Ask about a dated event only after it happened: from the end of its local day, for ``days``."""
    after = datetime.combine(event_day + timedelta(days=1), time(0, 0), tzinfo=zone)
    return after, after + timedelta(days=days)


def fact_from(extracted: ExtractedFact, message_id: str, zone: ZoneInfo, index: int, followup_days: float) -> NewFact:
    """The ledger's fact for one extracted fact; its dedupe key makes a redelivered message store nothing new."""
    window: tuple[datetime | None, datetime | None] = (None, None)
    if extracted.event_date is not None:
        window = followup_window(extracted.event_date, zone, followup_days)
    return NewFact(
        subject=extracted.subject,
        predicate=extracted.predicate,
        object=extracted.object,
        tier=extracted.tier,
        confidence=extracted.confidence,
        note=f"extracted from message {message_id}",
        source_message_id=message_id,
        followup_after=window[0],
        followup_until=window[1],
        dedupe_key=f"extract:{message_id}:{index}"[:200],
    )


def admissible(extracted: ExtractedFact) -> bool:
    """Whether a user's words may put this fact in the ledger (about the user; Ella never their partner)."""
    return user_may_claim(extracted.subject, extracted.predicate, extracted.object)


def facts_from(
    extracted: Iterable[ExtractedFact], message_id: str, zone: ZoneInfo, followup_days: float
) -> list[NewFact]:
    """The ledger's facts for the admissible extracted facts (each keeps its index in the model's answer)."""
    return [fact_from(fact, message_id, zone, i, followup_days) for i, fact in enumerate(extracted) if admissible(fact)]


LiveFact = StoredFact  # what placement reads of a live fact

# Predicates a person holds many of at once: a new one sits beside the others instead of replacing them ("I love
# cooking", later "I love hiking": both hold; "I speak German" and "I speak English" too).
MANY_VALUED = frozenset(
    {"likes", "loves", "enjoys", "dislikes", "hates", "speaks", "has", "plays", "hobby", "hobbies", "reads",
     "watches", "listens_to", "collects"}
)  # fmt: skip


class Action(StrEnum):
    KNOWN = "known"  # the user's world holds it already: store nothing
    SUPERSEDE = "supersede"  # replaces the user's own older claim (``Placement.replaces``)
    APPEND = "append"  # a new chain
    RETIRE = "retire"  # withdraws ``Placement.replaces`` (an event that happened, a claim withdrawn): no new fact


@dataclass(frozen=True)
class Placement:
    """What a fact does: ``replaces`` is the fact superseded or retired, ``reason`` the status note to keep,
    ``outcome`` what came of a retired event (``ella.ledger.consolidation``)."""

    action: Action
    replaces: int | None = None
    reason: str = ""
    outcome: str | None = None


def place(new: NewFact, live: Sequence[LiveFact]) -> Placement:
    """Where one extracted fact goes, given the user's live facts.

    The same subject, predicate and object (in any case) is known. A user claim replaces the newest of the
    user's own live claims on the same subject and predicate, unless the predicate is one a person holds many of
    (``MANY_VALUED``: likes, languages); a claim never replaces canon or anything another
    writer wrote (it sits beside it, and the brief shows canon). Anything else is appended.

    A dated event (one with a follow-up window) is one event per object: "my interview is on Thursday" and "my
    dentist appointment is on Wednesday" sit side by side, and the same event on another day ("the interview
    moved to next Tuesday") replaces the user's own earlier claim, so the old day's follow-up dies with it.
    """
    same = [f for f in live if f.subject == new.subject and f.predicate == new.predicate]
    alike = [f for f in same if f.object.casefold() == new.object.casefold()]
    if new.followup_after is not None:
        if any(f.followup_after == new.followup_after for f in alike):
            return Placement(Action.KNOWN)
        same = alike  # another event is not this one: only the same event on another day is replaced
    elif alike:
        return Placement(Action.KNOWN)
    if new.tier == Tier.USER_CLAIM and new.predicate not in MANY_VALUED:
        own = [f for f in same if f.tier == Tier.USER_CLAIM and f.written_by == Writer.USER]
        if own:
            newest = max(own, key=lambda f: (f.recorded_at, f.id))
            return Placement(Action.SUPERSEDE, newest.id)
    if alike:
        return Placement(Action.KNOWN)
    return Placement(Action.APPEND)

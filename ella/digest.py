"""The daily digest: once per user per local day, "is there anything worth saying to this user today?".

Why these rules (issue 13; seed, section 3, and the self-log's second use):

* An idle user costs no model call. A user gets a request only when something is new since their last digest
  (``is_active``): a turn of theirs received since, a follow-up fact (a dated event of theirs whose window has
  not closed) recorded since, or a planning thought of Ella's ("For Ella's planning: ...", made when a
  conversation closes) made since and not expired. "Since" is the user's mark for the digest job (when their
  last digest request was queued), or their ``created_at`` when they never had one.
* The model sees what could ground a message, each line with its id: Ella's unexpired planning thoughts, the
  user's open follow-up facts, the last seven days of self-log entries that mention the user (the self-log's
  second use), the latest story chapter, and the relationship arc's stage and what to be mindful of (the arc
  shapes the judgement: a new acquaintance is not written to as an old friend). The ids offered go into the
  request's context, the same context the kind's validator and the handler read.
* An answer grounds itself in those ids or it is nothing. ``ella.llm.kinds.DigestAnswer`` drops every cited id
  that was not offered (a partly invented answer keeps its real grounds), and refuses an answer that wants to
  say something but cites nothing real (the batch item is then a fail-safe: counted, nothing stored).
  ``read_answer`` applies the same filter again, so a handler driven any other way can never store an
  ungrounded candidate either.
* What is kept becomes at most one ``digest`` notification candidate a day (``dedupe_key``), dead at the end of
  the user's local day (``fresh_until``), and its text passes the outbound guard: a body that fires is kept as
  a ``skipped`` candidate with the rule named, as a follow-up's is. Sending it is the dispatcher's, under the
  cadence rules.
* Nothing looks forward to an event the user said is over (``ella.event_over``): a plan that does is not offered
  (``fresh_plans``), and an answer that does, or cites a plan that does now, is kept as a ``skipped`` candidate
  with the reason (``stale_reason``), checked against the ledger as it is when the answer comes back (a batch
  answers hours later). The dispatcher checks once more when it sends.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol
from zoneinfo import ZoneInfo

from ella import event_over
from ella.event_over import KnownEvents, looks_forward
from ella.guard import Verdict
from ella.notifications.followups import NewCandidate, describe, guard_reason
from ella.notifications.policy import Kind, Status

SELF_LOG_DAYS = timedelta(days=7)
MAX_PLANS = 5  # the newest unexpired planning thoughts shown (oldest first)
MAX_FACTS = 5  # the open follow-up facts shown, those whose window ends soonest
MAX_SELF_LOG = 10  # the newest self-log entries about the user shown (oldest first)
PLAN_PREFIX = "For Ella's planning: "
DEDUPE_PREFIX = "digest:"
CITE_KINDS = ("facts", "self_log", "thoughts")


@dataclass(frozen=True)
class OpenFact:
    """A follow-up fact of the user (active, its window not closed): ``fact`` is ``followups.describe``'s line."""

    id: int
    fact: str
    topic: str
    predicate: str
    recorded_at: datetime
    followup_after: datetime
    followup_until: datetime


@dataclass(frozen=True)
class Plan:
    """A planning thought of Ella's about the user (a memory node, ``plan:<conversation>``), not expired."""

    id: int
    text: str
    created_at: datetime


@dataclass(frozen=True)
class Said:
    """A self-log entry that mentions the user: what Ella said about her own life to them."""

    id: int
    content: str
    said_at: datetime


class ChapterLike(Protocol):
    """The user's latest story chapter (weekly) as the digest reads it (``ella.arcs.Chapter`` is one)."""

    @property
    def title(self) -> str: ...
    @property
    def summary(self) -> str: ...


class ArcLike(Protocol):
    """The relationship arc (monthly) as the digest reads it (``ella.arcs.Arc`` is one): its stage and what Ella
    should be mindful of."""

    @property
    def stage(self) -> str: ...
    @property
    def mindful_of(self) -> str: ...


def open_fact(row: Any) -> OpenFact:
    """A loaded follow-up fact as the digest reads it (the query only returns rows with a window)."""
    assert row.followup_after is not None and row.followup_until is not None
    return OpenFact(
        id=row.id,
        fact=describe(row),
        topic=row.object,
        predicate=row.predicate,
        recorded_at=row.recorded_at,
        followup_after=row.followup_after,
        followup_until=row.followup_until,
    )


def plan_text(description: str) -> str:
    """A planning thought's description without the "For Ella's planning: " it is stored with."""
    return description.removeprefix(PLAN_PREFIX).strip()


def fresh_plans(plans: Iterable[Plan], known: KnownEvents) -> list[Plan]:
    """The plans that do not look forward to an event the user said is over (``known``: the ledger now)."""
    return [p for p in plans if looks_forward(p.text, known) is None]


def stale_reason(text: str, thoughts: Iterable[str], known: KnownEvents) -> str | None:
    """Why an answer must not be sent: its text, or a plan it cites, looks forward to an event that is over."""
    return event_over.stale_reason([text, *thoughts], known)


# --- who gets a request -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Activity:
    """What is new for one user, as loaded for a chunk: the newest of each kind (None: none at all)."""

    since: datetime
    last_turn_at: datetime | None = None
    facts: Sequence[OpenFact] = ()
    plans: Sequence[Plan] = ()


def since_of(mark: datetime | None, created_at: datetime) -> datetime:
    """Since when "new" counts: the user's last digest request, else their first sight."""
    return mark if mark is not None else created_at


def is_active(activity: Activity) -> bool:
    """Something new since the last digest: a turn received, a follow-up fact recorded, a plan made."""
    since = activity.since
    return (
        (activity.last_turn_at is not None and activity.last_turn_at > since)
        or any(f.recorded_at > since for f in activity.facts)
        or any(p.created_at > since for p in activity.plans)
    )


# --- the request ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DigestInput:
    """Everything one user's digest request is built from."""

    user_id: str
    zone: str
    day: str  # the period's label: the user's local day, ``2026-11-30``
    fresh_until: datetime  # the end of that local day, UTC
    plans: Sequence[Plan] = ()
    facts: Sequence[OpenFact] = ()
    said: Sequence[Said] = ()
    chapter: ChapterLike | None = None
    arc: ArcLike | None = None


def shown(inp: DigestInput) -> tuple[list[OpenFact], list[Plan], list[Said]]:
    """What the model is shown (and so what may be cited): the bounded, ordered selections of each kind."""
    facts = sorted(inp.facts, key=lambda f: (f.followup_until, f.id))[:MAX_FACTS]
    plans = sorted(inp.plans, key=lambda p: (p.created_at, p.id))[-MAX_PLANS:]
    said = sorted(inp.said, key=lambda s: (s.said_at, s.id))[-MAX_SELF_LOG:]
    return facts, plans, said


def _when(fact: OpenFact, now: datetime, zone: ZoneInfo) -> str:
    """Whether the event is still ahead or has happened (the window opens the day after it)."""
    if now < fact.followup_after:
        day = (fact.followup_after - timedelta(days=1)).astimezone(zone)
        return f"coming up ({day:%A %d %B})"
    return "has happened; ask how it went"


def variables(inp: DigestInput, now: datetime, zone: ZoneInfo) -> dict[str, Any]:
    """The ``digest`` template's variables: each groundable line carries its id; the arc and chapter as text."""
    facts, plans, said = shown(inp)
    today = now.astimezone(zone)
    chapter = f"{inp.chapter.title}: {inp.chapter.summary}" if inp.chapter is not None else "(none yet)"
    return {
        "name": inp.user_id,
        "today": f"{inp.day} ({today:%A})",
        "facts": [
            {
                "id": f.id,
                "fact": f.fact,
                "topic": f.topic,
                "when": _when(f, now, zone),
                "upcoming": now < f.followup_after,
            }
            for f in facts
        ],
        "plans": [{"id": p.id, "plan": p.text, "made": f"{p.created_at.astimezone(zone):%Y-%m-%d}"} for p in plans],
        "self_log": [{"id": s.id, "said": s.content, "on": f"{s.said_at.astimezone(zone):%Y-%m-%d}"} for s in said],
        "chapter": chapter,
        "arc_stage": inp.arc.stage if inp.arc is not None else "(not known yet: assume a friendly acquaintance)",
        "arc_mindful_of": inp.arc.mindful_of if inp.arc is not None else "(nothing noted)",
    }


def context(inp: DigestInput) -> dict[str, Any]:
    """The request's context: the ids offered (the only ones an answer may cite) and when the day ends."""
    facts, plans, said = shown(inp)
    return {
        "facts": [f.id for f in facts],
        "self_log": [s.id for s in said],
        "thoughts": [p.id for p in plans],
        "day": inp.day,
        "zone": inp.zone,
        "fresh_until": inp.fresh_until.isoformat(),
    }


# --- the answer -----------------------------------------------------------------------------------------------


def offered(ctx: Mapping[str, Any]) -> dict[str, set[int]]:
    """The ids the request offered, by kind (``facts``, ``self_log``, ``thoughts``)."""
    return {kind: {int(i) for i in ctx.get(kind, []) if isinstance(i, int)} for kind in CITE_KINDS}


def real_cites(cites: Mapping[str, Iterable[Any]], ctx: Mapping[str, Any]) -> dict[str, list[int]]:
    """The cited ids that were offered, by kind, sorted and distinct; anything else is dropped."""
    allowed = offered(ctx)
    kept: dict[str, list[int]] = {}
    for kind in CITE_KINDS:
        ids = {i for i in cites.get(kind, []) if isinstance(i, int) and not isinstance(i, bool)}
        kept[kind] = sorted(ids & allowed[kind])
    return kept


def cites_anything(cites: Mapping[str, Sequence[int]]) -> bool:
    return any(cites.get(kind) for kind in CITE_KINDS)


# Why nothing was stored for an answer (the handler's log and counts).
SAID_NOTHING = "said_nothing"
CITES_NOTHING_REAL = "cites_nothing_real"
DAY_OVER = "day_over"


@dataclass(frozen=True)
class Reading:
    """An answer read against its request: the text and the real cites to store, or why nothing is stored."""

    text: str = ""
    cites: dict[str, list[int]] = field(default_factory=dict)
    discarded: str | None = None


def read_answer(
    say: bool, text: str, cites: Mapping[str, Iterable[Any]], ctx: Mapping[str, Any], now: datetime
) -> Reading:
    """Keep an answer only if it says something, cites something that was offered, and its day is not over."""
    if not say or not text.strip():
        return Reading(discarded=SAID_NOTHING)
    kept = real_cites(cites, ctx)
    if not cites_anything(kept):
        return Reading(discarded=CITES_NOTHING_REAL)
    if now >= fresh_until_of(ctx):
        return Reading(discarded=DAY_OVER)
    return Reading(text=text.strip(), cites=kept)


def fresh_until_of(ctx: Mapping[str, Any]) -> datetime:
    return datetime.fromisoformat(str(ctx["fresh_until"]))


def dedupe_key(user_id: str, day: str) -> str:
    """One digest per user and local day, ever: a re-sent request or a replayed result finds it made."""
    return f"{DEDUPE_PREFIX}{user_id}:{day}"


def candidate(
    user_id: str, reading: Reading, ctx: Mapping[str, Any], verdict: Verdict, now: datetime, stale: str | None = None
) -> NewCandidate:
    """The ``digest`` candidate for a kept answer, with the outbound guard's verdict on its text; ``stale`` (why it
    looks forward to an event that is over, ``stale_reason``) keeps it ``skipped`` as a guard fire does."""
    if reading.discarded is not None:
        raise ValueError(f"a discarded answer ({reading.discarded}) makes no candidate")
    held = guard_reason(verdict) or stale
    return NewCandidate(
        user_id=user_id,
        kind=Kind.DIGEST,
        body=reading.text,
        fact_ids=tuple(reading.cites["facts"]),
        self_log_ids=tuple(reading.cites["self_log"]),
        thought_ids=tuple(reading.cites["thoughts"]),
        fresh_until=fresh_until_of(ctx),
        not_before=now,
        dedupe_key=dedupe_key(user_id, str(ctx["day"])),
        status=Status.CANDIDATE if held is None else Status.SKIPPED,
        reason=held,
    )

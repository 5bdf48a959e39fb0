"""Follow-ups: which live facts about the user Ella asks about, and what a candidate made from one holds.

Why these rules (addendum, section 5, the "how did the interview go?" loop): a follow-up is worth sending only
about something the user told Ella that has a date, asked after it happened and before it is stale. So a fact
is followed up when it is

- live (status ``active``: a fact superseded or retired since, "the interview moved", is not asked about);
- about the user (subject ``user`` or ``user.*``: the user's sister's wedding, not Ella's door colour);
- of a tier a user's own event can have. The seed filtered on tier ``observed``/``canon``, which can never
  match: extraction stores what the user says about themselves as ``user_claim`` (or ``inferred``). What the
  seed means is "a fact we hold, not a rumour", so those four tiers pass and ``rumored`` does not;
- inside its window (``followup_after <= now < followup_until``): the window's end is the candidate's hard
  expiry, so a late pass can never make a stale one.

The body is written by the model (``NotificationBody``, digest tier) from the fact and the last seven days of
Ella's self-log entries about the user (the seed's second self-log use), and every body passes the outbound
guard before it is stored: a body that fires is kept as a ``skipped`` candidate with the rule named, so an
auditor sees what was held back and why. A fail-safe body is not Ella's words and makes no candidate at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol, TypeVar
from zoneinfo import ZoneInfo

from ella.guard import Category, Verdict
from ella.ledger.facts import StoredFact
from ella.ledger.rules import Status as FactStatus
from ella.ledger.rules import Tier
from ella.notifications.policy import Kind, Status
from ella.provenance import Provenance

FOLLOWUP_TIERS = frozenset({Tier.USER_CLAIM.value, Tier.INFERRED.value, Tier.OBSERVED.value, Tier.CANON.value})
USER_SUBJECT = "user"
SELF_LOG_DAYS = timedelta(days=7)
DEDUPE_PREFIX = "followup:"
MAX_SELF_LOG = 10  # the most recent entries about the user given to the model (and cited in ``based_on``)


FollowupFact = StoredFact  # what the follow-up rules read


class SelfLogLike(Protocol):
    @property
    def id(self) -> int: ...
    @property
    def content(self) -> str: ...
    @property
    def said_at(self) -> datetime: ...


E = TypeVar("E", bound=SelfLogLike)


@dataclass(frozen=True)
class NewCandidate:
    """A notification candidate before it is stored (``models.notifications.add_candidate`` stores it once)."""

    user_id: str
    kind: Kind
    body: str
    fact_ids: tuple[int, ...]
    self_log_ids: tuple[int, ...]
    fresh_until: datetime
    not_before: datetime
    dedupe_key: str
    status: Status = Status.CANDIDATE
    reason: str | None = None
    thought_ids: tuple[int, ...] = ()  # memory nodes (a digest's planning thoughts); none for a follow-up
    made_by: Provenance | None = None  # what wrote the body (ella.provenance): the call, or the generic rule


def about_user(subject: str) -> bool:
    return subject == USER_SUBJECT or subject.startswith(USER_SUBJECT + ".")


def window_open(fact: FollowupFact, now: datetime) -> bool:
    after, until = fact.followup_after, fact.followup_until
    return after is not None and until is not None and after <= now < until


def wants_followup(fact: FollowupFact, now: datetime) -> bool:
    """Whether ``fact`` is followed up at ``now`` (the query asks the same; this is the rule, in one place)."""
    return (
        fact.status == FactStatus.ACTIVE.value
        and fact.tier in FOLLOWUP_TIERS
        and about_user(fact.subject)
        and window_open(fact, now)
    )


def dedupe_key(fact_id: int) -> str:
    """One follow-up per fact, ever: a second pass, a retry or a second beat finds it made."""
    return f"{DEDUPE_PREFIX}{fact_id}"


def self_log_since(now: datetime) -> datetime:
    return now - SELF_LOG_DAYS


def grounding(entries: Sequence[E]) -> list[E]:
    """The self-log entries given to the model: the most recent ``MAX_SELF_LOG``, oldest first."""
    ordered = sorted(entries, key=lambda e: (e.said_at, e.id))
    return ordered[-MAX_SELF_LOG:]


def describe(fact: FollowupFact) -> str:
    """The fact as a short line for the prompt: ``user has upcoming: interview``."""
    who = "the user" if fact.subject == USER_SUBJECT else f"the user's {fact.subject[len(USER_SUBJECT) + 1 :]}"
    return f"{who} {fact.predicate.replace('_', ' ')}: {fact.object}"


def body_variables(name: str, fact: FollowupFact, zone: ZoneInfo, now: datetime) -> dict[str, str]:
    """The ``notification_body`` template's variables for a follow-up on ``fact``."""
    today = now.astimezone(zone)
    reason = "a follow-up on something they told you"
    if fact.followup_after is not None:
        opened = fact.followup_after.astimezone(zone)
        reason = f"it was due by {opened - timedelta(days=1):%A %d %B}, so it has happened by now"
    return {
        "name": name,
        "event": describe(fact),
        "topic": fact.object,
        "predicate": fact.predicate,
        "today": f"{today:%Y-%m-%d} ({today:%A})",
        "reason": reason,
        "plan": f"Ask how it went ({fact.object}); do not assume the outcome.",
    }


def guard_reason(verdict: Verdict) -> str | None:
    """None when the outbound guard lets a body pass; else the reason a candidate is skipped."""
    if verdict.category == Category.OK:
        return None
    return f"outbound guard: {verdict.category} ({verdict.matched or 'no rule id'})"[:300]


def followup_candidate(
    fact: FollowupFact,
    body: str,
    entries: Sequence[SelfLogLike],
    verdict: Verdict,
    now: datetime,
    stale: str | None = None,
) -> NewCandidate:
    """The candidate for ``fact`` with the body the model wrote from ``entries`` and the guard's verdict on it;
    ``stale`` (the body looks forward to an event the user said is over, ``ella.event_over.stale_reason``) keeps it
    ``skipped`` as a guard fire does."""
    if fact.followup_until is None:
        raise ValueError(f"fact {fact.id} has no follow-up window")
    reason = guard_reason(verdict) or stale
    return NewCandidate(
        user_id=fact.user_id,
        kind=Kind.FOLLOWUP,
        body=body,
        fact_ids=(fact.id,),
        self_log_ids=tuple(sorted(e.id for e in entries)),
        fresh_until=fact.followup_until,
        not_before=now,
        dedupe_key=dedupe_key(fact.id),
        status=Status.CANDIDATE if reason is None else Status.SKIPPED,
        reason=reason,
    )

"""Where a notification is decided: ``should_send``, the seed's cadence rules and the ones it left out.

Why these rules (addendum, section 5): a notification that brings up a stale event breaks trust at once, and
daily notifications stop being gifts and start being taxes. So, in the order they are checked:

1. only a candidate (not one already sent, skipped or expired);
2. never after ``fresh_until`` (the hard expiry: the candidate expires);
3. never to a user who turned notifications off (the candidate is skipped);
4. never while the user is in a live conversation (Ella does not interrupt herself);
5. at least ``min_gap`` (2 days) since the last notification of any kind;
6. at most ``daily_cap`` (1) per local day of the user;
7. never inside do-not-disturb, in the user's time zone (windows may wrap midnight);
8. only inside the user's active hours, in the user's time zone.

Rules 4 to 8 hold a candidate back without dropping it: the decision says when to look again (``not_before``),
so a fresh candidate outside the active hours waits for the next window. Rules 2 and 3 end it. Whether its
grounds still hold (a fact superseded or retired since) is checked by the caller at send time, with the
facts in hand: see ``grounds_hold``. So is whether its words, or the plans it cites, look forward to an event the
user has said is over since it was made (``ella.event_over``; the caller passes the reason in): such a candidate
ends ``skipped`` (``event_over``), as one whose grounds went does.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from enum import StrEnum
from zoneinfo import ZoneInfo


class Status(StrEnum):
    CANDIDATE = "candidate"
    SENT = "sent"
    SKIPPED = "skipped"
    EXPIRED = "expired"


class Kind(StrEnum):
    FOLLOWUP = "followup"
    DIGEST = "digest"
    GENERIC = "generic"


class Hold(StrEnum):
    """Why a candidate is not sent now; the rule's name as operators see it (``ella notifications why``)."""

    NOT_A_CANDIDATE = "not_a_candidate"
    EXPIRED = "expired"
    NOTIFICATIONS_OFF = "notifications_off"
    IN_CONVERSATION = "in_conversation"
    TOO_SOON = "min_gap"
    DAILY_CAP = "daily_cap"
    DO_NOT_DISTURB = "do_not_disturb"
    OUTSIDE_ACTIVE_HOURS = "outside_active_hours"
    GROUNDS_GONE = "grounds_gone"
    EVENT_OVER = "event_over"


FINAL = {
    Hold.EXPIRED: Status.EXPIRED,
    Hold.NOTIFICATIONS_OFF: Status.SKIPPED,
    Hold.GROUNDS_GONE: Status.SKIPPED,
    Hold.EVENT_OVER: Status.SKIPPED,
}
MINUTES_PER_DAY = 24 * 60


@dataclass(frozen=True)
class Window:
    """Minutes after local midnight, ``start`` inclusive, ``end`` exclusive; wraps midnight when end < start.
    ``start == end`` is an empty window (no do-not-disturb; for active hours: never active)."""

    start: int
    end: int

    def __post_init__(self) -> None:
        if not (0 <= self.start < MINUTES_PER_DAY and 0 <= self.end < MINUTES_PER_DAY):
            raise ValueError(f"window minutes must be within a day: {self.start}-{self.end}")

    def contains(self, minute: int) -> bool:
        if self.start <= self.end:
            return self.start <= minute < self.end
        return minute >= self.start or minute < self.end

    def next_edge(self, local: datetime, *, entering: bool) -> datetime:
        """The next local time (after ``local``) at which the window starts (``entering``) or ends."""
        edge = self.start if entering else self.end
        candidate = datetime.combine(local.date(), time(edge // 60, edge % 60), tzinfo=local.tzinfo)
        if candidate <= local:
            candidate = datetime.combine(
                local.date() + timedelta(days=1), time(edge // 60, edge % 60), tzinfo=local.tzinfo
            )
        return candidate


@dataclass(frozen=True)
class Rules:
    min_gap: timedelta = timedelta(days=2)
    daily_cap: int = 1


@dataclass(frozen=True)
class Recipient:
    """The user as the cadence rules see them."""

    zone: ZoneInfo
    active_hours: Window
    do_not_disturb: Window | None
    notifications_on: bool = True
    last_notified_at: datetime | None = None
    sent_today: int = 0  # notifications sent since the user's local midnight
    conversation_live_until: datetime | None = None  # the open conversation's close due time


@dataclass(frozen=True)
class CandidateState:
    status: str
    fresh_until: datetime


@dataclass(frozen=True)
class Decision:
    send: bool
    hold: Hold | None = None
    not_before: datetime | None = None  # when a held candidate may pass again; None when the hold is final

    @property
    def final_status(self) -> Status | None:
        """The status a held candidate ends in, if the hold ends it (expired, skipped)."""
        return FINAL.get(self.hold) if self.hold is not None else None


def local_minute(moment: datetime, zone: ZoneInfo) -> tuple[datetime, int]:
    local = moment.astimezone(zone)
    return local, local.hour * 60 + local.minute


def should_send(candidate: CandidateState, user: Recipient, now: datetime, rules: Rules = Rules()) -> Decision:
    """Whether ``candidate`` may go to ``user`` at ``now``; if not, the first rule that holds it and when to
    look again. ``now`` must be aware; the user's windows are read in the user's zone (DST included)."""
    if candidate.status != Status.CANDIDATE:
        return Decision(False, Hold.NOT_A_CANDIDATE)
    if now >= candidate.fresh_until:
        return Decision(False, Hold.EXPIRED)
    if not user.notifications_on:
        return Decision(False, Hold.NOTIFICATIONS_OFF)
    if user.conversation_live_until is not None and now < user.conversation_live_until:
        return Decision(False, Hold.IN_CONVERSATION, user.conversation_live_until)
    if user.last_notified_at is not None and now - user.last_notified_at < rules.min_gap:
        return Decision(False, Hold.TOO_SOON, user.last_notified_at + rules.min_gap)
    local, minute = local_minute(now, user.zone)
    if user.sent_today >= rules.daily_cap:
        tomorrow = datetime.combine(local.date() + timedelta(days=1), time(0, 0), tzinfo=user.zone)
        return Decision(False, Hold.DAILY_CAP, tomorrow)
    dnd = user.do_not_disturb
    if dnd is not None and dnd.contains(minute):  # an empty window (start == end) contains no minute
        return Decision(False, Hold.DO_NOT_DISTURB, dnd.next_edge(local, entering=False))
    if not user.active_hours.contains(minute):
        if user.active_hours.start == user.active_hours.end:
            return Decision(False, Hold.OUTSIDE_ACTIVE_HOURS, candidate.fresh_until)
        return Decision(False, Hold.OUTSIDE_ACTIVE_HOURS, user.active_hours.next_edge(local, entering=True))
    return Decision(True)


def recipient(
    *,
    zone: str,
    active: tuple[int, int],
    do_not_disturb: tuple[int, int],
    notifications_on: bool,
    last_notified_at: datetime | None,
    now: datetime,
    sent_at: Iterable[datetime] = (),
    conversation_close_due_at: datetime | None = None,
) -> Recipient:
    """The user as the rules see them, from the profile's plain values (windows in minutes after local midnight;
    ``start == end`` means no do-not-disturb). ``sent_at``: when their recent notifications went out (the last
    day is enough); those since the user's local midnight count towards the daily cap, and so does
    ``last_notified_at`` when nothing else is known. An open conversation is live only until its close due time."""
    tz = ZoneInfo(zone)
    midnight = datetime.combine(now.astimezone(tz).date(), time(0, 0), tzinfo=tz)
    sent_today = sum(1 for at in sent_at if midnight <= at <= now)
    if sent_today == 0 and last_notified_at is not None and midnight <= last_notified_at <= now:
        sent_today = 1
    live = (
        conversation_close_due_at if conversation_close_due_at is not None and conversation_close_due_at > now else None
    )
    return Recipient(
        zone=tz,
        active_hours=Window(*active),
        do_not_disturb=None if do_not_disturb[0] == do_not_disturb[1] else Window(*do_not_disturb),
        notifications_on=notifications_on,
        last_notified_at=last_notified_at,
        sent_today=sent_today,
        conversation_live_until=live,
    )


def grounds_hold(based_on_facts: Collection[int], live_fact_ids: Collection[int]) -> bool:
    """A candidate grounded on facts may be sent only while every one of them is still live (not superseded or
    retired since it was made: "the interview moved to next week" kills "how did the interview go?")."""
    return all(fact_id in live_fact_ids for fact_id in based_on_facts)


def decide(
    candidate: CandidateState,
    user: Recipient,
    now: datetime,
    based_on_facts: Collection[int],
    live_fact_ids: Collection[int],
    rules: Rules = Rules(),
    event_over: str | None = None,
) -> Decision:
    """``should_send`` with the grounds checked at send time: a candidate that would be sent or would wait, but
    whose facts are no longer all live, ends ``skipped`` (``grounds_gone``) now rather than waiting to die, and so
    does one that looks forward to an event that is over (``event_over``: why, from ``ella.event_over``). A hold
    that already ends it (expired, notifications off) keeps its own reason."""
    decision = should_send(candidate, user, now, rules)
    if decision.hold in (Hold.NOT_A_CANDIDATE, Hold.EXPIRED, Hold.NOTIFICATIONS_OFF):
        return decision
    if not grounds_hold(based_on_facts, live_fact_ids):
        return Decision(False, Hold.GROUNDS_GONE)
    if event_over is not None:
        return Decision(False, Hold.EVENT_OVER)
    return decision


def reason_of(
    decision: Decision,
    based_on_facts: Collection[int] = (),
    live_fact_ids: Collection[int] = (),
    event_over: str | None = None,
) -> str:
    """The reason stored on a held candidate: the rule's name, for ``grounds_gone`` the facts that went, for
    ``event_over`` the event's fact and why it is over (``ella.event_over.reason``)."""
    if decision.hold is None:
        return ""
    if decision.hold is Hold.EVENT_OVER and event_over:
        return event_over
    if decision.hold is Hold.GROUNDS_GONE:
        gone = sorted(set(based_on_facts) - set(live_fact_ids))
        return f"{decision.hold.value}: fact {', '.join(map(str, gone))} no longer live"
    return decision.hold.value


def generic_due(
    last_notified_at: datetime | None,
    fresh_candidates: Sequence[object],
    last_generic_at: datetime | None,
    now: datetime,
    quiet_for: timedelta = timedelta(days=7),
) -> bool:
    """A warm generic check-in only for a user with no fresh candidate and no notification for ``quiet_for``,
    at most once per ``quiet_for`` (the seed: "sent at most weekly, only to users with no fresh candidate")."""
    if fresh_candidates:
        return False
    if last_notified_at is not None and now - last_notified_at < quiet_for:
        return False
    return last_generic_at is None or now - last_generic_at >= quiet_for

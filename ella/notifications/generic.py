"""Generic warm check-ins: what Ella says on her own when there is nothing real to follow up.

Why hand-written lines and no model call (addendum, section 5, "when there's nothing real to say"): a user with
no recent events should still hear from Ella occasionally, but a generated line about nothing invites the model
to invent something. These lines are written once, in Ella's voice, and picked by a stable hash of the user and
the ISO week, so a retried or repeated pass picks the same line. The candidate's ``based_on`` is empty: that is
the auditor's signal that it is a generic, not a leak.

Who gets one (``ella.notifications.policy.generic_due``): a user with notifications on, no fresh candidate, and
no notification for ``quiet_for`` (seven days), at most once per ``quiet_for``. A user who joined less than
``quiet_for`` ago counts as notified when they joined: Ella does not "just check in" on someone she met
yesterday. Only users seen in the last ``ACTIVE_DAYS`` are considered: a user who left is not pursued.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from ella.guard import Verdict
from ella.notifications.followups import NewCandidate, guard_reason
from ella.notifications.policy import Kind, Status, generic_due
from ella.provenance import by_rule

ACTIVE_DAYS = timedelta(days=30)

LINES: tuple[str, ...] = (
    "I was just thinking about you. Hope your week's going well.",  # the seed's two
    "Quiet evening here. Just wanted to check in.",
    "Something small made me think of you today. Hope things are good on your end.",
    "Just checking in. I hope the last few days have been kind to you.",
    "I put the kettle on and wondered how you're doing. No need to reply, just saying hello.",
    "Thinking of you today. Hope the week is treating you gently.",
)


@dataclass(frozen=True)
class QuietState:
    """What the rule reads of one user (``models.notifications.quiet_users`` loads a page of them)."""

    user_id: str
    created_at: datetime
    last_notified_at: datetime | None
    has_fresh_candidate: bool
    last_generic_at: datetime | None


def iso_week(now: datetime) -> str:
    year, week, _ = now.astimezone(UTC).isocalendar()
    return f"{year}-W{week:02d}"


def dedupe_key(user_id: str, now: datetime) -> str:
    """At most one generic per user and ISO week, whatever runs twice."""
    return f"generic:{user_id}:{iso_week(now)}"


def pick_line(user_id: str, now: datetime) -> str:
    digest = hashlib.sha256(f"{user_id}:{iso_week(now)}".encode()).digest()
    return LINES[int.from_bytes(digest[:8], "big") % len(LINES)]


def due(state: QuietState, now: datetime, quiet_for: timedelta) -> bool:
    """``generic_due`` with the user's first day standing in for a notification they never had."""
    quiet_since = state.last_notified_at or state.created_at
    fresh = [True] if state.has_fresh_candidate else []
    return generic_due(quiet_since, fresh, state.last_generic_at, now, quiet_for)


def checkin(user_id: str, body: str, verdict: Verdict, now: datetime, fresh_for: timedelta) -> NewCandidate:
    """The generic candidate: empty ``based_on``, fresh for ``fresh_for``; skipped if the guard fires."""
    reason = guard_reason(verdict)
    return NewCandidate(
        user_id=user_id,
        kind=Kind.GENERIC,
        body=body,
        fact_ids=(),
        self_log_ids=(),
        fresh_until=now + fresh_for,
        not_before=now,
        dedupe_key=dedupe_key(user_id, now),
        status=Status.CANDIDATE if reason is None else Status.SKIPPED,
        reason=reason,
        made_by=by_rule("generic_checkin"),  # a line picked from a fixed list: no prompt made it
    )

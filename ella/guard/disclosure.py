"""When Ella says she is an AI, and when a minor is reminded to take a break.

New York GBL section 1702: a notice that the companion is not human at the start of a conversation and at
least every three hours of a continuing one. California SB 243: for a user known to be a minor, a break
reminder at least every three hours. A new conversation gets the notice at most once a day (a user who
opens five short chats in an evening is told once); a continuing one gets it again once three hours passed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

AI_NOTICE = "(A quick reminder: I'm Ella, an AI companion — not a person.)"
BREAK_REMINDER = "(You've been chatting for a while — this might be a good moment to take a break.)"


@dataclass(frozen=True)
class DisclosurePolicy:
    enabled: bool = True
    start_interval: timedelta = timedelta(days=1)
    continuing_interval: timedelta = timedelta(hours=3)
    minor_break_interval: timedelta = timedelta(hours=3)


def ai_notice_due(policy: DisclosurePolicy, now: datetime, starting: bool, last: datetime | None) -> bool:
    if not policy.enabled:
        return False
    if last is None:
        return True
    return now - last >= (policy.start_interval if starting else policy.continuing_interval)


def break_due(
    policy: DisclosurePolicy, now: datetime, is_minor: bool, chatting_since: datetime, last: datetime | None
) -> bool:
    """A minor who has been in this conversation for the interval, and not reminded within it."""
    if not policy.enabled or not is_minor:
        return False
    since = max(chatting_since, last) if last else chatting_since
    return now - since >= policy.minor_break_interval


def with_notices(reply: str, ai_notice: bool, break_reminder: bool) -> str:
    parts = [AI_NOTICE] if ai_notice else []
    parts.append(reply)
    if break_reminder:
        parts.append(BREAK_REMINDER)
    return " ".join(parts)

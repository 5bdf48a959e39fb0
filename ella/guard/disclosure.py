"""When Ella says she is an AI, and when a minor is reminded to take a break.

New York GBL section 1702: a notice that the companion is not human at the beginning of any interaction and
at least every three hours of a continuing one. So the first reply of every conversation starts with the
notice, however recently the user was last told (a returning user's new conversation is a new interaction:
five short chats in an evening are told five times), and a continuing conversation is told again once three
hours passed since the last notice. California SB 243: for a user known to be a minor, a break reminder at
least every three hours of a conversation.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

AI_NOTICE = "(A quick reminder: I'm Ella, an AI companion — not a person.)"
BREAK_REMINDER = "(You've been chatting for a while — this might be a good moment to take a break.)"


@dataclass(frozen=True)
class DisclosurePolicy:
    enabled: bool = True
    continuing_interval: timedelta = timedelta(hours=3)
    minor_break_interval: timedelta = timedelta(hours=3)


def ai_notice_due(policy: DisclosurePolicy, now: datetime, starting: bool, last: datetime | None) -> bool:
    """Always at the start of a conversation; in a continuing one, once ``continuing_interval`` passed."""
    if not policy.enabled:
        return False
    if starting or last is None:
        return True
    return now - last >= policy.continuing_interval


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

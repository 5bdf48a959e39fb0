"""The user's profile as the gateway sends it, turned into the columns of the user's row.

Why here: the gateway speaks in local clock windows (``"22:00-07:30"``) and names (``"Europe/London"``,
``"en_GB"``); the database stores a window as minutes after local midnight. The conversion and its rules are
plain Python, so the task (``tasks/profile.py``) only loads, calls and stores.

What each field drives, and where it is read:
- ``timezone``: the world clock's local day (``ella.ledger.world_clock``), the follow-up window of an
  extracted dated event (``ella.ledger.extraction``), the sending windows;
- ``locale``: its country part picks the crisis line (``ella.guard.replies.crisis_referral``); a locale with
  no country part (``"en"``) gets the international directory;
- ``is_minor``: the break reminder every three hours of a conversation (``ella.guard.disclosure``);
- ``do_not_disturb``, ``active_hours``, ``notifications``: whether and when Ella may reach out
  (``ella.notifications.policy``).

A window may wrap midnight (``"22:00-07:00"``). Its start is inclusive and its end exclusive. Equal ends would be
an empty window, which the gateway cannot mean for active hours and should say as ``null`` for
do-not-disturb, so both are refused by the contract (``ella.contract.ProfilePayload``).

The contract validates with this module's patterns and windows, so this module does not import the contract back:
``profile_columns`` takes any value with a profile's fields (``Profile``), as ``ProfilePayload`` has them.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Protocol
from zoneinfo import available_timezones

WINDOW_PATTERN = r"^([01][0-9]|2[0-3]):[0-5][0-9]-([01][0-9]|2[0-3]):[0-5][0-9]$"
LOCALE_PATTERN = r"^[a-z]{2,3}(_[A-Z]{2})?$"
NO_WINDOW = (0, 0)  # do-not-disturb ``null``: an empty window (``Window(start == end)`` contains no minute)
_WINDOW = re.compile(WINDOW_PATTERN)


def window_minutes(window: str) -> tuple[int, int]:
    """``"22:00-07:30"`` -> ``(1320, 450)``: start and end as minutes after local midnight."""
    match = _WINDOW.match(window)
    if match is None:
        raise ValueError(f"expected HH:MM-HH:MM (00:00-23:59), got {window!r}")
    start, end = window.split("-")
    return _minute(start), _minute(end)


def _minute(hhmm: str) -> int:
    hours, minutes = hhmm.split(":")
    return int(hours) * 60 + int(minutes)


@lru_cache(maxsize=1)
def iana_zones() -> frozenset[str]:
    """Every IANA zone name this machine knows (system tz database or the ``tzdata`` package).

    ``localtime`` is the host's own zone, a file some systems keep beside the database, not a name in it.
    """
    return frozenset(available_timezones()) - {"localtime", "posixrules"}


class Profile(Protocol):
    """The fields of a validated profile (``ella.contract.ProfilePayload``) that set the user's columns."""

    @property
    def timezone(self) -> str: ...
    @property
    def locale(self) -> str: ...
    @property
    def is_minor(self) -> bool: ...
    @property
    def do_not_disturb(self) -> str | None: ...
    @property
    def active_hours(self) -> str: ...
    @property
    def notifications(self) -> bool: ...


def profile_columns(payload: Profile) -> dict[str, Any]:
    """The ``users`` columns that a profile sets (all of them: the profile is a full snapshot)."""
    dnd = window_minutes(payload.do_not_disturb) if payload.do_not_disturb is not None else NO_WINDOW
    active = window_minutes(payload.active_hours)
    return {
        "timezone": payload.timezone,
        "locale": payload.locale,
        "is_minor": payload.is_minor,
        "dnd_start_minute": dnd[0],
        "dnd_end_minute": dnd[1],
        "active_start_minute": active[0],
        "active_end_minute": active[1],
        "notifications_enabled": payload.notifications,
    }

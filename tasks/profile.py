"""``ella.update_profile``: the gateway's snapshot of a user's profile, stored unless a newer one is.

Order of work: validate (``ella.contract.parse_profile``; a malformed payload is dead-lettered with the reason,
never retried), convert to columns (``ella.profile.profile_columns``), store in one statement
(``models.user.apply_profile``: a new user is created, an older snapshot never overwrites a newer one).
The log names the outcome and the snapshot's time, never the profile itself (``is_minor``, where the user
lives).
"""

from __future__ import annotations

import logging
from typing import Any

from ella.contract import parse_profile
from ella.profile import profile_columns
from models.user import apply_profile
from workers import events
from workers.app import app
from workers.db import session_scope
from workers.logs import user_scope
from workers.reliability import ReliableTask
from workers.reply_service import new_user_defaults
from workers.routing import TaskName
from workers.settings import get_settings

log = logging.getLogger(__name__)


@app.task(name=TaskName.UPDATE_PROFILE, base=ReliableTask, bind=True)
def update_profile(self: ReliableTask, *args: Any, **kwargs: Any) -> str:
    """Gateway contract: kwargs ``{user_id, updated_at, timezone, locale, is_minor, do_not_disturb,
    active_hours, notifications}``; returns ``"applied"`` or ``"stale"`` (a newer or the same one is stored)."""
    payload = parse_profile(args, kwargs)
    events.refuse_if_forgotten(self, payload.user_id)  # an erased user's late profile creates nobody
    with user_scope(payload.user_id):
        with session_scope() as session:
            applied = apply_profile(
                session,
                payload.user_id,
                profile_columns(payload),
                payload.updated_at,
                new_user_defaults(get_settings()),
            )
        outcome = "applied" if applied else "stale"
        log.info("profile of %s: %s", payload.updated_at.isoformat(), outcome)
    return outcome

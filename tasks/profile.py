"""``ella.update_profile``: the gateway's snapshot of a user's profile, stored unless a newer one is.

Order of work: validate (``ella.contract.parse_profile``; a malformed payload is dead-lettered with the reason,
never retried), convert to columns (``ella.profile.profile_columns``), store in one statement
(``models.user.apply_profile``: a new user is created, an older snapshot never overwrites a newer one).
The log names the outcome and the snapshot's time, never the profile itself (``is_minor``, where the user
lives).

The gateway is told: one outbox stream entry of kind ``ack`` (``ella.rejections.ack_entry``), ``task``
``ella.update_profile``, ``code`` ``applied`` or ``stale``, ``user_id``, and ``in_reply_to`` the snapshot's
``updated_at`` exactly as sent (the gateway sends no request id with a profile: the snapshot's time is what
names it). Published once per Celery task id (its ``outbox_id`` is ``ack:ella.update_profile:<task id>``), so a
redelivery, which would find its own snapshot stored and say ``stale``, adds nothing. A refused profile (malformed,
an erased user) gets a ``rejected`` entry instead (``adapters.dead_letters``).
"""

from __future__ import annotations

import logging
from typing import Any

import redis

from adapters.db import session_scope
from adapters.outbox_stream import publish_once
from adapters.redis_conn import get_redis
from adapters.settings import get_settings
from adapters.turn_context import new_user_defaults
from ella.contract import parse_profile
from ella.profile import profile_columns
from ella.rejections import ack_entry, ack_outbox_id
from models.base import utcnow
from models.user import apply_profile
from workers import events
from workers.app import app
from workers.logs import user_scope
from workers.reliability import ReliableTask
from workers.routing import TaskName

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
        sent = kwargs.get("updated_at")
        updated_at = sent if isinstance(sent, str) else payload.updated_at.isoformat()
        ack = ack_entry(
            TaskName.UPDATE_PROFILE,
            outcome,
            user_id=payload.user_id,
            in_reply_to=updated_at,
            outbox_id=ack_outbox_id(TaskName.UPDATE_PROFILE, self.request.id, f"{payload.user_id}\0{updated_at}"),
            created_at=utcnow().isoformat(),
            task_id=self.request.id,
        )
        try:
            publish_once(get_redis(), ack)
        except redis.RedisError as exc:  # stored; the ack is lost, as a reply is while Redis is away
            log.warning("profile of %s: its ack was not published (Redis unreachable: %s)", updated_at, exc)
    return outcome

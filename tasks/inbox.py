"""``ella.resend_unanswered_messages``: the sweep that answers messages a fault left unanswered (see adapters.inbox).

Two looks, both idempotent (ingest dedups on the user's ``message_id`` in the database, and the outbox stream's
publish is once per record):
- early, ``inbox_recheck_after_s`` after a message was sent (then at doubling intervals): its reply is
  committed but unpublished (Redis was down when it was stored): publish it; or it is not stored and no worker
  holds it (its task waits out a retry countdown after a PostgreSQL outage, or the broker lost it): send it
  again, unless the inbound queue is backed up (then it is most likely still queued). If PostgreSQL is down the
  early look does nothing; the next run, seconds after it is back, does it.
- late, after the visibility timeout plus grace: send it again whatever holds it, counted; after
  ``inbox_max_resends`` such re-sends the message is dead-lettered.
"""

from __future__ import annotations

import logging
from typing import Any

import redis
from sqlalchemy.exc import OperationalError

from adapters import inbox
from adapters.db import autocommit_scope
from adapters.dead_letters import record_dead_letter
from adapters.publishing import publish
from adapters.redis_conn import get_redis
from adapters.settings import get_settings
from models.turns import reply_to
from workers import effects
from workers.app import app
from workers.reliability import ReliableTask
from workers.routing import TaskName, queue_for
from workers.sending import send_ingest

log = logging.getLogger(__name__)


def look_early(client: redis.Redis, key: str, kwargs: dict[str, Any], looks: int, queue_backed_up: bool) -> str:
    """What the early look did to one entry: published, resent, waiting or skipped."""
    user_id, message_id = kwargs.get("user_id"), kwargs.get("message_id")
    if not isinstance(user_id, str) or not isinstance(message_id, str):
        return "skipped"  # malformed: its delivery dead-letters it; the late look re-sends or drops it
    with autocommit_scope() as session:
        record = reply_to(session, user_id, message_id)
    if record is not None:
        publish(record)
        effects.send_owed_by(user_id, message_id)  # its memory and facts, if the turn's own delivery could not
        inbox.forget_entry(client, key)
        return "published"
    inbox.checked(client, key, looks)
    if queue_backed_up:
        return "waiting"
    send_ingest(kwargs)  # a message_id another user took is dead-lettered by its delivery, as the first was
    return "resent"


@app.task(name=TaskName.RESEND_UNANSWERED_MESSAGES, base=ReliableTask, bind=True)
def resend_unanswered_messages(self: ReliableTask) -> int:
    settings = get_settings()
    client = get_redis()
    done: dict[str, int] = {}
    backed_up = client.llen(queue_for(TaskName.INGEST_MESSAGE, settings)) > 0
    try:
        for key, kwargs, looks in inbox.due_checks(client):
            outcome = look_early(client, key, kwargs, looks, backed_up)
            done[outcome] = done.get(outcome, 0) + 1
    except OperationalError as exc:
        log.warning("database unreachable, early look postponed to the next run: %s", exc)
    resent = done.get("resent", 0)
    for key, kwargs, resends in inbox.overdue(client, settings.visibility_timeout_s + settings.inbox_resend_grace_s):
        if resends >= settings.inbox_max_resends:
            record_dead_letter(
                TaskName.INGEST_MESSAGE,
                None,
                f"never answered after {resends} re-sends; see earlier dead letters and worker logs",
                [],
                kwargs,
            )
            inbox.forget_entry(client, key)
            continue
        inbox.mark_resent(client, key)
        send_ingest(kwargs)
        resent += 1
    if resent or done.get("published"):
        log.warning("inbox sweep: %s; %d re-sent in all", done, resent)
    return resent + done.get("published", 0)

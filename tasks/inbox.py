"""``ella.resend_unanswered_messages``: the sweep that re-sends messages the broker lost (see workers.inbox)."""

from __future__ import annotations

import logging

from workers import inbox
from workers.app import app
from workers.dead_letters import record_dead_letter
from workers.gateway import send_ingest
from workers.redis_conn import get_redis
from workers.reliability import ReliableTask
from workers.routing import TaskName
from workers.settings import get_settings

log = logging.getLogger(__name__)


@app.task(name=TaskName.RESEND_UNANSWERED_MESSAGES, base=ReliableTask, bind=True)
def resend_unanswered_messages(self: ReliableTask) -> int:
    settings = get_settings()
    client = get_redis()
    resent = 0
    for message_id, kwargs, resends in inbox.overdue(
        client, settings.visibility_timeout_s + settings.inbox_resend_grace_s
    ):
        if resends >= settings.inbox_max_resends:
            record_dead_letter(
                TaskName.INGEST_MESSAGE,
                None,
                f"never answered after {resends} re-sends; see earlier dead letters and worker logs",
                [],
                kwargs,
            )
            inbox.forget(client, message_id)
            continue
        inbox.mark_resent(client, message_id)
        send_ingest(kwargs)
        resent += 1
    if resent:
        log.warning("re-sent %d unanswered messages", resent)
    return resent

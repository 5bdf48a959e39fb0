"""``ella.close_due_conversations``: the periodic sweep that closes conversations past their due time.

A due time in the database plus a sweep every minute replaces a 30-minute countdown, which Redis would
redeliver once the visibility timeout passed and which a worker restart would lose.
"""

from __future__ import annotations

import logging

from models.base import utcnow
from models.conversation import close_due
from workers.app import app
from workers.db import session_scope
from workers.reliability import ReliableTask
from workers.settings import get_settings

log = logging.getLogger(__name__)

CHUNK = 500


@app.task(name="ella.close_due_conversations", base=ReliableTask, bind=True)
def close_due_conversations(self: ReliableTask, max_chunks: int = 100) -> int:
    """Close in chunks of ``CHUNK`` rows, one transaction each, so a retry resumes where this one stopped."""
    total = 0
    now = utcnow()
    for _ in range(max_chunks):
        with session_scope() as session:
            closed = close_due(session, now, CHUNK)
        for conversation_id in closed:  # after the commit: the memo and planning thoughts
            app.send_task(
                "ella.close_conversation",
                kwargs={"conversation_id": conversation_id},
                queue=get_settings().queue_cognition,
            )
        total += len(closed)
        if len(closed) < CHUNK:
            break
    if total:
        log.info("closed %d inactive conversations", total)
    return total

"""``bench/ingest_throughput.py --without-reply``: the worker answers every message with one fixed reply.

Why: it measures what a turn costs without its reply (the guard on the way in and out, the reply's context and
the offline engine's writing): the opening read, storing the turn, the publish, the effects' sends and Celery's
delivery, as they are. The difference between the two runs is what the reply costs; the run itself is the floor no
reply can take the rate above. Loaded into the bench's worker by ``--include``; never in a deployed worker.
"""

from __future__ import annotations

import tasks.ingest
from ella.contract import IngestPayload
from ella.reply import OutgoingReply, ReplyOutcome
from models.turn_opening import TurnOpening

TEXT = "That sounds like a good day."


def fixed_answer(
    payload: IngestPayload, final_attempt: bool, *, synthetic: bool = False, opening: TurnOpening | None = None
) -> ReplyOutcome:
    """The same reply to every message, read from nothing: no guard, no context, no engine."""
    return ReplyOutcome(reply=OutgoingReply(text=TEXT))


tasks.ingest.answer = fixed_answer  # what ``ingest`` calls for the reply

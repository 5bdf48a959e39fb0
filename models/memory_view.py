"""What Ella holds about one user, as ``ella.memory.say`` reads it for a turn that asks about their memory.

Why its own loader: only such a turn needs it (a few in a thousand), so the reply's hot path loads none of it.
It reads the user's live facts with the day each was told (the source message's ``sent_at``, else when it was
recorded), her thoughts about them newest first (plans left out: a plan is what she means to do, not what she
holds; manipulation-held nodes left out, as from every prompt), what was said (event nodes, newest first, held
ones too: a forget must reach them), and the user's turn before this one. Every query is scoped to the user.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from sqlalchemy import and_, or_, select, union_all
from sqlalchemy.orm import Session

from ella.ledger.rules import USER_SUBJECT
from ella.memory.plans import PLAN_KEY_PREFIX
from ella.memory.say import HeldFact, HeldNode, MemoryView
from models.ledger import current, user_zone
from models.memory import MemoryNode, shown_to_model
from models.message import InboundMessage

THOUGHTS = 20
EVENTS = 2000


def memory_view(
    session: Session, user_id: str, message_id: str, sent_at: datetime, zone: ZoneInfo | None = None
) -> MemoryView:
    """What Ella holds about the user (``ella.memory.say``); ``zone``: the user's time zone when the caller read it
    (the turn's opening read), else one more query."""
    facts = current(session, user_id, USER_SUBJECT)
    sources = {f.source_message_id for f in facts if f.source_message_id}
    told = dict(
        session.execute(
            select(InboundMessage.message_id, InboundMessage.sent_at).where(
                InboundMessage.user_id == user_id, InboundMessage.message_id.in_(sources)
            )
        ).all()
    ) if sources else {}  # fmt: skip
    held = [
        HeldFact(
            f.id,
            f.subject,
            f.predicate,
            f.object,
            f.tier,
            told.get(f.source_message_id or "", f.recorded_at),
            f.source_message_id,
        )  # fmt: skip
        for f in facts
    ]
    # her thoughts and what was said, in one statement: each side newest first to its limit, only the columns a
    # memory view shows (not the vectors: up to EVENTS rows of them)
    columns = (MemoryNode.id, MemoryNode.node_type, MemoryNode.description, MemoryNode.created_at,
               MemoryNode.source_message_id)  # HeldNode's fields, in its order  # fmt: skip
    newest = (MemoryNode.created_at.desc(), MemoryNode.id.desc())
    not_plan = or_(MemoryNode.dedupe_key.is_(None), ~MemoryNode.dedupe_key.startswith(PLAN_KEY_PREFIX))
    thoughts = (
        select(*columns)
        .where(MemoryNode.user_id == user_id, MemoryNode.node_type == "thought", not_plan, shown_to_model())
        .order_by(*newest)
        .limit(THOUGHTS)
        .subquery()
    )
    events = (
        select(*columns)
        .where(MemoryNode.user_id == user_id, MemoryNode.node_type == "event")
        .order_by(*newest)
        .limit(EVENTS)
        .subquery()
    )
    nodes = [HeldNode(*row) for row in session.execute(union_all(select(thoughts), select(events)))]
    nodes.sort(key=lambda n: (n.created_at, n.id), reverse=True)  # a union keeps no order
    previous = session.scalar(
        select(InboundMessage.message_id)
        .where(
            InboundMessage.user_id == user_id,
            InboundMessage.message_id != message_id,
            and_(InboundMessage.sent_at <= sent_at),
        )
        .order_by(InboundMessage.sent_at.desc(), InboundMessage.id.desc())
        .limit(1)
    )
    return MemoryView(
        facts=held,
        thoughts=[n for n in nodes if n.node_type == "thought"],
        nodes=[n for n in nodes if n.node_type == "event"],
        previous_message_id=previous,
        zone=zone if zone is not None else user_zone(session, user_id),
    )

"""What the "no stale plan" checks read (``ella.event_over``): each user's events, over or live, and the plans a
notification cites. One query for a whole chunk or page of users, never one per user (the digest plans 100,000
users; the dispatcher pages through due candidates).
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime

from sqlalchemy import and_, or_, select
from sqlalchemy.orm import Session

from ella.event_over import HORIZON, NOTHING_KNOWN, RETIRED, UPCOMING, USER_SUBJECT, KnownEvents, known_events
from ella.ledger.rules import LIVE, subject_range
from models.ledger import WorldFact
from models.memory import MemoryNode


def events_known(session: Session, user_ids: Collection[str], now: datetime) -> dict[str, KnownEvents]:
    """Each user's dated events: the live ones, and those retired within ``ella.event_over.HORIZON`` of ``now``
    (a user with none is absent: read it as ``NOTHING_KNOWN``)."""
    if not user_ids:
        return {}
    exact, low, high = subject_range(USER_SUBJECT)
    rows = session.scalars(
        select(WorldFact)
        .where(
            WorldFact.user_id.in_(sorted(set(user_ids))),
            or_(WorldFact.subject == exact, and_(WorldFact.subject >= low, WorldFact.subject < high)),
            or_(WorldFact.followup_after.is_not(None), WorldFact.predicate == UPCOMING),
            or_(
                WorldFact.status.in_([s.value for s in LIVE]),
                and_(WorldFact.status == RETIRED, WorldFact.retired_at >= now - HORIZON),
            ),
        )
        .order_by(WorldFact.user_id, WorldFact.id)
    )
    by_user: dict[str, list[WorldFact]] = {}
    for fact in rows:
        by_user.setdefault(fact.user_id, []).append(fact)
    return {user_id: known_events(facts) for user_id, facts in by_user.items()}


def events_of(session: Session, user_id: str, now: datetime) -> KnownEvents:
    """One user's events (``events_known``)."""
    return events_known(session, [user_id], now).get(user_id, NOTHING_KNOWN)


def thought_texts(session: Session, node_ids: Collection[int]) -> dict[int, str]:
    """The descriptions of the memory nodes ``node_ids`` (the plans a digest cites), by id; a node erased since
    is absent."""
    if not node_ids:
        return {}
    rows = session.execute(
        select(MemoryNode.id, MemoryNode.description).where(MemoryNode.id.in_(sorted(set(node_ids))))
    )
    return {node_id: description for node_id, description in rows}

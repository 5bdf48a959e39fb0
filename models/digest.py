"""The daily digest's questions, asked of one chunk of users at a time: one query per kind of input per chunk,
never one per user (the planner runs at 100,000 users, a tenth of them active on a given day).

Each returns plain values of ``ella.digest`` keyed by user id; the rules that read them are there.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime

from sqlalchemy import and_, func, literal_column, or_, select
from sqlalchemy.orm import Session

from ella import digest
from ella.arcs import Arc, Chapter
from ella.ledger.rules import subject_range
from ella.memory.plans import PLAN_KEY_PREFIX
from ella.notifications import followups
from models.arcs import current_arcs
from models.chapters import latest_chapters
from models.ledger import WorldFact
from models.memory import MemoryNode, shown_to_model
from models.message import InboundMessage
from models.selflog import SelfLogEntry
from models.user import User

PLAN_KEY = f"{PLAN_KEY_PREFIX}%"  # a planning thought's dedupe key (``ella.memory.plans``: ``plan:<conversation>``)


def profiles(session: Session, user_ids: Collection[str]) -> dict[str, tuple[datetime, bool]]:
    """Each user's first sight (``created_at``) and whether notifications are on."""
    if not user_ids:
        return {}
    rows = session.execute(
        select(User.id, User.created_at, User.notifications_enabled).where(User.id.in_(sorted(user_ids)))
    )
    return {uid: (created, bool(enabled)) for uid, created, enabled in rows}


def last_turns(session: Session, user_ids: Collection[str], after: datetime) -> dict[str, datetime]:
    """When each user's newest message was received, for those with one received after ``after`` (the chunk's
    earliest "since": each user's own is compared by the rule)."""
    if not user_ids:
        return {}
    rows = session.execute(
        select(InboundMessage.user_id, func.max(InboundMessage.received_at))
        .where(InboundMessage.user_id.in_(sorted(user_ids)), InboundMessage.received_at > after)
        .group_by(InboundMessage.user_id)
    )
    return {uid: at for uid, at in rows}


def open_facts(session: Session, user_ids: Collection[str], now: datetime) -> dict[str, list[digest.OpenFact]]:
    """Each user's follow-up facts whose window has not closed: active, about the user, of a tier a user's own
    event can have (the follow-up rules'), ahead or inside their window."""
    if not user_ids:
        return {}
    exact, low, high = subject_range(followups.USER_SUBJECT)
    rows = session.scalars(
        select(WorldFact).where(
            WorldFact.user_id.in_(sorted(user_ids)),
            WorldFact.status == literal_column("'active'"),
            WorldFact.followup_after.is_not(None),
            WorldFact.followup_until > now,
            WorldFact.tier.in_(sorted(followups.FOLLOWUP_TIERS)),
            or_(WorldFact.subject == exact, and_(WorldFact.subject >= low, WorldFact.subject < high)),
        )
    )
    found: dict[str, list[digest.OpenFact]] = {}
    for row in rows:
        found.setdefault(row.user_id, []).append(digest.open_fact(row))
    return found


def planning_thoughts(session: Session, user_ids: Collection[str], now: datetime) -> dict[str, list[digest.Plan]]:
    """Each user's planning thoughts that have not expired, oldest first."""
    if not user_ids:
        return {}
    rows = session.execute(
        select(MemoryNode.user_id, MemoryNode.id, MemoryNode.description, MemoryNode.created_at)
        .where(
            MemoryNode.user_id.in_(sorted(user_ids)),
            MemoryNode.node_type == "thought",
            MemoryNode.dedupe_key.like(PLAN_KEY),
            or_(MemoryNode.expires_at.is_(None), MemoryNode.expires_at > now),
            shown_to_model(),
        )
        .order_by(MemoryNode.created_at, MemoryNode.id)
    )
    found: dict[str, list[digest.Plan]] = {}
    for uid, node_id, description, created_at in rows:
        found.setdefault(uid, []).append(digest.Plan(node_id, digest.plan_text(description), created_at))
    return found


def self_log_about_users(session: Session, user_ids: Collection[str], since: datetime) -> dict[str, list[digest.Said]]:
    """Each user's self-log entries since ``since`` that mention them (the self-log's second use), oldest first."""
    if not user_ids:
        return {}
    rows = session.scalars(
        select(SelfLogEntry)
        .where(SelfLogEntry.user_id.in_(sorted(user_ids)), SelfLogEntry.said_at >= since)
        .order_by(SelfLogEntry.said_at, SelfLogEntry.id)
    )
    found: dict[str, list[digest.Said]] = {}
    for row in rows:
        if row.mentions_user():
            found.setdefault(row.user_id, []).append(digest.Said(row.id, row.content, row.said_at))
    return found


def narrative(session: Session, user_ids: Collection[str]) -> tuple[dict[str, Chapter], dict[str, Arc]]:
    """Each user's latest chapter and current arc (absent: none yet), one query each."""
    ids = sorted(user_ids)
    return latest_chapters(session, ids), current_arcs(session, ids)

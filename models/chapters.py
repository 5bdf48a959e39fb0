"""Weekly story chapters: one row per user and week, and the loaders the chapter job, the reply and the digest use.

Why bulk loaders: the planner runs over 100,000 users a week in chunks, so every question here is asked for a
chunk of user ids in one query (``week_activity``, ``newest_self_logs``, ``latest_chapters``), never once per
user. The chapter's thought node is stored in ``memory_nodes`` (built by ``ella.memory.nodes``); the row keeps
its id, and the cited node ids, so an auditor can walk from a chapter to what it rests on."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import ForeignKey, String, Text, UniqueConstraint, func, select
from sqlalchemy.engine import CursorResult
from sqlalchemy.orm import Mapped, Session, mapped_column

from ella.arcs import Chapter
from ella.jobs import Member
from models.base import Base, BigId, UTCDateTime, dialect_insert, newest_per_user, utcnow
from models.memory import MemoryNode, shown_to_model
from models.message import InboundMessage
from models.provenance import Provenanced, in_prompts
from models.selflog import SelfLogEntry


class StoryChapter(Provenanced, Base):
    __tablename__ = "story_chapters"
    __table_args__ = (UniqueConstraint("user_id", "period"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    period: Mapped[str] = mapped_column(String(16), comment="the local ISO week, 2026-W48")
    period_start: Mapped[datetime] = mapped_column(UTCDateTime())
    period_end: Mapped[datetime] = mapped_column(UTCDateTime(), comment="the arc of the month it ends in reads it")
    title: Mapped[str] = mapped_column(String(200))
    summary: Mapped[str] = mapped_column(Text)
    key_moments: Mapped[str] = mapped_column(Text, default="[]", comment='JSON: [{"text", "node_ids"}]')
    cited_node_ids: Mapped[str] = mapped_column(Text, default="[]", comment="JSON: every node id the moments cite")
    # No foreign key: memory_nodes is partitioned on PostgreSQL, its key is (id, user_id), and a forget of the
    # node clears this column itself (models.forgetting), as ON DELETE SET NULL did before migration 0023.
    thought_node_id: Mapped[int | None] = mapped_column(BigId)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)

    def as_chapter(self) -> Chapter:
        return Chapter(self.user_id, self.period, self.title, self.summary, self.thought_node_id, self.created_at)


# What a chapter reads of a node (not its embedding: a chunk's week of nodes stays small in memory).
NODE_COLUMNS = (
    MemoryNode.id,
    MemoryNode.user_id,
    MemoryNode.node_type,
    MemoryNode.description,
    MemoryNode.poignancy,
    MemoryNode.depth,
    MemoryNode.created_at,
    MemoryNode.dedupe_key,
)


@dataclass
class WeekActivity:
    """What a chunk's planner needs of its users' weeks: turn times and nodes per user, within the span of the
    chunk's periods (each member's own bounds are applied by ``ella.chapters``)."""

    turns: dict[str, list[datetime]]
    nodes: dict[str, list[Any]]  # rows of NODE_COLUMNS (``ella.chapters.NodeLike``)


def week_activity(session: Session, members: Sequence[Member]) -> WeekActivity:
    """One query for the chunk's turns and one for its nodes, over the span of its members' periods."""
    turns: dict[str, list[datetime]] = defaultdict(list)
    nodes: dict[str, list[Any]] = defaultdict(list)
    if not members:
        return WeekActivity(turns, nodes)
    ids = [m.user_id for m in members]
    start, end = min(m.period.start for m in members), max(m.period.end for m in members)
    for user_id, sent_at in session.execute(
        select(InboundMessage.user_id, InboundMessage.sent_at).where(
            InboundMessage.user_id.in_(ids), InboundMessage.sent_at >= start, InboundMessage.sent_at < end
        )
    ):
        turns[user_id].append(sent_at)
    for node in session.execute(
        select(*NODE_COLUMNS).where(
            MemoryNode.user_id.in_(ids), MemoryNode.created_at >= start, MemoryNode.created_at < end, shown_to_model()
        )
    ):
        nodes[node.user_id].append(node)
    return WeekActivity(turns, nodes)


def newest_self_logs(session: Session, user_ids: Sequence[str], cap: int) -> dict[str, list[SelfLogEntry]]:
    """Each user's ``cap`` newest self-log entries, oldest first; one query for the chunk."""
    found: dict[str, list[SelfLogEntry]] = defaultdict(list)
    if not user_ids or cap <= 0:
        return found
    newest_first = (SelfLogEntry.said_at.desc(), SelfLogEntry.id.desc())
    ranked = (
        select(
            SelfLogEntry.id,
            func.row_number().over(partition_by=SelfLogEntry.user_id, order_by=newest_first).label("rank"),
        )
        .where(SelfLogEntry.user_id.in_(list(user_ids)))
        .subquery()
    )
    for entry in session.scalars(
        select(SelfLogEntry)
        .join(ranked, ranked.c.id == SelfLogEntry.id)
        .where(ranked.c.rank <= cap)
        .order_by(SelfLogEntry.said_at, SelfLogEntry.id)
    ):
        found[entry.user_id].append(entry)
    return found


def nodes_of_user(session: Session, user_id: str, node_ids: Sequence[int]) -> dict[int, tuple[int, int]]:
    """Of ``node_ids``, those that exist and are ``user_id``'s, with their (depth, poignancy)."""
    if not node_ids:
        return {}
    rows = session.execute(
        select(MemoryNode.id, MemoryNode.depth, MemoryNode.poignancy).where(
            MemoryNode.id.in_(list(node_ids)), MemoryNode.user_id == user_id, shown_to_model()
        )
    )
    return {node_id: (depth, poignancy) for node_id, depth, poignancy in rows}


def add_chapter(session: Session, values: dict[str, Any]) -> bool:
    """Store a chapter unless the user has one for that period; True when this call stored it."""
    stmt = (
        dialect_insert(session)(StoryChapter)
        .values(
            **{
                **values,
                "key_moments": json.dumps(values["key_moments"]),
                "cited_node_ids": json.dumps(values["cited_node_ids"]),
            }
        )
        .on_conflict_do_nothing(index_elements=["user_id", "period"])
    )
    return bool(cast("CursorResult[Any]", session.execute(stmt)).rowcount)


def has_chapter(session: Session, user_id: str, period: str) -> bool:
    found = select(StoryChapter.id).where(StoryChapter.user_id == user_id, StoryChapter.period == period)
    return session.scalar(found) is not None


def chapters_between(session: Session, user_ids: Sequence[str], start: datetime, end: datetime) -> list[StoryChapter]:
    """The chunk's chapters of weeks ending in ``(start, end]`` that a prompt may show (an arc reads them), oldest
    first (one query per chunk)."""
    if not user_ids:
        return []
    return list(
        session.scalars(
            select(StoryChapter)
            .where(
                StoryChapter.user_id.in_(list(user_ids)),
                StoryChapter.period_end > start,
                StoryChapter.period_end <= end,
                in_prompts(StoryChapter),
            )
            .order_by(StoryChapter.period_end, StoryChapter.id)
        )
    )


def latest_chapters(session: Session, user_ids: Sequence[str]) -> dict[str, Chapter]:
    """Each user's latest chapter (by week) a prompt may show (``models.provenance.in_prompts``), one query for
    all; a user with none is absent."""
    rows = newest_per_user(session, StoryChapter, user_ids, in_prompts(StoryChapter))
    return {row.user_id: row.as_chapter() for row in rows}


def latest_chapter(session: Session, user_id: str) -> Chapter | None:
    """The user's latest chapter, or None (the reply's "story so far")."""
    return latest_chapters(session, [user_id]).get(user_id)


def latest_chapter_with_id(session: Session, user_id: str) -> tuple[Chapter | None, int | None]:
    """``latest_chapter`` and its row's id (what the reply saw: ``ella.seen``)."""
    rows = newest_per_user(session, StoryChapter, [user_id], in_prompts(StoryChapter))
    return (rows[0].as_chapter(), rows[0].id) if rows else (None, None)


def chapter_count(session: Session, user_id: str) -> int:
    return session.scalar(select(func.count()).where(StoryChapter.user_id == user_id)) or 0

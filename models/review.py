"""The human review queue: contests the model could not decide wait here for an operator."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import ForeignKey, Index, String, Text, func, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from models.base import Base, BigId, UTCDateTime, dialect_insert, utcnow


class FactReview(Base):
    __tablename__ = "fact_reviews"
    __table_args__ = (Index("ix_fact_reviews_resolved_at_created_at", "resolved_at", "created_at"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    subject: Mapped[str] = mapped_column(String(200))
    predicate: Mapped[str] = mapped_column(String(120))
    tier: Mapped[str] = mapped_column(String(16))
    fact_ids: Mapped[str] = mapped_column(Text, comment="JSON list of the contested facts' ids")
    reason: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    resolved_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    resolved_by: Mapped[str | None] = mapped_column(String(120))
    winner_fact_id: Mapped[int | None] = mapped_column(ForeignKey("world_facts.id", ondelete="SET NULL"))
    dedupe_key: Mapped[str] = mapped_column(String(400), unique=True)

    @property
    def ids(self) -> list[int]:
        return [int(i) for i in json.loads(self.fact_ids)]


def queue_review(
    session: Session, user_id: str, subject: str, predicate: str, tier: str, fact_ids: Sequence[int], reason: str
) -> int | None:
    """Queue a contest once (the same set of facts is never queued twice); the new row's id or None."""
    ids = sorted(fact_ids)
    stmt = dialect_insert(session)(FactReview).values(
        user_id=user_id,
        subject=subject,
        predicate=predicate,
        tier=tier,
        fact_ids=json.dumps(ids),
        reason=reason,
        created_at=utcnow(),
        dedupe_key=f"{user_id}:{subject}:{predicate}:{tier}:{','.join(map(str, ids))}"[:400],
    )
    review_id: int | None = session.scalar(
        stmt.on_conflict_do_nothing(index_elements=["dedupe_key"]).returning(FactReview.id)
    )
    return review_id


def open_reviews(session: Session, user_id: str | None = None) -> list[FactReview]:
    query = select(FactReview).where(FactReview.resolved_at.is_(None)).order_by(FactReview.created_at, FactReview.id)
    if user_id is not None:
        query = query.where(FactReview.user_id == user_id)
    return list(session.scalars(query))


def open_fact_ids(session: Session, user_id: str) -> set[int]:
    return {i for review in open_reviews(session, user_id) for i in review.ids}


def open_review_count(session: Session, user_id: str | None = None) -> int:
    """How many contests wait for a person: the fleet's (the operator's page heading), or one user's."""
    query = select(func.count()).select_from(FactReview).where(FactReview.resolved_at.is_(None))
    if user_id is not None:
        query = query.where(FactReview.user_id == user_id)
    return session.scalar(query) or 0

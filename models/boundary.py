"""Boundary logs: every guard fire and outbound drift, and the anonymous count of crisis referrals.

Why two tables: the boundary log serves operators and carries the user id (the message text only when
``ELLA_BOUNDARY_LOG_TEXT`` allows it); the crisis-referral log serves the yearly report California's SB 243
asks operators to file, so it holds no text and no user id at all, only time, category and detector.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Float, ForeignKey, Index, String, Text, func, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from ella.guard import DETECTOR_VERSION, Verdict
from models.base import Base, BigId, UTCDateTime, utcnow


class BoundaryEvent(Base):
    __tablename__ = "boundary_events"
    __table_args__ = (Index("ix_boundary_events_user_id_at", "user_id", "at"), Index("ix_boundary_events_at", "at"))

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    user_id: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    direction: Mapped[str] = mapped_column(String(16), comment="inbound | outbound | notification | regression")
    category: Mapped[str] = mapped_column(String(32))
    severity: Mapped[str] = mapped_column(String(16))
    route: Mapped[str] = mapped_column(String(32))
    detector_version: Mapped[str] = mapped_column(String(32))
    rule: Mapped[str] = mapped_column(String(120), default="", comment="the rule that fired, never user text")
    message_id: Mapped[str | None] = mapped_column(String(200))
    text: Mapped[str | None] = mapped_column(Text, comment="only when ELLA_BOUNDARY_LOG_TEXT is on")
    score: Mapped[float | None] = mapped_column(Float, comment="the learned stage's probability; NULL for a rule")


class CrisisReferral(Base):
    __tablename__ = "crisis_referrals"
    __table_args__ = (Index("ix_crisis_referrals_at", "at"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    category: Mapped[str] = mapped_column(String(32))
    detector_version: Mapped[str] = mapped_column(String(32))


def log_fire(
    session: Session,
    *,
    user_id: str | None,
    direction: str,
    category: str,
    severity: str,
    route: str,
    detector_version: str,
    rule: str,
    message_id: str | None,
    text: str | None,
    at: datetime | None = None,
    score: float | None = None,
) -> None:
    """One boundary fire; a crisis referral is also counted anonymously (no user, no text)."""
    at = at or utcnow()
    session.add(
        BoundaryEvent(
            at=at,
            user_id=user_id,
            direction=direction,
            category=category,
            severity=severity,
            route=route,
            detector_version=detector_version,
            rule=rule[:120],
            message_id=message_id,
            text=text,
            score=score,
        )  # fmt: skip
    )
    if route == "crisis_referral":
        session.add(CrisisReferral(at=at, category=category, detector_version=detector_version))


def referrals_in_year(session: Session, year: int) -> dict[str, int]:
    """Crisis referrals per category in a calendar year (UTC)."""
    start = datetime(year, 1, 1, tzinfo=utcnow().tzinfo)
    end = datetime(year + 1, 1, 1, tzinfo=utcnow().tzinfo)
    rows = session.execute(
        select(CrisisReferral.category, func.count())
        .where(CrisisReferral.at >= start, CrisisReferral.at < end)
        .group_by(CrisisReferral.category)
    ).all()
    return {category: count for category, count in rows}


def log_verdict(
    session: Session,
    verdict: Verdict,
    *,
    direction: str,
    user_id: str | None,
    message_id: str | None,
    text: str | None,
) -> None:
    """One guard verdict as a boundary fire (the rule id and detector version, the text only if given)."""
    log_fire(
        session,
        user_id=user_id,
        direction=direction,
        category=str(verdict.category),
        severity=verdict.severity.label,
        route=str(verdict.route),
        detector_version=DETECTOR_VERSION,
        rule=verdict.matched,
        message_id=message_id,
        text=text,
        score=verdict.score,
    )

"""The usage ledger: one row per model call, whatever its outcome, so spend and failures can be audited."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Boolean, Float, Index, Integer, String, Text, func, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from models.base import Base, BigId, UTCDateTime, utcnow


class ModelCall(Base):
    __tablename__ = "model_calls"
    __table_args__ = (Index("ix_model_calls_user_id_created_at", "user_id", "created_at"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, index=True)
    user_id: Mapped[str | None] = mapped_column(String(128))
    kind: Mapped[str] = mapped_column(String(32))
    tier: Mapped[str] = mapped_column(String(32))
    model: Mapped[str] = mapped_column(String(64))
    provider: Mapped[str] = mapped_column(String(16))
    batch: Mapped[bool] = mapped_column(Boolean, default=False, comment="served by the Message Batches API")
    input_tokens: Mapped[int] = mapped_column(Integer, default=0)
    output_tokens: Mapped[int] = mapped_column(Integer, default=0)
    cache_write_tokens: Mapped[int] = mapped_column(Integer, default=0)
    cache_read_tokens: Mapped[int] = mapped_column(Integer, default=0)
    latency_ms: Mapped[float] = mapped_column(Float, default=0.0)
    outcome: Mapped[str] = mapped_column(String(24))
    attempt: Mapped[int] = mapped_column(Integer, default=1)
    error: Mapped[str | None] = mapped_column(Text)


def day_of(column: Any, dialect: str) -> Any:
    """The UTC calendar day of a timestamp column, as 'YYYY-MM-DD', on either back end."""
    if dialect == "postgresql":
        return func.to_char(func.timezone("UTC", column), "YYYY-MM-DD")
    return func.substr(column, 1, 10)  # SQLite stores our UTC timestamps as 'YYYY-MM-DD HH:MM:SS...'


@dataclass(frozen=True)
class DailySpend:
    day: str
    user_id: str | None
    calls: int
    input_tokens: int
    output_tokens: int
    cache_write_tokens: int
    cache_read_tokens: int
    usd: float


def spend_per_user_day(
    session: Session,
    prices: dict[str, dict[str, float]],
    batch_factor: float,
    user_id: str | None = None,
    since: datetime | None = None,
) -> list[DailySpend]:
    """Spend per (day, user), priced per model from ``prices`` (USD per million tokens); batches discounted."""
    day = day_of(ModelCall.created_at, session.get_bind().dialect.name).label("day")
    query = select(
        day,
        ModelCall.user_id,
        ModelCall.model,
        ModelCall.batch,
        func.count(),
        func.sum(ModelCall.input_tokens),
        func.sum(ModelCall.output_tokens),
        func.sum(ModelCall.cache_write_tokens),
        func.sum(ModelCall.cache_read_tokens),
    ).group_by(day, ModelCall.user_id, ModelCall.model, ModelCall.batch)
    if user_id is not None:
        query = query.where(ModelCall.user_id == user_id)
    if since is not None:
        query = query.where(ModelCall.created_at >= since)
    totals: dict[tuple[str, str | None], list[float]] = {}
    for d, uid, model, batch, calls, tin, tout, tcw, tcr in session.execute(query):
        price = prices.get(model, {})
        factor = batch_factor if batch else 1.0
        usd = (
            factor
            * (
                (tin or 0) * price.get("input", 0)
                + (tout or 0) * price.get("output", 0)
                + (tcw or 0) * price.get("cache_write", 0)
                + (tcr or 0) * price.get("cache_read", 0)
            )
            / 1e6
        )
        acc = totals.setdefault((d, uid), [0, 0, 0, 0, 0, 0.0])
        for i, v in enumerate((calls, tin or 0, tout or 0, tcw or 0, tcr or 0, usd)):
            acc[i] += v
    return [
        DailySpend(d, uid, int(a[0]), int(a[1]), int(a[2]), int(a[3]), int(a[4]), round(a[5], 6))
        for (d, uid), a in sorted(totals.items(), key=lambda kv: (kv[0][0], kv[0][1] or ""))
    ]

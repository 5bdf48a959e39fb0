"""Model usage: one row per model call, whatever its outcome, so spend and failures can be audited.

The rows are built here from the port's ``CallRecord`` (``usage_row``) and inserted in the caller's
transaction (``insert_usage``); ``adapters.llm`` decides when, holding a task's rows until it ends. What the
tokens cost is ``ella.usage``'s business; this module only sums them per user per day.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Boolean, Float, Index, Integer, String, Text, func, insert, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from ella.llm.port import CallRecord
from ella.usage import BATCH_FACTOR, ModelPrice, PriceList, Tokens, Unpriced, job_of, unpriced_by_model
from models.base import Base, BigId, UTCDateTime, table_of, utcnow


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


def usage_row(call: CallRecord, batch: bool = False) -> dict[str, Any]:
    """The ``model_calls`` row of one call, stamped now; ``batch``: served by the Message Batches API."""
    return {
        "created_at": utcnow(),
        "user_id": call.user_id,
        "kind": call.kind,
        "tier": call.tier,
        "model": call.model,
        "provider": call.provider,
        "batch": batch,
        "input_tokens": call.usage.input_tokens,
        "output_tokens": call.usage.output_tokens,
        "cache_write_tokens": call.usage.cache_creation_input_tokens,
        "cache_read_tokens": call.usage.cache_read_input_tokens,
        "latency_ms": round(call.latency_ms, 2),
        "outcome": call.outcome,
        "attempt": call.attempt,
        "error": call.error or None,
    }


def insert_usage(session: Session, rows: Sequence[dict[str, Any]]) -> None:
    """Insert ``usage_row`` rows in ``session``'s transaction (one statement).

    Into the table, not the mapped class: the ORM's bulk insert asks for every new id back (RETURNING), which no
    caller reads, and costs 0.57-0.70 against 0.43-0.46 ms of CPU for a turn's one row on PostgreSQL (500-call
    loops, alternating, each with its commit)."""
    if rows:
        session.execute(insert(table_of(ModelCall)), list(rows))


def token_totals() -> tuple[Any, ...]:
    """The columns every spend query aggregates, in the order its pricing reads them: calls, then input, output,
    cache-write and cache-read tokens."""
    return (
        func.count(),
        func.sum(ModelCall.input_tokens),
        func.sum(ModelCall.output_tokens),
        func.sum(ModelCall.cache_write_tokens),
        func.sum(ModelCall.cache_read_tokens),
    )


def day_of(column: Any, dialect: str) -> Any:
    """The UTC calendar day of a timestamp column, as 'YYYY-MM-DD', on either back end."""
    if dialect == "postgresql":
        return func.to_char(func.timezone("UTC", column), "YYYY-MM-DD")
    return func.substr(column, 1, 10)  # SQLite stores our UTC timestamps as 'YYYY-MM-DD HH:MM:SS...'


@dataclass(frozen=True)
class DailySpend:
    """One user's model spend on one UTC day; ``usd`` covers the priced calls only, ``unpriced`` names the rest."""

    day: str
    user_id: str | None
    calls: int
    input_tokens: int
    output_tokens: int
    cache_write_tokens: int
    cache_read_tokens: int
    usd: float
    unpriced: tuple[Unpriced, ...] = ()


def spend_per_user_day(
    session: Session,
    prices: PriceList | Mapping[str, ModelPrice | Mapping[str, float]],
    batch_factor: float = BATCH_FACTOR,
    user_id: str | None = None,
    since: datetime | None = None,
) -> list[DailySpend]:
    """Spend per (day, user), priced per model by ``ella.usage`` (USD per million tokens); batches discounted.

    ``batch_factor`` applies when ``prices`` is a table rather than a ``PriceList``. Calls of a model with no
    price count in ``calls`` and the token columns but not in ``usd``: they are listed in ``unpriced``.
    """
    price_list = prices if isinstance(prices, PriceList) else PriceList(prices, batch_factor)
    day = day_of(ModelCall.created_at, session.get_bind().dialect.name).label("day")
    query = select(
        day,
        ModelCall.user_id,
        ModelCall.model,
        ModelCall.batch,
        *token_totals(),
    ).group_by(day, ModelCall.user_id, ModelCall.model, ModelCall.batch)
    if user_id is not None:
        query = query.where(ModelCall.user_id == user_id)
    if since is not None:
        query = query.where(ModelCall.created_at >= since)
    calls: Counter[tuple[str, str | None]] = Counter()
    tokens: dict[tuple[str, str | None], Tokens] = defaultdict(Tokens)
    usd: dict[tuple[str, str | None], float] = defaultdict(float)
    unpriced: dict[tuple[str, str | None], list[Unpriced]] = defaultdict(list)
    for d, uid, model, batch, n, tin, tout, tcw, tcr in session.execute(query):
        key = (d, uid)
        group = Tokens(tin or 0, tout or 0, tcw or 0, tcr or 0)
        calls[key] += n
        tokens[key] += group
        cost = price_list.usd(model, group, batch=bool(batch))
        if cost is None:
            unpriced[key].append(Unpriced(model, n, group))
        else:
            usd[key] += cost
    return [
        DailySpend(
            d,
            uid,
            calls[(d, uid)],
            t.input,
            t.output,
            t.cache_write,
            t.cache_read,
            round(usd[(d, uid)], 6),
            tuple(unpriced_by_model(unpriced[(d, uid)])),
        )
        for (d, uid), t in sorted(tokens.items(), key=lambda kv: (kv[0][0], kv[0][1] or ""))
    ]


@dataclass(frozen=True)
class JobSpend:
    """What one job (``ella.usage.job_of`` the calls' kinds) cost: ``usd`` with the batch discount applied,
    ``list_usd`` what the same calls would have cost unbatched; ``unpriced`` names the calls no price covers."""

    job: str
    calls: int
    batched_calls: int
    tokens: Tokens
    usd: float
    list_usd: float
    unpriced: tuple[Unpriced, ...] = ()


def spend_per_job(session: Session, prices: PriceList, since: datetime | None = None) -> list[JobSpend]:
    """Spend per job, most expensive first: the rows grouped by kind, model and batch, priced by ``prices``."""
    query = select(
        ModelCall.kind,
        ModelCall.model,
        ModelCall.batch,
        *token_totals(),
    ).group_by(ModelCall.kind, ModelCall.model, ModelCall.batch)
    if since is not None:
        query = query.where(ModelCall.created_at >= since)
    calls: Counter[str] = Counter()
    batched: Counter[str] = Counter()
    tokens: dict[str, Tokens] = defaultdict(Tokens)
    usd: dict[str, float] = defaultdict(float)
    list_usd: dict[str, float] = defaultdict(float)
    unpriced: dict[str, list[Unpriced]] = defaultdict(list)
    for kind, model, batch, n, tin, tout, tcw, tcr in session.execute(query):
        job = job_of(kind)
        group = Tokens(tin or 0, tout or 0, tcw or 0, tcr or 0)
        calls[job] += n
        batched[job] += n if batch else 0
        tokens[job] += group
        cost = prices.usd(model, group, batch=bool(batch))
        if cost is None:
            unpriced[job].append(Unpriced(model, n, group))
            continue
        usd[job] += cost
        list_usd[job] += prices.usd(model, group, batch=False) or 0.0
    spends = [
        JobSpend(
            job,
            calls[job],
            batched[job],
            tokens[job],
            round(usd[job], 6),
            round(list_usd[job], 6),
            tuple(unpriced_by_model(unpriced[job])),
        )
        for job in tokens
    ]
    return sorted(spends, key=lambda s: (-s.usd, s.job))

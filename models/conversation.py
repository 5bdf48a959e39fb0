"""A conversation: a run of turns that closes at its due time (the inactivity timeout after the last turn, or the
reply window after a notification that opened it).

Closing is a due time in the row (``close_due_at``) that a periodic sweep picks up, never a long Celery
countdown (which Redis would redeliver after the visibility timeout).
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

from sqlalchemy import ForeignKey, Index, Integer, String, bindparam, case, insert, or_, select, text, update
from sqlalchemy.orm import Mapped, Session, mapped_column

from models.base import Base, BigId, UTCDateTime, table_of, utcnow


class Conversation(Base):
    __tablename__ = "conversations"
    __table_args__ = (
        # At most one open conversation per user: concurrent first messages cannot open two.
        Index(
            "uq_conversations_open_per_user",
            "user_id",
            unique=True,
            sqlite_where=text("closed_at IS NULL"),
            postgresql_where=text("closed_at IS NULL"),
        ),
        Index(
            "ix_conversations_close_due_open",
            "close_due_at",
            sqlite_where=text("closed_at IS NULL"),
            postgresql_where=text("closed_at IS NULL"),
        ),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    external_id: Mapped[str | None] = mapped_column(String(200), comment="the gateway's conversation id")
    started_at: Mapped[datetime] = mapped_column(UTCDateTime())
    last_message_at: Mapped[datetime] = mapped_column(UTCDateTime())
    close_due_at: Mapped[datetime] = mapped_column(UTCDateTime())
    closed_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    close_reason: Mapped[str | None] = mapped_column(String(32))
    turn_count: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


def current_conversation(
    session: Session, user_id: str, sent_at: datetime, external_id: str | None, timeout: timedelta
) -> Conversation:
    """The open conversation this turn belongs to, closing a stale one and opening a new one as needed.

    The caller holds the user's lock. A turn after the open conversation's close due time (``timeout`` after
    its last turn, or a notification's reply window after Ella reached out), or one the gateway files under
    another conversation id, ends the open conversation first.
    """
    conv = session.scalars(
        select(Conversation).where(Conversation.user_id == user_id, Conversation.closed_at.is_(None))
    ).one_or_none()
    if conv is not None:
        if sent_at > conv.close_due_at:
            close(conv, reason="inactive", at=conv.close_due_at)
        elif external_id and conv.external_id and external_id != conv.external_id:
            close(conv, reason="replaced", at=sent_at)
        else:
            return conv
        session.info.setdefault("closed_conversations", []).append(conv.id)  # for the caller to emit after commit
        session.flush()  # the partial unique index must see it closed before a new one opens
    conv = Conversation(
        user_id=user_id,
        external_id=external_id,
        started_at=sent_at,
        last_message_at=sent_at,
        close_due_at=sent_at + timeout,
        turn_count=0,
    )
    session.add(conv)
    session.flush()
    return conv


def open_for_notifications(
    session: Session, user_ids: Collection[str], now: datetime, reply_window: timedelta
) -> dict[str, int]:
    """The conversation each user's notification becomes a turn of, by user id; in a few statements per page.

    The caller holds the users' locks. A stale open conversation is closed at its due time (its id noted in
    ``session.info["closed_conversations"]`` for the caller to emit after the commit) and a new one opens that
    stays open for ``reply_window``: a user who answers within it continues the conversation that holds Ella's
    question. A live one (the user began talking after the decision to send) is kept, held open for the window.
    """
    if not user_ids:
        return {}
    found = session.execute(
        select(Conversation.id, Conversation.user_id, Conversation.close_due_at, Conversation.last_message_at).where(
            Conversation.user_id.in_(user_ids), Conversation.closed_at.is_(None)
        )
    ).all()
    stale = [row.id for row in found if now > row.close_due_at]
    live = {row.user_id: row for row in found if now <= row.close_due_at}
    if stale:
        session.execute(
            update(Conversation)
            .where(Conversation.id.in_(stale), Conversation.closed_at.is_(None))
            .values(closed_at=Conversation.close_due_at, close_reason="inactive")
            .execution_options(synchronize_session=False)
        )
        session.info.setdefault("closed_conversations", []).extend(stale)
    if live:
        session.execute(
            update(Conversation),
            [
                {
                    "id": row.id,
                    "close_due_at": max(row.close_due_at, now + reply_window),
                    "last_message_at": max(row.last_message_at, now),
                }
                for row in live.values()
            ],
        )
    opened = [
        {"user_id": user_id, "started_at": now, "last_message_at": now, "close_due_at": now + reply_window,
         "turn_count": 1, "created_at": now}  # the notification is its first turn: the answer is not a start
        for user_id in dict.fromkeys(user_ids)
        if user_id not in live
    ]  # fmt: skip
    ids = {row.user_id: row.id for row in live.values()}
    if opened:
        rows = session.execute(insert(Conversation).returning(Conversation.user_id, Conversation.id), opened)
        ids.update({user_id: conv_id for user_id, conv_id in rows})
    return ids


def continue_conversation(
    session: Session, user_id: str, sent_at: datetime, external_id: str | None, timeout: timedelta
) -> Conversation | None:
    """The open conversation with this turn recorded (``record_turn``), in one UPDATE ... RETURNING, when the
    turn continues it; None when there is none or the turn ends it (``current_conversation`` then closes and
    opens). Why: the turn's usual case was a SELECT and an UPDATE of the same row on the ingest hot path.

    The conditions are ``current_conversation``'s, in SQL: not due to close by ``sent_at``, and not filed by the
    gateway under another conversation id. The SET expressions read the row as it was (SQL's rule, on both
    databases), so a turn older than the last one counts without moving the conversation's times. The caller
    holds the user's lock."""
    params = {"b_user_id": user_id, "b_sent_at": sent_at, "b_due_at": sent_at + timeout, "b_external_id": external_id}
    stmt = _continue_statement(bool(external_id))
    found: Conversation | None = session.scalars(
        stmt, params, execution_options={"populate_existing": True}
    ).one_or_none()
    return found


@lru_cache(maxsize=2)
def _continue_statement(filed: bool) -> Any:
    """``continue_conversation``'s UPDATE, built once with bound parameters (``filed``: the gateway named the
    conversation); building it per message cost more CPU than running it."""
    table = table_of(Conversation)
    c = table.c
    # (a bound parameter may not take a column's name in an UPDATE: hence the b_ names)
    sent_at, due_at = bindparam("b_sent_at", type_=UTCDateTime()), bindparam("b_due_at", type_=UTCDateTime())
    where = [c.user_id == bindparam("b_user_id", type_=String()), c.closed_at.is_(None), c.close_due_at >= sent_at]
    if filed:
        where.append(or_(c.external_id.is_(None), c.external_id == bindparam("b_external_id", type_=String())))
    later = c.last_message_at < sent_at
    core = (
        update(table)
        .where(*where)
        .values(
            turn_count=c.turn_count + 1,
            last_message_at=case((later, sent_at), else_=c.last_message_at),
            close_due_at=case((later, due_at), else_=c.close_due_at),
        )
        .returning(*c)
    )
    # A Core UPDATE whose rows the ORM loads: an ORM-enabled UPDATE (``update(Conversation)``) evaluated its WHERE
    # against the session's objects on every execution (synchronize_session), a fifth of the statement's CPU;
    # the returned row refreshes the session's object anyway (``populate_existing``).
    return select(Conversation).from_statement(core)


def record_turn(conv: Conversation, sent_at: datetime, timeout: timedelta) -> None:
    conv.turn_count += 1
    if sent_at > conv.last_message_at:
        conv.last_message_at = sent_at
        conv.close_due_at = sent_at + timeout


def close(conv: Conversation, reason: str, at: datetime) -> None:
    conv.closed_at = at
    conv.close_reason = reason


def close_due(session: Session, now: datetime, limit: int) -> list[int]:
    """Close up to ``limit`` open conversations whose due time has passed; return their ids.

    ``SKIP LOCKED`` on PostgreSQL lets two sweeps run at once without closing the same row twice.
    """
    rows = session.scalars(
        select(Conversation)
        .where(Conversation.closed_at.is_(None), Conversation.close_due_at <= now)
        .order_by(Conversation.close_due_at)
        .limit(limit)
        .with_for_update(skip_locked=True)
    ).all()
    for conv in rows:
        close(conv, reason="inactive", at=conv.close_due_at)
    return [conv.id for conv in rows]

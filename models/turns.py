"""Storing one exchange: the user's message, the conversation it belongs to, and Ella's recorded reply.

All of it is one transaction, so a redelivered task finds either everything or nothing.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, NamedTuple

from sqlalchemy import case, literal, select, union_all
from sqlalchemy.orm import Session

from ella.memory.poisoning import ANSWER_STAND_IN
from ella.memory.quarantine import Hold, stand_in
from ella.reply import OutgoingReply
from models.base import utcnow
from models.conversation import Conversation, continue_conversation, current_conversation, record_turn
from models.message import InboundMessage
from models.outbox import OutboxRecord
from models.user import User, touch_user


def find_message(session: Session, message_id: str) -> InboundMessage | None:
    """Whoever stored ``message_id``: the one question that is not one user's, since the id is unique across users
    (a second user's reuse must be told apart from a repeat)."""
    return session.scalars(select(InboundMessage).where(InboundMessage.message_id == message_id)).one_or_none()


def reply_to(session: Session, user_id: str, message_id: str) -> OutboxRecord | None:
    """The reply recorded to this user's message, if it was stored."""
    return session.scalars(
        select(OutboxRecord).where(OutboxRecord.user_id == user_id, OutboxRecord.in_reply_to == message_id)
    ).one_or_none()


class Exchange(NamedTuple):
    """A stored turn's reply record, with the user and conversation rows it touched (held, so that what follows
    in the same transaction reads them without loading them again: the session's identity map is weak)."""

    record: OutboxRecord
    user: User
    conversation: Conversation


def store_exchange(
    session: Session,
    *,
    message_id: str,
    user_id: str,
    text: str,
    sent_at: datetime,
    external_conversation_id: str | None,
    reply: OutgoingReply,
    timeout: timedelta,
    user_defaults: dict[str, Any],
    task_id: str | None,
    quarantine: str | None = None,
    seen: str | None = None,
) -> Exchange:
    """Insert the turn and its reply (``seen``: what the reply showed, ``ella.seen``); raises IntegrityError if
    ``message_id`` was stored meanwhile. A turn that continues the open conversation records it in one
    statement (``continue_conversation``)."""
    user = touch_user(session, user_id, sent_at, user_defaults)
    conv = continue_conversation(session, user_id, sent_at, external_conversation_id, timeout)
    if conv is None:
        conv = current_conversation(session, user_id, sent_at, external_conversation_id, timeout)
        record_turn(conv, sent_at, timeout)
    session.add(
        InboundMessage(
            message_id=message_id,
            user_id=user_id,
            conversation_id=conv.id,
            text=text,
            sent_at=sent_at,
            received_at=utcnow(),
            task_id=task_id,
            quarantine=quarantine,
        )
    )
    record = OutboxRecord(
        kind="reply",
        user_id=user_id,
        conversation_id=conv.id,
        in_reply_to=message_id,
        route=reply.route,
        category=reply.category,
        text=reply.text,
        created_at=utcnow(),
        seen=seen,
    )
    session.add(record)
    session.flush()
    return Exchange(record, user, conv)


def held_texts(name: str) -> tuple[Any, Any]:
    """The stand-in lines of a turn held for manipulation and of one held at a boundary, for the user ``name``, as
    SQL values (``_user_text``; a statement built once takes bound parameters instead)."""
    return literal(stand_in(Hold.MANIPULATION, name)), literal(stand_in(Hold.BOUNDARY, name))


def _user_text(held: tuple[Any, Any]) -> Any:
    """A user turn's text as a prompt may show it: a held turn (``ella.memory.quarantine``) by its stand-in line
    (``held``: see ``held_texts``)."""
    manipulation, boundary = held
    return case(
        (InboundMessage.quarantine == Hold.MANIPULATION.value, manipulation),
        (InboundMessage.quarantine == Hold.BOUNDARY.value, boundary),
        else_=InboundMessage.text,
    )


def _reply_text() -> Any:
    """Ella's reply as a prompt may show it: a generated answer to a turn held for manipulation (a message that
    instructed her memory, ``ella.memory.poisoning``) by its stand-in, since it may repeat the instruction; a
    refused turn's hand-written reply is shown as sent."""
    held = (InboundMessage.quarantine == Hold.MANIPULATION.value) & (OutboxRecord.route == "generated")
    return case((held, literal(ANSWER_STAND_IN)), else_=OutboxRecord.text)


def _turns(conversation: Any, generated_only: bool, held: tuple[Any, Any]) -> Any:
    """The conversation's turns as one subquery (at, ord, role, text): each reply sorts right after the message
    it answers, by that message's ``sent_at`` (the gateway's clock); a notification Ella sent is a turn of its
    own, at the time it was recorded. Every caller shows the turns to a model, so a held turn's words never
    appear: its stand-in does."""
    said = select(
        InboundMessage.sent_at.label("at"),
        literal(0).label("ord"),
        literal("user").label("role"),
        _user_text(held).label("text"),
    ).where(InboundMessage.conversation_id == conversation)
    answered = (
        select(InboundMessage.sent_at, literal(1), literal("assistant"), _reply_text())
        .join(InboundMessage, InboundMessage.message_id == OutboxRecord.in_reply_to)
        .where(OutboxRecord.conversation_id == conversation, OutboxRecord.kind == "reply")
    )
    reached_out = select(OutboxRecord.created_at, literal(0), literal("assistant"), OutboxRecord.text).where(
        OutboxRecord.conversation_id == conversation, OutboxRecord.kind == "notification"
    )  # a notification that opened (or joined) the conversation, at the time it was recorded
    if generated_only:
        answered = answered.where(OutboxRecord.route == "generated")
        reached_out = reached_out.where(OutboxRecord.route == "generated")
    return union_all(said, answered, reached_out).subquery()


HISTORY_LIMIT = 40  # the turns a reply is shown of the open conversation


def open_conversation_turns(user_id: Any, at: Any | None = None, held: tuple[Any, Any] | None = None) -> Any:
    """The user's open conversation's turns as one subquery (at, ord, role, text); ``at``: see
    ``open_conversation_history``. Shared with the turn's opening read (``models.turn_opening``), which builds its
    statement once, with bound parameters for ``user_id``, ``at`` and ``held`` (the stand-ins, ``held_texts``)."""
    open_one = select(Conversation.id).where(Conversation.user_id == user_id, Conversation.closed_at.is_(None))
    if at is not None:
        open_one = open_one.where(Conversation.close_due_at >= at)
    return _turns(open_one.scalar_subquery(), generated_only=False, held=held or held_texts(user_id))


def open_conversation_history(
    session: Session, user_id: str, limit: int = HISTORY_LIMIT, at: datetime | None = None
) -> list[tuple[str, str]]:
    """The last ``limit`` turns of the user's open conversation, oldest first, as (role, text); one query.

    Fallback replies stay in: the user saw them, so the model should too. ``at``: the time of the message the
    history is for; an open conversation already due to close by then is over (that message opens a new one,
    ``models.conversation.current_conversation``), so yesterday's talk is not shown as the conversation so far.
    """
    both = open_conversation_turns(user_id, at)
    rows = session.execute(
        select(both.c.role, both.c.text).order_by(both.c.at.desc(), both.c.ord.desc()).limit(limit)
    ).all()
    return [(role, text) for role, text in reversed(rows)]


def conversation_transcript(session: Session, conversation_id: int, user_id: str) -> list[str]:
    """The conversation as ``"name: text"`` lines in order (the evidence of its chat node). Only Ella's
    generated replies: a fallback is not something she thought."""
    both = _turns(conversation_id, generated_only=True, held=held_texts(user_id))
    rows = session.execute(select(both.c.role, both.c.text).order_by(both.c.at, both.c.ord)).all()
    return [f"{user_id}: {text}" if role == "user" else f"Ella: {text}" for role, text in rows]

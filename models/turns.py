"""Storing one exchange: the user's message, the conversation it belongs to, and Ella's recorded reply.

All of it is one transaction, so a redelivered task finds either everything or nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from models.base import utcnow
from models.conversation import Conversation, current_conversation, record_turn
from models.message import InboundMessage
from models.outbox import OutboxRecord
from models.user import touch_user


@dataclass(frozen=True)
class Reply:
    text: str
    route: str = "generated"  # generated | canned | fallback
    category: str = "chat"


def find_message(session: Session, message_id: str) -> InboundMessage | None:
    return session.scalars(select(InboundMessage).where(InboundMessage.message_id == message_id)).one_or_none()


def reply_to(session: Session, message_id: str) -> OutboxRecord | None:
    return session.scalars(select(OutboxRecord).where(OutboxRecord.in_reply_to == message_id)).one_or_none()


def store_exchange(
    session: Session,
    *,
    message_id: str,
    user_id: str,
    text: str,
    sent_at: datetime,
    external_conversation_id: str | None,
    reply: Reply,
    timeout: timedelta,
    user_defaults: dict[str, Any],
    task_id: str | None,
) -> OutboxRecord:
    """Insert the turn and its reply; raises IntegrityError if ``message_id`` was stored meanwhile."""
    touch_user(session, user_id, sent_at, user_defaults)
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
    )
    session.add(record)
    session.flush()
    return record


def open_conversation_history(session: Session, user_id: str, limit: int = 40) -> list[tuple[str, str]]:
    """The last ``limit`` turns of the user's open conversation, oldest first, as (role, text)."""
    conv_id = session.scalar(
        select(Conversation.id).where(Conversation.user_id == user_id, Conversation.closed_at.is_(None))
    )
    if conv_id is None:
        return []
    said = session.execute(
        select(InboundMessage.sent_at, InboundMessage.text)
        .where(InboundMessage.conversation_id == conv_id)
        .order_by(InboundMessage.sent_at.desc())
        .limit(limit)
    ).all()
    answered = session.execute(
        select(OutboxRecord.created_at, OutboxRecord.text, InboundMessage.sent_at)
        .join(InboundMessage, InboundMessage.message_id == OutboxRecord.in_reply_to)
        .where(OutboxRecord.conversation_id == conv_id, OutboxRecord.kind == "reply")
        .order_by(OutboxRecord.created_at.desc())
        .limit(limit)
    ).all()
    # A reply sorts right after the message it answers (sent_at is the gateway's clock; created_at ours).
    turns = [(at, 0, "user", text) for at, text in said] + [
        (asked, 1, "assistant", text) for _, text, asked in answered
    ]
    turns.sort(key=lambda t: (t[0], t[1]))
    return [(role, text) for _, _, role, text in turns[-limit:]]

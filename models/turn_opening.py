"""A turn's opening read: everything ingest asks of the database before the reply, in one statement.

Why one statement: the ingest hot path had grown to seven reads before its first write (issue 35), each feature
adding its own trip: whether the message is stored already (a repeat delivery), the user's time zone and locale,
the lazy world's version, and the open conversation's history twice (once for the guard's reading in context,
once for the reply). They are all about one user and one message, so one SELECT answers them: a one-row header of
scalar subqueries (each a primary-key or unique-index lookup) left-joined to the history's rows, newest first.
The header's columns repeat on every history row; with no history there is one row whose history columns are NULL.

The header also answers whether the user was erased (the tombstone's key, ``models.erasure``): a late message of an
erased user is refused before anything else is done (``workers.events``), and that check was an eleventh statement
and a transaction of its own on every turn.

The history is the open conversation's last ``limit`` turns as ``models.turns.open_conversation_history`` reads
them (same subquery, same order, same cut-off at the message's time): the reply shows all of them, the guard the
last eight.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import BindParameter, Select, String, bindparam, select, true
from sqlalchemy.orm import Session

from ella.memory.quarantine import Hold, stand_in
from models.erasure import ForgottenUser
from models.message import InboundMessage
from models.turns import HISTORY_LIMIT, open_conversation_turns
from models.user import User
from models.world_clock import WorldVersion


@dataclass(frozen=True)
class TurnOpening:
    """What the database says of a message before it is answered.

    ``stored_by``: the user who stored a message with this id already (a repeat delivery, or another user's reuse
    of the id), None for a new message. ``known``: the user has a row. ``history``: the open conversation so far,
    oldest first, as (role, text). ``forgotten``: the tombstone key given to ``open_turn`` is buried (the user was
    erased)."""

    stored_by: str | None = None
    known: bool = False
    timezone: str = "UTC"
    locale: str = "en_US"
    world_version: int = 0
    history: list[tuple[str, str]] = field(default_factory=list)
    forgotten: bool = False

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.timezone or "UTC")

    def earlier(self, n: int) -> list[tuple[str, str]]:
        """The last ``n`` turns before this message (the guard reads the message in their context)."""
        return self.history[-n:] if n > 0 else []


@cache
def _opening() -> Select[Any]:
    """The opening statement, built once with bound parameters (building it per message cost more CPU than the
    database took to answer it)."""
    user_id: BindParameter[str] = bindparam("user_id", type_=String())
    message_id: BindParameter[str] = bindparam("message_id", type_=String())
    tombstone: BindParameter[str] = bindparam("tombstone", type_=String())
    header = select(
        select(InboundMessage.user_id).where(InboundMessage.message_id == message_id).scalar_subquery().label("by"),
        select(User.id).where(User.id == user_id).scalar_subquery().label("known"),
        select(User.timezone).where(User.id == user_id).scalar_subquery().label("zone"),
        select(User.locale).where(User.id == user_id).scalar_subquery().label("locale"),
        select(WorldVersion.version).where(WorldVersion.user_id == user_id).scalar_subquery().label("version"),
        select(ForgottenUser.key).where(ForgottenUser.key == tombstone).scalar_subquery().label("buried"),
    ).subquery("opening")
    held = (bindparam("held_manipulation", type_=String()), bindparam("held_boundary", type_=String()))
    turns = open_conversation_turns(user_id, bindparam("at"), held)
    history = (
        select(turns.c.at, turns.c.ord, turns.c.role, turns.c.text)
        .order_by(turns.c.at.desc(), turns.c.ord.desc())
        .limit(HISTORY_LIMIT)
        .subquery("history")
    )
    return (
        select(header, history.c.role, history.c.text)
        .select_from(header.outerjoin(history, true()))
        .order_by(history.c.at.desc(), history.c.ord.desc())
    )


def open_turn(
    session: Session, user_id: str, message_id: str, at: datetime, tombstone: str | None = None
) -> TurnOpening:
    """The opening read of ``user_id``'s message ``message_id`` sent ``at``: one statement (see the module).
    ``tombstone``: the user's tombstone key (``models.erasure.tombstone_key``), to learn whether they were erased;
    without it ``forgotten`` is False (no key is empty)."""
    manipulation, boundary = (stand_in(hold, user_id) for hold in (Hold.MANIPULATION, Hold.BOUNDARY))
    params = {"user_id": user_id, "message_id": message_id, "at": at, "held_manipulation": manipulation,
              "held_boundary": boundary, "tombstone": tombstone or ""}  # fmt: skip
    rows = session.execute(_opening(), params).all()
    first = rows[0]
    return TurnOpening(
        stored_by=first.by,
        known=first.known is not None,
        timezone=first.zone or "UTC",
        locale=first.locale or "en_US",
        world_version=int(first.version or 0),
        history=[(row.role, row.text) for row in reversed(rows) if row.role is not None],
        forgotten=first.buried is not None,
    )

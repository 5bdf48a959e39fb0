"""Ella's self-log: what she said about her own life and world, kept apart from the world-fact ledger.

Why a table of its own: "I went to the loch last week" is something Ella said, not something true of her
world; in one store with the facts it would be retrieved as a fact. This module imports nothing of the
ledger and the ledger nothing of it, and the world brief is built from ledger rows only: the seed's two
hard rules (the self-log never writes to the ledger; the self-log never appears in the world brief) hold by
construction, and tests pin them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any, cast

from sqlalchemy import CursorResult, Float, ForeignKey, Index, String, Text, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from ella.provenance import Provenance
from models.base import Base, BigId, UTCDateTime, dialect_insert, utcnow
from models.provenance import Provenanced


class SelfLogEntry(Provenanced, Base):
    __tablename__ = "self_log"
    __table_args__ = (Index("ix_self_log_user_id_said_at", "user_id", "said_at"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    said_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    content: Mapped[str] = mapped_column(Text, comment="first person, in Ella's voice")
    about: Mapped[str] = mapped_column(Text, default="[]", comment="JSON list of topics; 'user' when about them")
    confidence_in_event: Mapped[float] = mapped_column(Float, default=1.0, comment="0 speculation .. 1 happened")
    sources: Mapped[str] = mapped_column(Text, default="[]", comment="JSON list: message ids, fact ids")
    dedupe_key: Mapped[str | None] = mapped_column(String(200), unique=True)

    @property
    def topics(self) -> list[str]:
        return list(json.loads(self.about or "[]"))

    def mentions_user(self) -> bool:
        """About the user: tagged so by the model, or speaking to them."""
        return "user" in {t.lower() for t in self.topics} or " you" in f" {self.content.lower()}"


def add_entries(
    session: Session,
    user_id: str,
    said_at: datetime,
    statements: Sequence[dict[str, Any]],
    source: str,
    made_by: Provenance | None = None,
) -> int:
    """Store a reply's first-person statements once (keyed by the source message and position), with the
    provenance of the reply call that said them (None: not recorded, stored as NULL)."""
    stored = 0
    insert = dialect_insert(session)
    for i, item in enumerate(statements):
        values = {
            "user_id": user_id,
            "said_at": said_at,
            "content": str(item["content"]),
            "about": json.dumps(list(item.get("about", []))),
            "confidence_in_event": float(item.get("confidence", 1.0)),
            "sources": json.dumps([source]),
            "dedupe_key": f"selflog:{source}:{i}",
            **(made_by.columns() if made_by is not None else {}),
        }
        stmt = insert(SelfLogEntry).values(**values).on_conflict_do_nothing(index_elements=["dedupe_key"])
        # An INSERT's result is a CursorResult (it has rowcount); Session.execute is typed for any statement.
        stored += cast("CursorResult[Any]", session.execute(stmt)).rowcount or 0
    return stored


def _entries(session: Session, user_id: str) -> Any:
    return select(SelfLogEntry).where(SelfLogEntry.user_id == user_id)


def recent_entries(session: Session, user_id: str, n: int = 5) -> list[SelfLogEntry]:
    """Use 1, the reply: the last few entries, oldest first, for tone continuity."""
    rows = session.scalars(
        _entries(session, user_id).order_by(SelfLogEntry.said_at.desc(), SelfLogEntry.id.desc()).limit(n)
    )
    return list(reversed(list(rows)))


def entries_about_user(session: Session, user_id: str, since: datetime) -> list[SelfLogEntry]:
    """Use 2, proactive messages: entries since ``since`` that mention the user."""
    rows = session.scalars(
        _entries(session, user_id).where(SelfLogEntry.said_at >= since).order_by(SelfLogEntry.said_at)
    )
    return [row for row in rows if row.mentions_user()]


def all_entries(session: Session, user_id: str) -> list[SelfLogEntry]:
    """Use 3, distillation: all of it, oldest first."""
    return list(session.scalars(_entries(session, user_id).order_by(SelfLogEntry.said_at, SelfLogEntry.id)))

"""Notification candidates: what Ella might say on her own, what grounds it, and what became of it.

Why a row per candidate with a hard ``fresh_until``: a notification that brings up a stale event breaks trust at
once (addendum, section 5), so every candidate carries the moment after which it is dead, whatever else
happens; its status says what became of it (``candidate`` / ``sent`` / ``skipped`` / ``expired``) and
``reason`` says why. ``based_on`` names the world facts and self-log entries it rests on (empty only for a
generic check-in), so an auditor can tell a grounded message from a generic one. ``dedupe_key`` makes the same
follow-up impossible to make twice; ``not_before`` is when the dispatcher looks at a held candidate again, so a
dispatch pass reads only due candidates, through the partial index, and never every user.
"""

from __future__ import annotations

import json
from datetime import datetime

from sqlalchemy import CheckConstraint, ForeignKey, Index, String, Text, text
from sqlalchemy.orm import Mapped, mapped_column

from models.base import Base, BigId, UTCDateTime, utcnow


class NotificationCandidate(Base):
    __tablename__ = "notification_candidates"
    __table_args__ = (
        CheckConstraint("kind IN ('followup', 'digest', 'generic')", name="kind_known"),
        CheckConstraint("status IN ('candidate', 'sent', 'skipped', 'expired')", name="status_known"),
        Index(
            "ix_notification_candidates_due",
            "not_before",
            sqlite_where=text("status = 'candidate'"),
            postgresql_where=text("status = 'candidate'"),
        ),
        Index("ix_notification_candidates_user_id_created_at", "user_id", "created_at"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(16), comment="followup | digest | generic")
    body: Mapped[str] = mapped_column(Text, comment="1-2 sentences in Ella's voice, checked by the outbound guard")
    based_on: Mapped[str] = mapped_column(
        Text, default='{"facts": [], "self_log": []}', comment="JSON: world fact ids and self-log ids"
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    fresh_until: Mapped[datetime] = mapped_column(UTCDateTime(), comment="hard expiry: never sent after this")
    not_before: Mapped[datetime] = mapped_column(UTCDateTime(), comment="the dispatcher looks again from here")
    status: Mapped[str] = mapped_column(String(16), default="candidate")
    reason: Mapped[str | None] = mapped_column(String(300), comment="why skipped, expired, or last held back")
    sent_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    outbox_record_id: Mapped[int | None] = mapped_column(
        ForeignKey("outbox_records.id", ondelete="SET NULL"), unique=True
    )
    dedupe_key: Mapped[str] = mapped_column(String(200), unique=True)

    @property
    def fact_ids(self) -> list[int]:
        return [int(i) for i in json.loads(self.based_on).get("facts", [])]

    @property
    def self_log_ids(self) -> list[int]:
        return [int(i) for i in json.loads(self.based_on).get("self_log", [])]


def based_on_json(fact_ids: list[int], self_log_ids: list[int]) -> str:
    return json.dumps({"facts": sorted(fact_ids), "self_log": sorted(self_log_ids)})

"""The index of image anchors: one row per version of an entity's picture for one user, the bytes elsewhere.

Why in the database and not the seed's ``index.json``: many workers reference anchors at once, and two of them
must not both decide they are first. One current anchor per user and entity is a partial unique index
(``superseded_at IS NULL``), versions are unique per (user, entity); the bytes live in the content-addressed
store (``ella.world.images.ContentStore``) under the ``sha256`` kept here. A redraw marks the old version
superseded and inserts the next one in one transaction; the old row stays.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any, cast

from sqlalchemy import CursorResult, ForeignKey, Index, String, Text, UniqueConstraint, and_, select, text, update
from sqlalchemy.orm import Mapped, Session, aliased, mapped_column

from ella.ledger.rules import LIVE
from ella.world.images import ImageAnchor, Successor
from models.base import Base, BigId, UTCDateTime, utcnow
from models.ledger import WorldFact

CURRENT_SQL = "superseded_at IS NULL"


class ImageAnchorRow(Base):
    __tablename__ = "image_anchors"
    __table_args__ = (
        UniqueConstraint("user_id", "entity", "version"),
        Index(
            "uq_image_anchors_current",
            "user_id",
            "entity",
            unique=True,
            postgresql_where=text(CURRENT_SQL),
            sqlite_where=text(CURRENT_SQL),
        ),
        Index("ix_image_anchors_sha256", "sha256"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    entity: Mapped[str] = mapped_column(String(120), comment="what the picture shows: loch, cottage_door")
    version: Mapped[int] = mapped_column(comment="1 for the first render, +1 per canon redraw")
    sha256: Mapped[str] = mapped_column(String(64), comment="the bytes' file name in the image store")
    prompt: Mapped[str] = mapped_column(Text)
    fact_id: Mapped[int | None] = mapped_column(
        ForeignKey("world_facts.id", ondelete="SET NULL"), comment="the ledger fact it was drawn from"
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    superseded_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), comment="set when a canon redraw replaced it")
    shown_at: Mapped[datetime | None] = mapped_column(
        UTCDateTime(), comment="when a reply first carried its reference to the gateway"
    )

    def as_anchor(self) -> ImageAnchor:
        return ImageAnchor(self.user_id, self.entity, self.version, self.sha256, self.prompt, self.fact_id,
                           self.created_at, self.superseded_at)  # fmt: skip


def current(session: Session, user_id: str, entity: str) -> tuple[ImageAnchor, Successor | None] | None:
    """The current anchor of (user, entity) and the successor of the fact it was drawn from, in one query.

    The successor is the live fact of that fact's chain when it is another fact (a supersession happened):
    primary-key lookups and the chain's partial unique index, no scan.
    """
    drawn, live = aliased(WorldFact), aliased(WorldFact)
    row = session.execute(
        select(ImageAnchorRow, live.id, live.tier)
        .outerjoin(drawn, drawn.id == ImageAnchorRow.fact_id)
        .outerjoin(
            live,
            and_(live.chain == drawn.chain, live.status.in_([s.value for s in LIVE]), live.id != drawn.id),
        )
        .where(
            ImageAnchorRow.user_id == user_id,
            ImageAnchorRow.entity == entity,
            ImageAnchorRow.superseded_at.is_(None),
        )
    ).first()
    if row is None:
        return None
    anchor, live_id, live_tier = row
    return anchor.as_anchor(), (Successor(live_id, live_tier) if live_id is not None else None)


def insert_version(
    session: Session,
    user_id: str,
    entity: str,
    version: int,
    sha256: str,
    prompt: str,
    fact_id: int | None,
    now: datetime,
) -> ImageAnchor:
    """Insert a version (flushed: a concurrent first or redraw of the same entity raises IntegrityError)."""
    row = ImageAnchorRow(user_id=user_id, entity=entity, version=version, sha256=sha256, prompt=prompt,
                         fact_id=fact_id, created_at=now)  # fmt: skip
    session.add(row)
    session.flush()
    return row.as_anchor()


def supersede(session: Session, user_id: str, entity: str, version: int, now: datetime) -> bool:
    """Mark ``version`` no longer current (the row is kept); False when it was not the current one."""
    stmt = (
        update(ImageAnchorRow)
        .where(
            ImageAnchorRow.user_id == user_id,
            ImageAnchorRow.entity == entity,
            ImageAnchorRow.version == version,
            ImageAnchorRow.superseded_at.is_(None),
        )
        .values(superseded_at=now)
    )
    return bool(cast("CursorResult[Any]", session.execute(stmt)).rowcount)


def all_versions(session: Session, user_id: str) -> list[ImageAnchor]:
    """Every version of every entity of the user, by entity then version (what ``ella world show`` lists)."""
    rows = session.scalars(
        select(ImageAnchorRow)
        .where(ImageAnchorRow.user_id == user_id)
        .order_by(ImageAnchorRow.entity, ImageAnchorRow.version)
    )
    return [row.as_anchor() for row in rows]


def hashes_of(session: Session, user_id: str) -> set[str]:
    """The sha256 of every version of the user's anchors (read before erasure deletes the rows)."""
    return set(session.scalars(select(ImageAnchorRow.sha256).where(ImageAnchorRow.user_id == user_id)))


def entities_of(session: Session, user_id: str) -> set[str]:
    """Every entity the user's world has a picture of (any version): what the cap on new things counts."""
    return set(session.scalars(select(ImageAnchorRow.entity).where(ImageAnchorRow.user_id == user_id).distinct()))


def referenced(session: Session, hashes: Iterable[str]) -> set[str]:
    """Which of ``hashes`` some anchor row (of any user) still points at."""
    wanted = sorted(set(hashes))
    if not wanted:
        return set()
    return set(session.scalars(select(ImageAnchorRow.sha256).where(ImageAnchorRow.sha256.in_(wanted)).distinct()))


def show_unshown(session: Session, user_id: str, entities: Sequence[str], now: datetime) -> list[ImageAnchorRow]:
    """The current pictures of these entities the gateway has not been given yet, marked given (in the caller's
    transaction: the reply that carries them commits with the mark, so each picture goes out once)."""
    if not entities:
        return []
    rows = list(
        session.scalars(
            select(ImageAnchorRow)
            .where(
                ImageAnchorRow.user_id == user_id,
                ImageAnchorRow.entity.in_(list(entities)),
                ImageAnchorRow.superseded_at.is_(None),
                ImageAnchorRow.shown_at.is_(None),
            )
            .order_by(ImageAnchorRow.id)
            .with_for_update()
        )
    )
    for row in rows:
        row.shown_at = now
    return rows

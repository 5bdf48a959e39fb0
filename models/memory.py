"""Ella's memory stream: one row per event, chat or thought, per user (Generative Agents' ConceptNode).

Why these columns: retrieval scores every node of a user by recency (``last_accessed_at``), importance
(``poignancy``) and relevance (``embedding`` and ``description``), so they live on the row; a thought cites
the nodes it rests on (``evidence``) and sits one level above the deepest of them (``depth``); ``dedupe_key``
makes every writer idempotent (a redelivered task inserts nothing twice). ``expires_at`` is a plan's staleness
(``ella.memory.plans``), and ``quarantine`` holds a refused turn out of every prompt: each loader here that feeds
a model selects ``shown_to_model()`` rows only (``ella.memory.quarantine``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from functools import lru_cache
from typing import Any, NamedTuple

from sqlalchemy import (
    BigInteger,
    ColumnElement,
    ForeignKey,
    Index,
    LargeBinary,
    SmallInteger,
    String,
    Text,
    UniqueConstraint,
    and_,
    bindparam,
    func,
    or_,
    select,
    update,
)
from sqlalchemy.orm import Mapped, Session, mapped_column

from ella.memory import vectors
from ella.memory.plans import PLAN_KEY_PREFIX, about_event
from ella.memory.quarantine import Hold
from ella.memory.retrieval import NodeRow
from ella.memory_pages import Changed
from models.base import BINARY_RESULTS, Base, BigId, UTCDateTime, dialect_insert, table_of, utcnow
from models.memory_changes import note_changed
from models.provenance import Provenanced, in_prompts, prompt_engine
from models.user import User

NODE_TYPES = ("event", "chat", "thought")
PARTITION = re.compile(r"memory_nodes_p\d+")
"""The partitions of ``memory_nodes`` on PostgreSQL (migration 0023): tables of the database, not of the models."""


def not_a_partition(name: str | None, type_: str, parent_names: Mapping[str, str | None]) -> bool:
    """Alembic's ``include_name``: compare the models with the partitioned table, not with each partition."""
    return not (type_ == "table" and name is not None and PARTITION.fullmatch(name))


class MemoryNode(Provenanced, Base):
    __tablename__ = "memory_nodes"
    __table_args__ = (
        Index("ix_memory_nodes_user_id_created_at", "user_id", "created_at"),
        Index("ix_memory_nodes_user_id_node_type_created_at", "user_id", "node_type", "created_at"),
        # The per-process retrieval cache (adapters/memory_cache.py) asks, per retrieval, for the user's newest
        # node and nodes after an id (index ranges) and nodes accessed since a time (the user's rows of one
        # partition: see ``stream_changes``).
        Index("ix_memory_nodes_user_id_id", "user_id", "id"),
        # Unique within the user (on PostgreSQL, within the user's partition: a unique index of a partitioned
        # table must hold the partition key). ``last_accessed_at`` is in no index, so a touch is a HOT update.
        UniqueConstraint("user_id", "dedupe_key"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    node_type: Mapped[str] = mapped_column(String(8), comment="event | chat | thought")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    last_accessed_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    subject: Mapped[str] = mapped_column(String(200))
    predicate: Mapped[str] = mapped_column(String(120))
    object: Mapped[str] = mapped_column(String(400))
    description: Mapped[str] = mapped_column(Text)
    stored_embedding: Mapped[bytes] = mapped_column(
        "embedding", LargeBinary, comment="L2-normalised, in embedding_format (ella.memory.vectors)"
    )
    embedding_format: Mapped[str] = mapped_column(
        String(8), server_default=vectors.FLOAT32, comment="f16 | f32 (rows stored before 0023)"
    )
    embedding_model: Mapped[str] = mapped_column(String(64))
    poignancy: Mapped[int] = mapped_column(SmallInteger)
    keywords: Mapped[str] = mapped_column(Text, default="[]", comment="JSON list")
    depth: Mapped[int] = mapped_column(SmallInteger, default=0)
    evidence: Mapped[str] = mapped_column(Text, default="[]", comment="JSON: node ids, or a chat's transcript")
    source_message_id: Mapped[str | None] = mapped_column(String(200))
    conversation_id: Mapped[int | None] = mapped_column(ForeignKey("conversations.id", ondelete="SET NULL"))
    dedupe_key: Mapped[str | None] = mapped_column(String(200))
    quarantine: Mapped[str | None] = mapped_column(
        String(16), comment="manipulation: kept for the record, never in a prompt | boundary (ella.memory.quarantine)"
    )

    @property
    def embedding(self) -> bytes:
        """The vector as float32 bytes, whatever format the row holds (``ella.memory.vectors``)."""
        return vectors.unpack(self.stored_embedding, self.embedding_format)

    @embedding.setter
    def embedding(self, vector: bytes) -> None:
        self.stored_embedding, self.embedding_format = vectors.pack(vector)


def stored_vector(values: dict[str, Any]) -> dict[str, Any]:
    """A node's columns (``embedding`` as float32 bytes, as ``ella.memory.nodes`` builds them) as the row stores
    them: the vector packed, its format beside it."""
    out = dict(values)
    if "embedding" in out:
        out["embedding"], out["embedding_format"] = vectors.pack(out["embedding"])
    return out


def shown_to_model() -> ColumnElement[bool]:
    """The nodes a prompt may show: not held for manipulation (``ella.memory.quarantine``). Every loader that feeds
    a model (retrieval, reflection, chapters, the digest) filters on it; operators' views do not."""
    return and_(
        or_(MemoryNode.quarantine.is_(None), MemoryNode.quarantine != Hold.MANIPULATION.value),
        in_prompts(MemoryNode),  # and, under a model, no thought the offline engine made (ella.provenance)
    )


def recent_descriptions(session: Session, user_id: str, node_type: str, n: int) -> list[str]:
    """The descriptions of the user's last ``n`` nodes of a type (a repeat of one is not stored again)."""
    return list(
        session.scalars(
            select(MemoryNode.description)
            .where(MemoryNode.user_id == user_id, MemoryNode.node_type == node_type)
            .order_by(MemoryNode.created_at.desc(), MemoryNode.id.desc())
            .limit(n)
        )
    )


def insert_node(session: Session, values: dict[str, Any]) -> int | None:
    """Insert a node unless its ``dedupe_key`` exists; its id, or None for a duplicate.

    A new node a product lists (any but a held one) is announced in the same transaction (``memory_changed``,
    ``models.memory_changes``); a duplicate, a redelivery's insert, announces nothing."""
    insert = dialect_insert(session)(MemoryNode.__table__).values(**stored_vector(values))
    conflict = insert.on_conflict_do_nothing(index_elements=["user_id", "dedupe_key"])
    node_id: int | None = session.scalar(conflict.returning(MemoryNode.__table__.c.id))
    if node_id is not None and values.get("quarantine") is None:
        kind = "thought" if values.get("node_type") == "thought" else "memory"
        note_changed(session, values["user_id"], "added", [Changed(kind, node_id, values.get("description"))])
    return node_id


def drain_importance(session: Session, user_id: str, poignancy: int) -> int | None:
    """Lower the user's reflection trigger by ``poignancy`` in one statement; return the new value (None when
    the user has no row, which the caller treats as "nothing to trigger").

    One UPDATE ... RETURNING, so two perceives at once both land: neither reads a value the other is about to
    overwrite.
    """
    # on the table: the ORM's bulk update took 0.79-0.85 ms of CPU a call with its commit, this 0.57-0.60 (PostgreSQL)
    users = table_of(User)
    counter = users.c.importance_trigger_curr
    drained = update(users).where(users.c.id == user_id).values(importance_trigger_curr=counter - poignancy)
    remaining: int | None = session.scalar(drained.returning(counter))
    return remaining


def user_nodes(session: Session, user_id: str, node_types: Sequence[str] = NODE_TYPES) -> list[MemoryNode]:
    """Every node of the user of these types, in (conversation, created) order for the context signal."""
    return list(
        session.scalars(
            select(MemoryNode)
            .where(MemoryNode.user_id == user_id, MemoryNode.node_type.in_(node_types), shown_to_model())
            .order_by(MemoryNode.conversation_id, MemoryNode.created_at, MemoryNode.id)
        )
    )


_ROW_COLUMNS = (
    MemoryNode.id,
    MemoryNode.node_type,
    MemoryNode.description,
    MemoryNode.stored_embedding,
    MemoryNode.embedding_model,
    MemoryNode.created_at,
    MemoryNode.last_accessed_at,
    MemoryNode.expires_at,
    MemoryNode.poignancy,
    MemoryNode.depth,
    MemoryNode.conversation_id,
)


def node_rows(session: Session, user_id: str, after_id: int = 0) -> list[NodeRow]:
    """The user's nodes with an id above ``after_id``, ids ascending, as plain rows (no ORM objects: building
    100,000 of them costs more than reading them), in PostgreSQL's binary protocol (``BINARY_RESULTS``): a cold
    load of a long history is a read a reply waits on."""
    rows = session.execute(
        select(*_ROW_COLUMNS, MemoryNode.embedding_format)
        .where(MemoryNode.user_id == user_id, MemoryNode.id > after_id, shown_to_model())
        .order_by(MemoryNode.id),
        execution_options=BINARY_RESULTS,
    ).all()
    return _node_rows(rows)


def _node_rows(rows: Sequence[Any]) -> list[NodeRow]:
    """Rows of ``_ROW_COLUMNS`` and the vector's format as ``NodeRow``s, every vector widened in one batch."""
    wide = vectors.unpack_many([r[3] for r in rows], [r[11] for r in rows])
    return [
        NodeRow(r[0], r[1], r[2], vector, r[4], r[5], r[6], r[7], r[8], r[9], r[10])
        for r, vector in zip(rows, wide, strict=True)
    ]


def current_epoch(session: Session, user_id: str) -> int:
    """The user's ``memory_epoch`` (0 for a user without a row): what a freshly built retrieval index is of."""
    return int(session.scalar(select(User.memory_epoch).where(User.id == user_id)) or 0)


class StreamChanges(NamedTuple):
    """What changed in a user's stream since a cache last looked (``stream_changes``)."""

    newest: int | None  # the newest node id a prompt may show; None: the user has no such node
    touched: list[tuple[int, datetime]]  # (id, last access) of the nodes accessed at or after ``since``
    epoch: int  # the user's ``memory_epoch`` (0 without a row)
    new_rows: list[NodeRow]  # the nodes after ``after_id``, ids ascending


def stream_changes(
    session: Session, user_id: str, since: datetime | None, after_id: int | None = None
) -> StreamChanges:
    """The user's newest node id, the nodes accessed at or after ``since``, the user's ``memory_epoch`` (raised by
    every forget of one memory, which deletes from the middle of the stream: a cache that only looks at the newest
    id would keep the forgotten node) and, with ``after_id``, the nodes after it, whole: in one round trip.

    Why one statement: on a warm retrieval this is all the database work, and each round trip costs more than the
    ranking's arithmetic at 10,000 memories; the nodes a turn's memory task added since the last reply used to be
    a second read on every reply (issue 35). The newest node is one of the rows (it matches ``id = max(id)``), so
    an empty result means the user has no nodes. The newest id and the new nodes are ranges of the index
    (user_id, id); "accessed since" reads the user's rows of their partition: ``last_accessed_at`` is in no index
    since migration 0023, so that touching a memory is a HOT update instead of a new entry in every index (README,
    "Memory at scale", has the measured trade).
    """
    params = {"b_user_id": user_id, "b_since": since, "b_after_id": after_id}
    # the statement depends on the process's prompt engine (``shown_to_model``), so that is part of its cache key
    rows = session.execute(_changes(since is not None, after_id is not None, prompt_engine()), params).all()
    if not rows:
        return StreamChanges(None, [], 0, [])
    touched = [(row.id, row.last_accessed_at) for row in rows if since is not None and row.last_accessed_at >= since]
    new_rows = _node_rows([row for row in rows if after_id is not None and row.id > after_id])
    return StreamChanges(rows[0].newest, touched, int(rows[0].epoch or 0), new_rows)


@lru_cache(maxsize=16)
def _changes(since: bool, after: bool, engine: str | None) -> Any:
    """``stream_changes``'s statement, built once per shape and prompt engine (``engine``: what ``shown_to_model``
    reads now) with bound parameters: building it per reply cost more CPU than PostgreSQL took to answer it."""
    user_id = bindparam("b_user_id", type_=String())
    # the newest node a prompt may show: a held node is never in the index, so it must not count as new either
    newest = select(func.max(MemoryNode.id)).where(MemoryNode.user_id == user_id, shown_to_model()).scalar_subquery()
    matches = MemoryNode.id == newest
    if since:
        matches = or_(matches, MemoryNode.last_accessed_at >= bindparam("b_since", type_=UTCDateTime()))
    if after:
        matches = or_(matches, MemoryNode.id > bindparam("b_after_id", type_=BigInteger()))
    epoch = select(User.memory_epoch).where(User.id == user_id).scalar_subquery()
    return (
        select(*_ROW_COLUMNS, MemoryNode.embedding_format, newest.label("newest"), epoch.label("epoch"))
        .where(MemoryNode.user_id == user_id, matches, shown_to_model())
        .order_by(MemoryNode.id)
    )


def nodes_of_other_models(session: Session, model_id: str, after_id: int, limit: int) -> list[tuple[int, str]]:
    """``(id, description)`` of up to ``limit`` nodes (any user) whose vector is not of ``model_id``, with an id
    above ``after_id``, ids ascending: one page of a re-embedding."""
    rows = session.execute(
        select(MemoryNode.id, MemoryNode.description)
        .where(MemoryNode.id > after_id, MemoryNode.embedding_model != model_id)
        .order_by(MemoryNode.id)
        .limit(limit)
    )
    return [(node_id, text) for node_id, text in rows]


def count_other_models(session: Session, model_id: str) -> int:
    """How many nodes hold a vector of another model than ``model_id``."""
    return int(session.scalar(select(func.count()).where(MemoryNode.embedding_model != model_id)) or 0)


def set_embeddings(session: Session, new_vectors: Sequence[tuple[int, bytes]], model_id: str) -> None:
    """Replace nodes' vectors with ``model_id``'s (the description, and so the meaning, is unchanged)."""
    for node_id, blob in new_vectors:
        stored, fmt = vectors.pack(blob)
        session.execute(
            update(MemoryNode)
            .where(MemoryNode.id == node_id)
            .values(stored_embedding=stored, embedding_format=fmt, embedding_model=model_id)
        )


def recent_nodes(session: Session, user_id: str, n: int) -> list[MemoryNode]:
    """The user's ``n`` most recent non-idle events and thoughts, newest first (the reflection's input)."""
    return list(
        session.scalars(
            select(MemoryNode)
            .where(
                MemoryNode.user_id == user_id,
                MemoryNode.node_type.in_(("event", "thought")),
                MemoryNode.object != "idle",
                shown_to_model(),
            )
            .order_by(MemoryNode.created_at.desc(), MemoryNode.id.desc())
            .limit(n)
        )
    )


def mark_accessed(session: Session, node_ids: Sequence[int], at: datetime, user_id: str | None = None) -> None:
    """Set the last access of retrieved nodes (recency counts from the last time a memory was used); never back:
    a late mark (a turn's memory task runs after the turn, ``tasks.memory.perceive``) leaves a later one.

    ``last_accessed_at`` is in no index and the table keeps free room in each page (fillfactor, migration 0023),
    so on PostgreSQL a touch is a HOT update: one new tuple in the same page, no index entry. With ``user_id``
    (the ids come from a task's payload) the update reads only the user's partition; without it, each
    partition's primary key (``id`` first)."""
    if node_ids:
        # on the table: the ORM's bulk update (which looks for the nodes among the session's objects: no caller's
        # session holds them) took 0.88-0.93 ms of CPU for 8 ids with its commit, this 0.63-0.69 (PostgreSQL)
        nodes = table_of(MemoryNode)
        mine = [nodes.c.user_id == user_id] if user_id is not None else []
        where = [*mine, nodes.c.id.in_(node_ids), nodes.c.last_accessed_at < at]
        session.execute(update(nodes).where(*where).values(last_accessed_at=at))


def expire_plans_before(session: Session, user_id: str, started_at: datetime, closed_at: datetime) -> int:
    """A conversation that started at ``started_at`` closed at ``closed_at``: the user's undated plans made before
    it began were for it ("next time"), so their moment has passed (``ella.memory.plans``). Dated plans keep
    their own day. Idempotent: a redelivered close finds nothing left to expire."""
    result = session.execute(
        update(MemoryNode)
        .where(
            MemoryNode.user_id == user_id,
            MemoryNode.node_type == "thought",
            MemoryNode.dedupe_key.like(f"{PLAN_KEY_PREFIX}%"),
            MemoryNode.expires_at.is_(None),
            MemoryNode.created_at < started_at,
        )
        .values(expires_at=closed_at)
    )
    return int(getattr(result, "rowcount", 0) or 0)


def expire_plans_about(session: Session, user_id: str, event: str, at: datetime) -> int:
    """The user's live plans that follow up on ``event`` (a fact just retired because it happened) expire at
    ``at``: the outcome is told (``ella.memory.plans.about_event``). The number expired."""
    live = session.execute(
        select(MemoryNode.id, MemoryNode.description).where(
            MemoryNode.user_id == user_id,
            MemoryNode.node_type == "thought",
            MemoryNode.dedupe_key.like(f"{PLAN_KEY_PREFIX}%"),
            or_(MemoryNode.expires_at.is_(None), MemoryNode.expires_at > at),
            MemoryNode.created_at <= at,
        )
    ).all()
    stale = [node_id for node_id, description in live if about_event(description, event)]
    if stale:
        session.execute(update(MemoryNode).where(MemoryNode.id.in_(stale)).values(expires_at=at))
    return len(stale)

"""The right to be forgotten: every table's part in erasing one user, and the tombstone that keeps them erased.

Why a registry: stores are added issue by issue (digests, chapters, arcs, a lazy world's watermarks, image
anchors), and an erasure that lists tables by hand forgets the next one silently. Here every table of
``Base.metadata`` must be accounted for before anything is erased: a table with a ``user_id`` column is erased
by it unless it registers its own eraser (``register_table``), a table without one must either register an
eraser or say why it holds nothing of a user (``keep_table``). ``unaccounted_tables`` names the rest, and
``erase_user_rows`` refuses to run while there are any (``tests/test_forget_user.py`` plants a canary in every
table and fails on a new one it does not know). Stores outside the database (Redis keys, the outbox stream,
log files) register themselves with ``register_store``: the module that owns the store calls it at import.

Why a tombstone, and why a keyed hash: a message or profile update the gateway sent before the erasure can
arrive after it (a broker redelivery, the inbox's re-send, a gateway retry); without a record it would create
the user again. The tombstone holds HMAC-SHA256(secret, user id) and the time, no user data: without the
secret (``ELLA_FORGET_HMAC_KEY``) nobody can tell whose it is, nor test a guessed id against it.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, cast

from sqlalchemy import CursorResult, Delete, String, Table, delete, or_, select, update
from sqlalchemy.orm import Mapped, Session, mapped_column

from models.base import Base, UTCDateTime, dialect_insert, utcnow
from models.dead_letter import DeadLetter
from models.images import hashes_of as image_hashes_of
from models.memory import MemoryNode
from models.message import InboundMessage
from models.notifications import NotificationCandidate
from models.outbox import OutboxRecord
from models.selflog import SelfLogEntry
from models.user import User


class ForgottenUser(Base):
    """An erased user's tombstone: the keyed hash of their id, and, until the second pass is done, the id.

    Why the id for a while: the second pass (``tasks.privacy``) must find what tasks in flight wrote, by the id,
    and it must run even when the broker lost its countdown task (a Redis restart without AOF, a kill within
    the fsync second): the row is what ``ella.forget_users_again`` (beat) sweeps. The pass clears the id; the
    countdown task carries only the key, so no task message in Redis names the user.
    """

    __tablename__ = "forgotten_users"

    key: Mapped[str] = mapped_column(String(64), primary_key=True, comment="HMAC-SHA256(secret, user id), hex")
    forgotten_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    pending_user_id: Mapped[str | None] = mapped_column(
        String(128), nullable=True, comment="the erased id, only until the second pass is done"
    )
    first_task_id: Mapped[str | None] = mapped_column(
        String(255), nullable=True, comment="the first pass's Celery task id: the second pass's ack names it"
    )
    second_pass_due_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    second_pass_done_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)


def tombstone_key(user_id: str, secret: str) -> str:
    """The tombstone's key of ``user_id``: HMAC-SHA256 with the configured secret, hex."""
    message = user_id.encode("utf-8", "surrogatepass")
    return hmac.new(secret.encode("utf-8"), message, hashlib.sha256).hexdigest()


def bury(session: Session, key: str) -> None:
    """Write the tombstone (once: a second erasure of the same user keeps the first time)."""
    insert = dialect_insert(session)
    session.execute(
        insert(ForgottenUser).values(key=key, forgotten_at=utcnow()).on_conflict_do_nothing(index_elements=["key"])
    )


def owe_second_pass(session: Session, key: str, user_id: str, due_at: datetime, first_task_id: str | None) -> None:
    """Record that the tombstone's user is owed a second pass at ``due_at`` (a new first pass owes a new one)."""
    session.execute(
        update(ForgottenUser)
        .where(ForgottenUser.key == key)
        .values(
            pending_user_id=user_id, first_task_id=first_task_id, second_pass_due_at=due_at, second_pass_done_at=None
        )
    )


@dataclass(frozen=True)
class OwedPass:
    key: str
    user_id: str
    first_task_id: str | None


def owed_pass(session: Session, key: str) -> OwedPass | None:
    """The second pass the tombstone ``key`` is owed, if it is owed one."""
    row = session.execute(
        select(ForgottenUser.pending_user_id, ForgottenUser.first_task_id).where(ForgottenUser.key == key)
    ).first()
    return OwedPass(key, row[0], row[1]) if row is not None and row[0] is not None else None


def due_passes(session: Session, now: datetime, limit: int) -> list[OwedPass]:
    """Second passes due by ``now``, oldest first."""
    rows = session.execute(
        select(ForgottenUser.key, ForgottenUser.pending_user_id, ForgottenUser.first_task_id)
        .where(ForgottenUser.pending_user_id.is_not(None), ForgottenUser.second_pass_due_at <= now)
        .order_by(ForgottenUser.second_pass_due_at)
        .limit(limit)
    ).all()
    return [OwedPass(key, user_id, task_id) for key, user_id, task_id in rows if user_id is not None]


def second_pass_done(session: Session, key: str) -> bool:
    """Clear the id from the tombstone: the erasure is complete. False when another pass had cleared it."""
    stmt = (
        update(ForgottenUser)
        .where(ForgottenUser.key == key, ForgottenUser.pending_user_id.is_not(None))
        .values(pending_user_id=None, first_task_id=None, second_pass_done_at=utcnow())
    )
    return bool(cast("CursorResult[Any]", session.execute(stmt)).rowcount)


def is_forgotten(session: Session, key: str) -> bool:
    """Whether the user with this tombstone key was erased."""
    return session.scalar(select(ForgottenUser.key).where(ForgottenUser.key == key)) is not None


@dataclass
class Traces:
    """What the stores outside the database are keyed by, read from the user's rows before they go.

    ``outbox_uids``: the publish markers in Redis; ``message_ids``: the inbox; ``texts``: anything a store
    keyed by a text's hash may hold; ``image_hashes``: the image store's files of the user's anchors.
    """

    user_id: str
    outbox_uids: set[str] = field(default_factory=set)
    message_ids: set[str] = field(default_factory=set)
    texts: set[str] = field(default_factory=set)
    image_hashes: set[str] = field(default_factory=set)


def collect_traces(session: Session, user_id: str) -> Traces:
    """The keys the user's rows lead to in other stores (read before ``erase_user_rows``)."""
    traces = Traces(user_id)
    traces.outbox_uids.update(session.scalars(select(OutboxRecord.uid).where(OutboxRecord.user_id == user_id)))
    traces.message_ids.update(
        session.scalars(select(InboundMessage.message_id).where(InboundMessage.user_id == user_id))
    )
    for column, owner in (
        (InboundMessage.text, InboundMessage.user_id),
        (MemoryNode.description, MemoryNode.user_id),
        (OutboxRecord.text, OutboxRecord.user_id),
        (SelfLogEntry.content, SelfLogEntry.user_id),
        (NotificationCandidate.body, NotificationCandidate.user_id),
    ):
        traces.texts.update(session.scalars(select(column).where(owner == user_id)))
    traces.image_hashes.update(image_hashes_of(session, user_id))
    return traces


TableEraser = Callable[[Session, str], int]
StoreEraser = Callable[[Traces], int]

_TABLE_ERASERS: dict[str, TableEraser] = {}
_KEPT_TABLES: dict[str, str] = {}
_STORE_ERASERS: dict[str, StoreEraser] = {}


def register_table(table: str) -> Callable[[TableEraser], TableEraser]:
    """Decorator: ``eraser(session, user_id) -> rows deleted`` erases ``table``'s rows of a user."""

    def register(eraser: TableEraser) -> TableEraser:
        _TABLE_ERASERS[table] = eraser
        return eraser

    return register


def keep_table(table: str, why: str) -> None:
    """``table`` holds nothing that identifies a user (``why`` says so); erasure leaves it alone."""
    _KEPT_TABLES[table] = why


def register_store(name: str) -> Callable[[StoreEraser], StoreEraser]:
    """Decorator: ``eraser(traces) -> items removed`` erases a store outside the database (Redis, files).

    It runs after the tombstone and the rows are gone, and again in the second pass; it must be idempotent.
    """

    def register(eraser: StoreEraser) -> StoreEraser:
        _STORE_ERASERS[name] = eraser
        return eraser

    return register


def store_erasers() -> dict[str, StoreEraser]:
    return dict(_STORE_ERASERS)


def kept_tables() -> dict[str, str]:
    return dict(_KEPT_TABLES)


def _by_user_id(table: Table) -> TableEraser:
    def erase(session: Session, user_id: str) -> int:
        return _count(session, delete(table).where(table.c.user_id == user_id))

    return erase


def table_erasers() -> dict[str, TableEraser]:
    """Every table's eraser, children before parents: registered ones, else by the ``user_id`` column."""
    out: dict[str, TableEraser] = {}
    for table in reversed(Base.metadata.sorted_tables):
        if table.name in _TABLE_ERASERS:
            out[table.name] = _TABLE_ERASERS[table.name]
        elif table.name not in _KEPT_TABLES and "user_id" in table.c:
            out[table.name] = _by_user_id(table)
    return out


def unaccounted_tables() -> list[str]:
    """Tables neither erased nor kept with a reason: erasure refuses to run while there are any."""
    erased = table_erasers()
    return sorted(t.name for t in Base.metadata.sorted_tables if t.name not in erased and t.name not in _KEPT_TABLES)


class UnaccountedTable(RuntimeError):
    """A table that erasure does not know: register an eraser for it, or ``keep_table`` it with a reason."""


def _count(session: Session, stmt: Delete) -> int:
    # A DELETE's result is a CursorResult (it has rowcount); Session.execute is typed for any statement.
    return cast("CursorResult[Any]", session.execute(stmt)).rowcount or 0


def lock_user(session: Session, user_id: str) -> None:
    """Take the user's row lock as ingest does (an upsert), so an ingest transaction in flight commits first.

    Why an upsert and not ``SELECT ... FOR UPDATE``: a first message's INSERT is invisible until it commits, so
    a plain select would not wait for it; the upsert waits on its unique key. The row goes with the rest.
    """
    insert = dialect_insert(session)
    new = insert(User).values(id=user_id)
    session.execute(new.on_conflict_do_update(index_elements=["id"], set_={"id": new.excluded.id}))


def erase_user_rows(session: Session, user_id: str) -> dict[str, int]:
    """Delete every row of the user, table by table (children first); rows deleted per table.

    The caller wrote the tombstone in an earlier, committed transaction. The user's row lock is taken first,
    so an ingest that locked the user before it waits for that ingest to commit and then deletes its rows too.
    """
    missing = unaccounted_tables()
    if missing:
        raise UnaccountedTable(f"no eraser and no reason to keep: {', '.join(missing)}")
    existed = session.scalar(select(User.id).where(User.id == user_id)) is not None
    lock_user(session, user_id)
    counts = {name: eraser(session, user_id) for name, eraser in table_erasers().items()}
    if not existed:
        counts["users"] = 0  # the row ``lock_user`` made to wait on was not the user's data
    return {name: n for name, n in counts.items() if n}


@register_table("users")
def _erase_user(session: Session, user_id: str) -> int:
    return _count(session, delete(User).where(User.id == user_id))


@register_table("dead_letters")
def _erase_dead_letters(session: Session, user_id: str) -> int:
    """By the user id column, and by the payload: an id that is not printable ASCII is only in the payload."""
    escaped = json.dumps({"user_id": user_id}, ensure_ascii=True)[1:-1]  # as ``encode_payload`` wrote it
    pattern = "%" + escaped.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    stmt = delete(DeadLetter).where(or_(DeadLetter.user_id == user_id, DeadLetter.payload.like(pattern, escape="\\")))
    return _count(session, stmt)


keep_table("crisis_referrals", "the anonymous count SB 243's yearly report needs: time, category, detector only")
keep_table("model_batches", "a submission's bookkeeping: provider, status, counts; its items carry the user")
keep_table("forgotten_users", "the tombstones: a keyed hash of the id, and the id only until the second pass clears it")

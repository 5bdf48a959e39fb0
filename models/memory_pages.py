"""One page of a user's facts, memories or thoughts, newest first, for ``ella.list_memory`` and
``ella.search_memory`` (the rules: ``ella.memory_pages``). Read-only; every query names the user id.

Why keyset on the id and not OFFSET: a page stays the same while Ella keeps remembering (an offset would shift
by every node perception adds between two pages), and ``(user_id, id)`` is an index range for nodes.

Why search filters in Python: a case-insensitive substring must mean the same on PostgreSQL and SQLite (SQLite's
``LIKE`` and ``lower`` fold ASCII only, so "ÉCOLE" would not find "école"). The user's rows are read in id-ordered
batches after the cursor until the page is full: one user's memory is thousands of rows, not millions, and the
vectors are never selected.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

from sqlalchemy import and_, or_, select
from sqlalchemy.orm import Session

from ella.ledger.rules import LIVE, USER_SUBJECT, subject_range
from ella.memory_pages import PageRequest, fact_text, item_ref, matches
from models.forgetting import FORGOTTEN_VALUE
from models.ledger import WorldFact
from models.memory import MemoryNode

BATCH = 500  # rows read per round trip while searching


def page(
    session: Session, request: PageRequest, after: int | None, limit: int
) -> tuple[list[dict[str, Any]], int | None]:
    """Up to ``limit`` items after the id ``after`` (None: from the newest), and the id to continue after (None:
    this was the last page)."""
    found: list[dict[str, Any]] = []
    for item in _items(session, request, after, limit):
        if request.query is not None and not matches(item["text"], request.query):
            continue
        if len(found) == limit:
            return found, found[-1]["id"]
        found.append(item)
    return found, None


def _items(session: Session, request: PageRequest, after: int | None, limit: int) -> Iterator[dict[str, Any]]:
    """The user's items of the kind after ``after``, newest first: a list reads ``limit + 1`` rows (the one more
    says whether a next page exists), a search reads batches until its caller has a full page."""
    batch = BATCH if request.query is not None else limit + 1
    while True:
        stmt = _facts(request) if request.kind == "fact" else _nodes(request)
        key = WorldFact.id if request.kind == "fact" else MemoryNode.id
        if after is not None:
            stmt = stmt.where(key < after)
        rows = session.execute(stmt.order_by(key.desc()).limit(batch)).all()
        for row in rows:
            yield _fact(row) if request.kind == "fact" else _node(row, request.kind)
        if request.query is None or len(rows) < batch:
            return
        after = rows[-1].id


def _facts(request: PageRequest) -> Any:
    exact, low, high = subject_range(USER_SUBJECT)
    stmt: Any = select(
        WorldFact.id,
        WorldFact.subject,
        WorldFact.predicate,
        WorldFact.object,
        WorldFact.status,
        WorldFact.recorded_at,
        WorldFact.valid_from,
        WorldFact.valid_until,
        WorldFact.supersedes,
    ).where(
        WorldFact.user_id == request.user_id,
        or_(WorldFact.subject == exact, and_(WorldFact.subject >= low, WorldFact.subject < high)),
        WorldFact.object != FORGOTTEN_VALUE,  # forgotten at the user's request: its words are gone, so is it
    )
    if not request.include_past:
        stmt = stmt.where(WorldFact.status.in_([s.value for s in LIVE]))
    return stmt


def _nodes(request: PageRequest) -> Any:
    types = ["thought"] if request.kind == "thought" else ["event", "chat"]
    return select(
        MemoryNode.id,
        MemoryNode.node_type,
        MemoryNode.description,
        MemoryNode.created_at,
        MemoryNode.expires_at,
    ).where(
        MemoryNode.user_id == request.user_id,
        MemoryNode.node_type.in_(types),
        MemoryNode.quarantine.is_(None),  # held by the guard: kept for the record, never shown
    )


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _fact(row: Any) -> dict[str, Any]:
    return {
        "item": item_ref("fact", row.id),
        "kind": "fact",
        "id": row.id,
        "text": fact_text(row.subject, row.predicate, row.object),
        "subject": row.subject,
        "predicate": row.predicate,
        "value": row.object,
        "status": row.status,
        "recorded_at": _iso(row.recorded_at),
        "valid_from": _iso(row.valid_from),
        "valid_until": _iso(row.valid_until),
        "supersedes": row.supersedes,
    }


def _node(row: Any, kind: str) -> dict[str, Any]:
    return {
        "item": item_ref(kind, row.id),
        "kind": kind,
        "id": row.id,
        "text": row.description,
        "type": row.node_type,
        "created_at": _iso(row.created_at),
        "expires_at": _iso(row.expires_at),
    }

"""What a product may read of one user's memory, page by page, and what it hears when that memory changes.

Why its own module: a settings page ("what Ella remembers") lists and searches three kinds of item, pages
through them and is told when one is added, corrected, retired or forgotten (``ella.list_memory``,
``ella.search_memory``, the ``memory_changed`` stream entry; docs/gateway.md). The rules are plain values here,
the queries are ``models.memory_pages``, the notes ``models.memory_changes``.

The kinds, and why these three:

- ``fact``: the user's facts in the world-fact ledger (subject ``user`` or ``user.*``); live ones (active or
  contested) unless the request asks for past ones too (``include_past``: superseded and retired as well). A
  forgotten fact is never listed: its words are gone, and the user asked for it to be gone.
- ``memory``: memory nodes of type ``event`` or ``chat``.
- ``thought``: memory nodes of type ``thought`` (reflections, conversation memos, plans).

A node the guard held (``quarantine`` set: a manipulation kept for the record, a boundary turn in Ella's
stand-in words) is never listed, searched or announced. Every item is named as ``ella.forget_memory`` takes it
(``memory:<id>`` for a memory or a thought, ``fact:<id>`` for a fact).

The cursor is opaque to the product but checked here: base64url of a small JSON object naming the user, the
kind, the past flag, a digest of the search (never its words) and the last id shown. A cursor that does not
decode, or was made for another user, kind, flag or search, is refused with one code (``bad_cursor``) and the
same detail whichever it was, so a cursor confirms nothing. Paging is keyset on the id, newest first: a page is
stable while items are added (new ones come before the first page, not inside a later one).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

KINDS = ("fact", "memory", "thought")
CHANGES = ("added", "corrected", "retired", "forgotten")
DEFAULT_LIMIT = 20
MAX_LIMIT = 100
MAX_QUERY_CHARS = 200
CURSOR_VERSION = 1
BAD_CURSOR = "bad_cursor"
_BAD_CURSOR_DETAIL = "the cursor is not one Ella gave for this user, kind and search"


class BadCursor(ValueError):
    """A cursor Ella did not make for this request; its answer is refused with ``BAD_CURSOR``."""

    code = BAD_CURSOR

    def __init__(self) -> None:
        super().__init__(_BAD_CURSOR_DETAIL)
        self.detail = _BAD_CURSOR_DETAIL


def item_ref(kind: str, item_id: int) -> str:
    """The item as ``ella.forget_memory`` and ``ella.correct_fact`` name it (a thought is a memory node)."""
    return f"{'fact' if kind == 'fact' else 'memory'}:{item_id}"


def folded(text: str) -> str:
    """The form search compares: NFC, case-folded (``ß`` finds ``SS``, ``É`` finds ``é``), spaces collapsed."""
    return " ".join(unicodedata.normalize("NFC", text).casefold().split())


def matches(text: str, query: str) -> bool:
    """Case-insensitive substring: what a settings page's search box promises, on any database."""
    return folded(query) in folded(text)


def fact_text(subject: str, predicate: str, value: str) -> str:
    """A fact as one line a person reads ("user.sister name Maya"): what search looks in and the list shows."""
    return f"{subject} {predicate.replace('_', ' ')} {value}"


def _search_digest(query: str | None) -> str:
    """The search a cursor belongs to, without its words (a cursor travels through the product's logs)."""
    return "" if query is None else hashlib.sha256(folded(query).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class PageRequest:
    """What one page is of: the cursor binds every field but ``after``."""

    user_id: str
    kind: str
    include_past: bool = False
    query: str | None = None

    def cursor(self, after: int) -> str:
        """The opaque cursor of the page after the item ``after``."""
        body = {"v": CURSOR_VERSION, "u": self.user_id, "k": self.kind, "p": self.include_past,
                "q": _search_digest(self.query), "a": after}  # fmt: skip
        raw = json.dumps(body, separators=(",", ":"), sort_keys=True).encode()
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    def after(self, cursor: str | None) -> int | None:
        """The last id the cursor's page showed (None: the first page); ``BadCursor`` for any other cursor."""
        if cursor is None:
            return None
        try:
            raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
            body = json.loads(raw)
        except (binascii.Error, ValueError):
            raise BadCursor() from None
        if not isinstance(body, dict) or set(body) != {"v", "u", "k", "p", "q", "a"}:
            raise BadCursor()
        after = body["a"]
        if not isinstance(after, int) or isinstance(after, bool) or not 0 < after < 2**63:
            raise BadCursor()
        expected = {"v": CURSOR_VERSION, "u": self.user_id, "k": self.kind, "p": self.include_past,
                    "q": _search_digest(self.query)}  # fmt: skip
        if any(body[key] != value or type(body[key]) is not type(value) for key, value in expected.items()):
            raise BadCursor()
        return after


@dataclass(frozen=True)
class Changed:
    """One item a change touched: its kind, its id, and its words (given only when the deployment allows)."""

    kind: str
    id: int
    text: str | None = None


def change_body(change: str, items: Sequence[Changed], *, words: bool) -> dict[str, Any]:
    """A ``memory_changed`` entry's ``text`` (as JSON): ids and kinds, and each item's words only with ``words``
    (the deployment's ``ELLA_MEMORY_CHANGED_WORDS``) and only when it has any (a forgotten item has none)."""
    if change not in CHANGES:
        raise ValueError(f"unknown change {change!r}")
    listed = []
    for item in items:
        entry: dict[str, Any] = {"item": item_ref(item.kind, item.id), "kind": item.kind}
        if words and item.text is not None:
            entry["text"] = item.text
        listed.append(entry)
    return {"change": change, "items": listed}


def without_words(body: dict[str, Any]) -> dict[str, Any]:
    """The same notice with no item's words (what stays of it once one of its items is forgotten)."""
    items = body.get("items", [])
    return {**body, "items": [{k: v for k, v in i.items() if k != "text"} for i in items if isinstance(i, dict)]}

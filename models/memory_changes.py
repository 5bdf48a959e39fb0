"""The ``memory_changed`` notices: an item of a user's memory was added, corrected, retired or forgotten.

Why an outbox record and a pending effect, written in the change's own transaction: a product that shows "what
Ella remembers" must hear of every change exactly once. The notice is an ``outbox_records`` row (kind
``memory_changed``, ``route`` the change, ``text`` its JSON: ``ella.memory_pages.change_body``), so it is
committed with the change or not at all: a rolled-back change (or a savepoint a refusal rolled back) leaves no
notice, and a redelivered task that finds its change already made (every writer is idempotent: ``dedupe_key``,
``has_facts_from``, the request's recorded answer) writes none. Beside it a ``pending_effects`` row owes its
publish (``ella.publish_memory_changed``): after the commit ``adapters.memory_changes`` publishes the record and
settles the row; a worker killed in between, or a Redis that was down, leaves the row to
``ella.send_pending_effects``. Publishing is keyed by the record's ``uid`` (``adapters.outbox_stream``), so the
two paths never put one notice on the stream twice.

One helper (``note_changed``) for every place a listed item changes: a node's insert (``models.memory.insert_node``:
perception, reflection, memos, chapters), the user's facts extracted from a turn (``tasks.ledger``), a forget
and a correction (``models.forgetting``: the user in conversation, the gateway, the operator).

Words: ids and kinds only, unless the deployment says otherwise (``ELLA_MEMORY_CHANGED_WORDS``, which
``adapters.memory_changes`` installs with ``configure``: a model does not read settings). A notice whose item is
later forgotten loses its words (``strip_words``, from the forget's transaction).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any

from sqlalchemy.orm import Session

from ella.memory_pages import Changed, change_body, without_words
from ella.task_names import TaskName
from models.base import utcnow
from models.outbox import OutboxRecord
from models.pending_effects import Effect, PendingEffects, owe

KIND = "memory_changed"
NOTED = "ella.memory_changed.noted"  # session.info: (record, pending row) of this transaction, for after commit

_words: Callable[[], bool] = lambda: False  # noqa: E731 - replaced by ``configure``
_grace: Callable[[], float] = lambda: 30.0  # noqa: E731


def configure(words: Callable[[], bool], grace_s: Callable[[], float]) -> None:
    """Whether notices carry the items' words, and how long a notice's publish is left to its committing path."""
    global _words, _grace
    _words, _grace = words, grace_s


def note_changed(session: Session, user_id: str, change: str, items: Sequence[Changed]) -> OutboxRecord | None:
    """Record one notice of ``change`` to ``items`` in the caller's transaction; None for no items."""
    if not items:
        return None
    uid = str(uuid.uuid4())
    body = change_body(change, items, words=_words())
    record = OutboxRecord(uid=uid, kind=KIND, user_id=user_id, conversation_id=None, in_reply_to=None,
                          route=change, category="", text=json.dumps(body, separators=(",", ":")),
                          created_at=utcnow())  # fmt: skip
    session.add(record)
    effect = Effect(TaskName.PUBLISH_MEMORY_CHANGED.value, {"user_id": user_id, "outbox_id": uid},
                    kwargsrepr=repr({"outbox_id": uid}))  # fmt: skip
    row = owe(session, user_id, f"{KIND}:{uid}", [effect], timedelta(seconds=_grace()))
    session.flush()  # in a session that never commits (autocommit), the rows are written and the sweep publishes
    noted: list[tuple[OutboxRecord, PendingEffects | None]] = session.info.setdefault(NOTED, [])
    noted.append((record, row))
    return record


def names_any(record: OutboxRecord, refs: set[str]) -> bool:
    """Whether the notice names any of these items (``memory:<id>``, ``fact:<id>``)."""
    return any(item.get("item") in refs for item in _items(record.text))


def has_words(record: OutboxRecord) -> bool:
    return any("text" in item for item in _items(record.text))


def strip_words(record: OutboxRecord) -> None:
    """Keep the notice (ids and kinds), drop its words: one of its items was forgotten."""
    try:
        body = json.loads(record.text)
    except ValueError:
        body = {}
    record.text = json.dumps(without_words(body if isinstance(body, dict) else {}), separators=(",", ":"))


def _items(text: str) -> list[dict[str, Any]]:
    try:
        body = json.loads(text)
    except ValueError:
        return []
    items = body.get("items", []) if isinstance(body, dict) else []
    return [i for i in items if isinstance(i, dict)]

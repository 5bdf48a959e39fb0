"""Writing a dead-letter row: the one place a refused or abandoned task is recorded.

Why its own module: the payload can be anything a gateway sent (a megabyte, lone surrogates, NUL), and the
row must still be writable on PostgreSQL, so the payload is JSON with every non-ASCII character escaped.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any, NamedTuple

from models import DeadLetter
from models.erasure import is_forgotten, tombstone_key
from workers.db import session_scope
from workers.settings import get_settings

log = logging.getLogger(__name__)

MAX_PAYLOAD_CHARS = 4_000_000
ERASED_USER_REASON = "a task of a user erased meanwhile (right to be forgotten) failed: payload and reason not kept"
_SAFE_ID = re.compile(r"^[\x20-\x7e]{1,128}$")


def _safe_id(value: Any, limit: int) -> str | None:
    """Keep an id column only when it is a printable ASCII string that fits; the payload has the rest."""
    if isinstance(value, str) and _SAFE_ID.match(value) and len(value) <= limit:
        return value
    return None


def unless_erased(reason: str, args: Any, kwargs: dict[str, Any]) -> tuple[str, Any, dict[str, Any]]:
    """The dead letter as given, or, when its ``user_id`` was erased, one that keeps only the tombstone's key."""
    user_id = kwargs.get("user_id")
    if not isinstance(user_id, str) or not user_id:
        return reason, args, kwargs
    key = tombstone_key(user_id, get_settings().forget_hmac_key.get_secret_value())
    with session_scope() as session:
        if not is_forgotten(session, key):
            return reason, args, kwargs
    return ERASED_USER_REASON, [], {"tombstone": key}


def encode_payload(args: Any, kwargs: Any) -> str:
    text = json.dumps({"args": args, "kwargs": kwargs}, ensure_ascii=True, default=repr)
    if len(text) > MAX_PAYLOAD_CHARS:
        return json.dumps({"truncated_from_chars": len(text), "head": text[:MAX_PAYLOAD_CHARS]}, ensure_ascii=True)
    return text


class Recorded(NamedTuple):
    """The row written: its id, and the reason it keeps (not the one given, for a user erased meanwhile)."""

    id: int
    reason: str


def record_dead_letter(task_name: str, task_id: str | None, reason: str, args: Any, kwargs: Any) -> Recorded:
    """Insert the row in its own transaction; return its id and the reason it keeps.

    A task of a user erased meanwhile (a perceive or fact extraction a worker held, or a retry's countdown,
    while ``forget_user`` ran) fails on the missing user; its dead letter would bring the id and the words back.
    Such a row keeps only the task name and the tombstone's key.
    """
    reason, args, kwargs = unless_erased(reason, args, kwargs if isinstance(kwargs, dict) else {"_": kwargs})
    row = DeadLetter(
        task_name=task_name[:200],
        task_id=_safe_id(task_id, 64),
        reason=reason.encode("utf-8", "backslashreplace").decode("utf-8").replace("\x00", "\\x00")[:10_000],
        payload=encode_payload(args, kwargs),
        user_id=_safe_id(kwargs.get("user_id"), 128),
        message_id=_safe_id(kwargs.get("message_id"), 200),
    )
    with session_scope() as session:
        session.add(row)
        session.flush()
        row_id = row.id
    log.warning("dead-lettered %s: %s", task_name, row.reason[:500], extra={"task_id": task_id})
    return Recorded(row_id, row.reason)

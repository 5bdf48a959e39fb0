"""Writing a dead-letter row: the one place a refused or abandoned task is recorded, and the gateway told.

Why its own module: the payload can be anything a gateway sent (a megabyte, lone surrogates, NUL), and the
row must still be writable on PostgreSQL, so the payload is JSON with every non-ASCII character escaped.

The failure channel: a dead letter of a gateway task (``ella.rejections.GATEWAY_TASKS``) also publishes one
outbox stream entry of kind ``rejected`` (``publish_rejection``): ``code`` from ``ella.rejections.code_for``,
``text`` that code's fixed sentence (never the reason, which may quote the payload), ``in_reply_to`` the message
or request id, ``task_id`` the Celery task id, ``user_id`` when it can be read and the user was not erased; a
refused raw item is answered whatever its task (``workers.envelopes``). Published once per request
(``publish_once`` with a deterministic ``outbox_id``), after the row is written; with Redis down the row is
still written and the log says the entry was not published. Internal tasks (``ella.perceive``...) publish
nothing: no gateway waits on them. The log line names the task, the row id and the code, never the reason (a
reason may quote the payload or name a user; the row has it).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from typing import Any, NamedTuple

import redis

from adapters import metrics
from adapters.db import session_scope
from adapters.outbox_stream import publish_once
from adapters.redis_conn import get_redis
from adapters.settings import get_settings
from ella import rejections
from ella.contract import OutboxEntry
from models import DeadLetter
from models.base import utcnow
from models.erasure import is_forgotten, tombstone_key

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


def record_dead_letter(
    task_name: str,
    task_id: str | None,
    reason: str,
    args: Any,
    kwargs: Any,
    *,
    in_reply_to: str | None = None,
) -> Recorded:
    """Insert the row in its own transaction, then tell the gateway (``publish_rejection``); return the row's id
    and the reason it keeps.

    A task of a user erased meanwhile (a perceive or fact extraction a worker held, or a retry's countdown,
    while ``forget_user`` ran) fails on the missing user; its dead letter would bring the id and the words back.
    Such a row keeps only the task name and the tombstone's key. ``in_reply_to``: the request's id when the
    kwargs no longer carry it (an erased user's late message: ``workers.events.refuse_if_forgotten``).
    The ``message_id`` column takes a memory request's ``request_id`` when there is no ``message_id``.
    """
    given_args, given_kwargs = args, kwargs if isinstance(kwargs, dict) else {"_": kwargs}
    reason_given = reason
    reason, args, kwargs = unless_erased(reason, args, given_kwargs)
    row = DeadLetter(
        task_name=task_name[:200],
        task_id=_safe_id(task_id, 64),
        reason=reason.encode("utf-8", "backslashreplace").decode("utf-8").replace("\x00", "\\x00")[:10_000],
        payload=encode_payload(args, kwargs),
        user_id=_safe_id(kwargs.get("user_id"), 128),
        message_id=_safe_id(kwargs.get("message_id") or kwargs.get("request_id"), 200),
    )
    with session_scope() as session:
        session.add(row)
        session.flush()
        row_id = row.id
    code = rejections.code_for(row.reason)
    metrics.dead_letter(task_name, code)
    log.warning("dead-lettered %s (dead_letters.id=%s): %s", task_name, row_id, code, extra={"task_id": task_id})
    publish_rejection(
        task_name,
        task_id,
        reason_given,
        row.reason,
        given_kwargs,
        in_reply_to=in_reply_to,
        # keyed by the row and what it holds: an item with no id at all (not JSON) is one entry per row, and a
        # row id a database hands out again (restored, or a test's fresh copy) is not taken for the old row
        fallback=f"{row_id}:{hashlib.sha256(row.payload.encode()).hexdigest()[:16]}",
        args=given_args,
    )
    return Recorded(row_id, row.reason)


def publish_rejection(
    task_name: str,
    task_id: str | None,
    reason_given: str,
    reason_kept: str,
    kwargs: dict[str, Any],
    *,
    in_reply_to: str | None = None,
    fallback: str = "",
    args: Any = None,
) -> str | None:
    """The ``rejected`` stream entry of a gateway task's dead letter, once; its stream id, or None when there is
    none to publish (an internal task, a request answered elsewhere) or Redis is unreachable.

    ``reason_kept`` is the row's reason: a user erased meanwhile turns it into ``user_erased``, and then the
    entry carries no user id (an ack or a refusal naming an erased user would be a trace of them). An erasure's
    own entries never carry one either (its kwarg is ``user``, and it must not be named). A refused raw item
    (``rejections.ENVELOPE_CODES``: an unknown task, a malformed envelope, a wrong queue) is answered whatever
    its task name says, or when none can be read: only something outside Ella pushes one. The entry's
    ``task_id`` is the Celery task id whenever it is known (a plain id), so a gateway can tell which send
    failed even when the request's own id cannot be read; ``args``: positional arguments, read for the ids
    that label the entry when the kwargs lack them (``rejections.labels``).
    """
    code = rejections.code_for(reason_kept)
    refused_item = rejections.code_for(reason_given) in rejections.ENVELOPE_CODES
    if not (task_name in rejections.GATEWAY_TASKS or refused_item):
        return None
    if rejections.answered_elsewhere(task_name, reason_given, kwargs):
        return None
    ids = rejections.labels(args, kwargs)
    no_user = code == "user_erased" or task_name == rejections.FORGET_USER
    user_id = "" if no_user else rejections.safe_id(ids.get("user_id"), user=True)
    reply_to = rejections.safe_id(in_reply_to) if in_reply_to is not None else ""
    reply_to = reply_to or rejections.reply_key(task_name, ids, task_id)
    entry = OutboxEntry(
        kind="rejected",
        user_id=user_id,
        text=rejections.text_for(code),
        route="",
        category="",
        outbox_id=rejections.rejected_outbox_id(task_name, user_id, reply_to, task_id, fallback),
        in_reply_to=reply_to,
        created_at=utcnow().isoformat(),
        task=rejections.safe_id(task_name),
        task_id=rejections.safe_id(task_id),
        code=code,
    )
    try:
        return publish_once(get_redis(), entry)
    except redis.RedisError as exc:
        log.warning(
            "the rejected entry of %s (%s) was not published: Redis unreachable (%s)",
            task_name,
            code,
            type(exc).__name__,
            extra={"task_id": task_id},
        )
        return None

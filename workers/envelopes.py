"""Checking every raw message on our task queues before Celery sees it; a malformed one is a dead letter.

Why: anything that can ``LPUSH`` to a queue (a buggy gateway, an operator's script, a fuzzer) can put there an
envelope Celery cannot take. Before this check a JSON body that is not ``[args, kwargs, embed]`` crashed every
worker that consumed it (and went back on the queue, to crash the next one), a body that is not JSON or not
base64 killed the worker once and was lost, and an unknown task name, a known task on another task's queue or
headers of the wrong type were dropped with a log line (or ran: ``ella.reflect`` sent on ``inbound`` did).
Here each becomes a row in ``dead_letters`` with the precise reason, and it is consumed (never requeued).

What is judged is what the worker needs, not who sent it: any Celery protocol 2 client with a JSON body is
accepted (celery-node sends ``lang`` "js", others another value or none; ``lang`` is not read). Accepted:
``content-type`` ``application/json``; ``content-encoding`` ``utf-8`` or absent; ``properties.body_encoding``
``base64`` or ``utf-8``/absent (a plain body), the two kombu's Redis transport decodes; a body of at most
``MAX_BODY_CHARS`` characters that is JSON ``[args, kwargs, embed]`` (a list, an object, an object or null).
Refused, each with its reason: another content type (pickle, yaml, msgpack: the app accepts JSON only, and
kombu would refuse them inside its poll loop), another content or body encoding (kombu has no codec for it and
would raise there), a larger body (a gateway bug; nothing we run takes one), an unknown task, a known task on
another task's queue, and headers Celery would choke on or misread (``id``/``task`` not short strings,
``retries`` not a non-negative integer, ``eta``/``expires`` not ISO 8601, ``timelimit`` not ``[hard, soft]``,
``argsrepr``/``kwargsrepr``/ids not strings, ``stamps`` not a mapping). The kwargs' values are the task's to
judge (``ella.contract``: a ``malformed_payload``).

Every refused item is answered on the outbox stream (kind ``rejected``, code ``malformed_envelope``,
``unknown_task`` or ``wrong_queue``: ``adapters.dead_letters``), whatever is broken in it: the spec promises
never silence, and a gateway must be able to tell which send failed. What labels the entry is read best effort
(``traced``): the task id and name from the headers whenever they can be read (also out of a queue item that is
not JSON, by a scan), and the request's ids (``user_id``, ``message_id`` or ``request_id``, a profile's
``updated_at``) from whatever the body holds, whether or not it decodes as the check wants (a wrong content
type, a body that is not base64 or not ``[args, kwargs, embed]``, a JSON list pushed as the whole item). Those
values only label the entry and the dead letter (printable ids, an erased user named by nobody); they are
never trusted for anything else.

No user data in the worker's log: a message that passes has its ``argsrepr``/``kwargsrepr`` headers rewritten
to the argument count and the kwargs' names (``shown_arguments``), whatever the client put there or left out.
Celery prints those in its "received", "succeeded" and "failed" lines (as the ``data`` field of our JSON lines)
and in its ``task-received`` event (Flower), and falls back to the full arguments when they are empty.

Where: kombu's Redis transport pops the message (``BRPOP``) and hands the decoded envelope to
``Transport._deliver``; the check wraps that, for our task queues only (the control and event channels pass
through untouched). A message that passes is delivered as before, with only those two headers changed. The
envelope is decoded with a tolerant ``loads`` so an undecodable one reaches the check instead of raising inside
kombu's poll loop.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import logging
import re
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, NamedTuple

from kombu.transport import redis as kombu_redis
from kombu.utils.json import loads as kombu_loads

from adapters.settings import get_settings
from workers.routing import QUEUE_OF, TaskName

log = logging.getLogger(__name__)

MAX_RAW_CHARS = 200_000
MAX_BODY_CHARS = 1_000_000
# Deepest JSON nesting accepted in an envelope or a body. Ella's own messages nest 4-6 levels; Python's json,
# pickle (the prefork pool) and Celery's own code recurse, and past ~1,000 levels they raise RecursionError in
# the worker's poll loop: the worker exited and the message was lost (a body nested 100,000 deep).
MAX_NESTING = 32
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}:,]')
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,39}$")
_ID_KWARGS = ("user_id", "message_id", "request_id", "updated_at")


class UndecodableEnvelope(dict[str, Any]):
    """What the tolerant ``loads`` returns for a queue item it will not decode: the text, for the dead letter."""

    def __init__(self, raw: str, error: str, problem: str | None = None) -> None:
        super().__init__()
        self.raw = raw
        self.error = error
        self.problem = problem or f"envelope is not JSON ({error})"


def json_scan(text: str, levels: tuple[list[str], ...] = (["[", "{"],)) -> tuple[int, dict[str, str]]:
    """(deepest nesting, the request ids at the body's kwargs level) of JSON ``text``, without parsing it.

    Why not ``json.loads``: it recurses, and a deep enough text raises ``RecursionError`` instead of an answer.
    This walks the strings and brackets (a C regex and one loop, no recursion), so it tells how deep a text is
    whatever its depth, and still finds ``user_id``/``message_id``/``request_id``/``updated_at`` string values
    of the object two levels down (a body's kwargs: ``[args, {kwargs}, embed]``) for the dead letter; ``levels``
    the bracket paths of the objects read (``["{"]`` too: a kwargs object sent as the whole body). It reads
    text that is not JSON too, as far as it goes (a torn or truncated item still names its request).
    """
    stack: list[str] = []
    deepest = 0
    ids: dict[str, str] = {}
    key: str | None = None
    awaiting_value = False
    for match in _JSON_TOKEN.finditer(text):
        token = match.group()
        if token in ("[", "{"):
            stack.append(token)
            deepest = max(deepest, len(stack))
            key, awaiting_value = None, False
        elif token in ("]", "}"):
            if stack:
                stack.pop()
            key, awaiting_value = None, False
        elif token == ":":
            awaiting_value = key is not None
        elif token == ",":
            key, awaiting_value = None, False
        elif awaiting_value and key is not None:
            value = _flat_string(token)
            if value:
                ids.setdefault(key, value)
            key, awaiting_value = None, False
        elif stack in levels:
            name = _flat_string(token)
            key = name if name in _ID_KWARGS else None
    return deepest, ids


def _flat_string(token: str) -> str | None:
    try:
        value = json.loads(token)
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def tolerant_loads(text: Any, *args: Any, **kwargs: Any) -> Any:
    """kombu's ``loads``, except that text which is not JSON, or nests deeper than ``MAX_NESTING``, comes back
    as an ``UndecodableEnvelope`` (so it reaches the check instead of raising inside kombu's poll loop)."""
    raw = text if isinstance(text, str) else text.decode("utf-8", "replace") if isinstance(text, bytes) else None
    if raw is not None:
        deepest, _ = json_scan(raw)
        if deepest > MAX_NESTING:
            return UndecodableEnvelope(
                raw, "nested too deep", f"envelope nested deeper than {MAX_NESTING} levels ({deepest})"
            )
    try:
        return kombu_loads(text, *args, **kwargs)
    except (ValueError, TypeError, RecursionError) as exc:
        raw = text if isinstance(text, str) else repr(text)
        return UndecodableEnvelope(raw, f"{type(exc).__name__}: {str(exc)[:200]}")


def _body_text(envelope: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """The message body as JSON text, or the reason it cannot be read."""
    body = envelope.get("body")
    properties = envelope.get("properties")
    encoding = properties.get("body_encoding") if isinstance(properties, Mapping) else None
    if not isinstance(body, str):
        return None, f"body is {type(body).__name__}, not a string"
    if envelope.get("content-type") != "application/json":
        return None, f"content type {str(envelope.get('content-type'))[:80]!r} is not application/json"
    content_encoding = envelope.get("content-encoding")
    if content_encoding is not None and str(content_encoding).lower() != "utf-8":
        return None, f"content encoding {str(content_encoding)[:40]!r} is not utf-8"
    if len(body) > MAX_BODY_CHARS:
        return None, f"body is {len(body)} characters, the limit is {MAX_BODY_CHARS}"
    if encoding == "base64":
        try:
            raw = base64.b64decode(body.encode("ascii"), validate=True)
        except (binascii.Error, UnicodeEncodeError, ValueError):
            return None, "body is not valid base64"
    elif encoding is None or (isinstance(encoding, str) and encoding.lower() == "utf-8"):
        raw = body.encode("utf-8", "surrogatepass")
    else:
        return None, f"unknown body encoding {str(encoding)[:40]!r} (base64 or utf-8)"
    try:
        return raw.decode("utf-8"), None
    except UnicodeDecodeError:
        return None, "body is not JSON (UTF-8)"


def _decode_body(envelope: Mapping[str, Any]) -> tuple[Any, str | None]:
    """The message body as Python, or the reason it cannot be read (a body too deep is measured, not parsed)."""
    text, problem = _body_text(envelope)
    if text is None:
        return None, problem
    deepest, _ = json_scan(text)
    if deepest > MAX_NESTING:
        return None, f"body nested deeper than {MAX_NESTING} levels ({deepest})"
    try:
        return json.loads(text), None
    except (ValueError, RecursionError):
        return None, "body is not JSON (UTF-8)"


def _is_task_body(body: Any) -> bool:
    return (
        isinstance(body, list)
        and len(body) == 3
        and isinstance(body[0], list)
        and isinstance(body[1], dict)
        and (body[2] is None or isinstance(body[2], dict))
    )


def shown_arguments(body: Any) -> tuple[str, str]:
    """(argsrepr, kwargsrepr) that show the argument count and the kwargs' names, never a value.

    A name that is not a short identifier is counted, not shown (a key is the client's text too).
    """
    args = body[0] if isinstance(body, list) and len(body) == 3 and isinstance(body[0], list) else []
    kwargs = body[1] if isinstance(body, list) and len(body) == 3 and isinstance(body[1], dict) else {}
    names = sorted(name for name in kwargs if _NAME.match(name))
    shown: dict[str, str] = {name: "…" for name in names}
    others = len(kwargs) - len(names)
    if others:
        shown["(other keys)"] = str(others)
    return f"<{len(args)} args>", repr(shown)


def _iso_or_none(value: Any) -> bool:
    if value is None:
        return True
    if not isinstance(value, str):
        return False
    try:
        datetime.fromisoformat(value)
    except ValueError:
        return False
    return True


def _header_problem(headers: Mapping[str, Any]) -> str | None:
    """The first header Celery would choke on (or misread), by name; None when they are all usable."""
    for name in ("id", "task"):
        value = headers.get(name)
        if not isinstance(value, str) or not value or len(value) > 255:
            return f"header {name!r} is missing or not a short string"
    retries = headers.get("retries", 0)
    if retries is not None and (not isinstance(retries, int) or isinstance(retries, bool) or retries < 0):
        return "header 'retries' is not a non-negative integer"
    for name in ("eta", "expires"):
        if not _iso_or_none(headers.get(name)):
            return f"header {name!r} is not an ISO 8601 time"
    timelimit = headers.get("timelimit", [None, None])
    if timelimit is not None and (
        not isinstance(timelimit, list | tuple)
        or len(timelimit) != 2
        or not all(v is None or (isinstance(v, int | float) and not isinstance(v, bool)) for v in timelimit)
    ):
        return "header 'timelimit' is not [hard, soft]"
    for name in ("root_id", "parent_id", "group", "origin", "argsrepr", "kwargsrepr", "shadow"):
        value = headers.get(name)
        if value is not None and not isinstance(value, str):
            return f"header {name!r} is not a string"
    if headers.get("stamps") is not None and not isinstance(headers.get("stamps"), dict):
        return "header 'stamps' is not a mapping"
    return None


def envelope_problem(envelope: Any, queue: str, registered: Callable[[str], bool]) -> str | None:
    """Why this raw queue item cannot be run as a task from ``queue``; None when it can."""
    if isinstance(envelope, UndecodableEnvelope):
        return envelope.problem
    if not isinstance(envelope, dict):
        return f"envelope is a JSON {type(envelope).__name__}, not an object"
    properties = envelope.get("properties")
    if not isinstance(properties, dict):
        return "envelope has no 'properties' object"
    if not isinstance(properties.get("delivery_tag"), str) or not properties["delivery_tag"]:
        return "envelope has no delivery tag"
    if not isinstance(properties.get("delivery_info", {}), dict):
        return "envelope's delivery_info is not an object"
    headers = envelope.get("headers")
    if not isinstance(headers, dict):
        return "envelope has no 'headers' object (not a Celery protocol 2 task message)"
    problem = _header_problem(headers)
    if problem:
        return problem
    task = headers["task"]
    if not registered(task):
        return f"unknown task {task[:200]!r}"
    if task in TaskName.__members__.values():
        expected = QUEUE_OF[TaskName(task)].name_in(get_settings())
        if queue != expected:
            return f"task {task} belongs on queue {expected!r}, not {queue!r}"
    body, problem = _decode_body(envelope)
    if problem:
        return problem
    if not _is_task_body(body):
        return "body is JSON but not [args, kwargs, embed] (a list, an object, an object)"
    return None


def _raw_text(envelope: Any) -> str:
    if isinstance(envelope, UndecodableEnvelope):
        text = envelope.raw
    else:
        text = json.dumps(envelope, ensure_ascii=True, default=repr)
    return text[:MAX_RAW_CHARS]


_KWARGS_LEVELS = (["[", "{"], ["{"])  # [args, {kwargs}, embed] (or [{kwargs}]), and a bare {kwargs} body


def _top_level_strings(text: str, wanted: dict[tuple[str, ...], str]) -> dict[str, str]:
    """String values of JSON ``text`` at the key paths in ``wanted`` (path -> name), without parsing it.

    For a queue item that is not JSON (torn, truncated, or nested too deep for ``json.loads``): its
    ``headers.id``, ``headers.task`` and ``body`` can still be read when the text holds them. A path is the keys
    from the top object (``("headers", "id")``); a value inside a list is never matched. One loop, no recursion.
    """
    opened: list[tuple[str, str | None]] = []  # each open bracket, and the key it is the value of (or None)
    found: dict[str, str] = {}
    key: str | None = None
    awaiting_value = False
    for match in _JSON_TOKEN.finditer(text):
        token = match.group()
        if token in ("[", "{"):
            opened.append((token, key if awaiting_value else None))
            key, awaiting_value = None, False
        elif token in ("]", "}"):
            if opened:
                opened.pop()
            key, awaiting_value = None, False
        elif token == ":":
            awaiting_value = key is not None
        elif token == ",":
            key, awaiting_value = None, False
        elif awaiting_value and key is not None:
            in_objects = bool(opened) and all(bracket == "{" for bracket, _ in opened)
            name = wanted.get((*(under for _, under in opened[1:] if under is not None), key))
            value = _flat_string(token)
            if in_objects and name is not None and value is not None:
                found.setdefault(name, value)
            key, awaiting_value = None, False
        elif opened and opened[-1][0] == "{":
            key = _flat_string(token)
    return found


def _body_guess(body: Any) -> str | None:
    """The body as JSON text, best effort and for its ids only: base64 of it when it decodes, else the text as
    sent (a body marked base64 that is plain JSON), or the JSON of a body sent as a list or object."""
    if isinstance(body, list | dict):
        return json.dumps(body, ensure_ascii=True, default=repr)[:MAX_BODY_CHARS]
    if not isinstance(body, str):
        return None
    body = body[:MAX_BODY_CHARS]
    try:
        return base64.b64decode(body.encode("ascii"), validate=True).decode("utf-8", "replace")
    except (binascii.Error, UnicodeEncodeError, ValueError):
        return body


def _ids_of(text: str | None) -> dict[str, str]:
    return json_scan(text, _KWARGS_LEVELS)[1] if text else {}


def request_ids(envelope: Any) -> dict[str, str]:
    """The request's ids (a string each), read best effort from whatever the item's body holds, else nothing.

    A body that decodes gives its kwargs' ids; one that does not is still scanned (a wrong content type, a body
    marked base64 that is not, a body that is not ``[args, kwargs, embed]``, one nested too deep to parse), and
    so is a JSON list pushed as the whole item (a body sent without its envelope) and the body of an item that
    is not JSON. The values label a refusal; nothing else reads them.
    """
    if isinstance(envelope, UndecodableEnvelope):
        return _ids_of(_body_guess(_top_level_strings(envelope.raw, {("body",): "body"}).get("body")))
    if isinstance(envelope, list):
        return _ids_of(json.dumps(envelope, ensure_ascii=True, default=repr))
    if not isinstance(envelope, dict):
        return {}
    body, problem = _decode_body(envelope)
    if problem is None and isinstance(body, list) and len(body) >= 2 and isinstance(body[1], dict):
        return {name: body[1][name] for name in _ID_KWARGS if isinstance(body[1].get(name), str) and body[1][name]}
    return _ids_of(_body_guess(envelope.get("body")))


class Traced(NamedTuple):
    """What labels a refused item: the task name and id from its headers (None when unreadable), its request's
    ids from its body (``request_ids``)."""

    task: str | None
    task_id: str | None
    ids: dict[str, str]


def traced(envelope: Any) -> Traced:
    """The task name and id whenever the headers can be read (also by a scan of an item that is not JSON), and
    the request's ids whenever the body can; see ``request_ids``."""
    if isinstance(envelope, UndecodableEnvelope):
        found = _top_level_strings(envelope.raw, {("headers", "task"): "task", ("headers", "id"): "id"})
    elif isinstance(envelope, dict) and isinstance(envelope.get("headers"), dict):
        found = envelope["headers"]
    else:
        found = {}
    task, task_id = found.get("task"), found.get("id")
    return Traced(
        task if isinstance(task, str) and task else None,
        task_id if isinstance(task_id, str) and task_id else None,
        request_ids(envelope),
    )


def dead_letter_envelope(envelope: Any, queue: str, reason: str) -> None:
    """Record the raw item with what labels it (``traced``) and answer it on the outbox stream, whatever the
    task; if even the row fails (database down), keep the item in a Redis list, say so, and still answer it."""
    from adapters.dead_letters import publish_rejection, record_dead_letter

    task, task_id, ids = traced(envelope)
    task_name = task or "(malformed envelope)"
    why = f"malformed envelope on queue {queue!r}: {reason}"
    raw = _raw_text(envelope)
    try:
        record_dead_letter(task_name, task_id, why, None, {**ids, "raw_envelope": raw})
    except Exception:
        from adapters.redis_conn import get_redis

        key = f"{get_settings().redis_key_prefix}:malformed_envelopes"
        log.exception("could not dead-letter a malformed envelope; kept in Redis list %s", key)
        try:
            get_redis().lpush(key, json.dumps({"queue": queue, "reason": reason, "raw": raw}))
        finally:
            # No row id to key the entry by: the item's own hash, so two different items are two entries.
            fallback = hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()[:32]
            publish_rejection(task_name, task_id, why, why, ids, fallback=fallback)


_original_deliver = kombu_redis.Transport._deliver


def _none_registered(name: str) -> bool:
    return False


# Whether a task name is registered: the app gives it at ``install`` (this module does not import the app back).
_registered: Callable[[str], bool] = _none_registered


def _checked_deliver(self: Any, message: Any, queue: Any) -> Any:
    if queue in get_settings().queues:
        problem = envelope_problem(message, queue, _registered)
        if problem is not None:
            dead_letter_envelope(message, queue, problem)
            return None  # popped by BRPOP and never put in the unacked set: consumed, not requeued
        body, _ = _decode_body(message)  # it decodes: the check passed
        message["headers"]["argsrepr"], message["headers"]["kwargsrepr"] = shown_arguments(body)
    return _original_deliver(self, message, queue)


def install(registered: Callable[[str], bool]) -> None:
    """Put the check on kombu's Redis transport (idempotent), ``registered`` telling the tasks the app runs.
    Called when the Celery app is imported."""
    global _registered
    _registered = registered
    kombu_redis.loads = tolerant_loads  # type: ignore[assignment,attr-defined]
    kombu_redis.Transport._deliver = _checked_deliver  # type: ignore[method-assign]

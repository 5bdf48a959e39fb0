"""Structured logs: JSON lines in workers, each carrying the task id and a pseudonym of the user in scope.

Why: the operator on call greps one user's or one task's story across three queues; a log line without
those two is noise at 3 a.m. But a log line is not where a user's id or words belong: log files are copied,
shipped and kept beyond an erasure's reach. So the user is named by ``user``, a pseudonym: the first 12 hex
characters of the user's tombstone key (HMAC-SHA256 of the id with ``ELLA_FORGET_HMAC_KEY``, as
``models.erasure.tombstone_key`` and the erasure's own log lines), which the operator can compute from an id and
nobody can reverse without the key. And whatever a client sent (a Node client sets no ``kwargsrepr``; a message
may name the user in its text), the filter rewrites a line that spells the current task's user id or text:
the id becomes the pseudonym, the text ``<text>``. Celery's own "received"/"succeeded"/"failed" lines print
``argsrepr``/``kwargsrepr``, which ``workers.envelopes`` rewrites on receipt to the kwargs' names only.

The filter is the last line of defence, and it knows what to hide from the request itself, whoever produced
it (our clients, celery-node, a raw ``LPUSH``, a plain ``send_task``): every string among the task's arguments
(``task_secrets``), nested ones too, and every kwarg name that is not one our tasks take, in the forms a line
may spell them (as is, as a Python repr, as JSON), is rewritten: ``user_id``/``user`` to the pseudonym, the rest
to ``<text>`` (a kwarg name to ``<key>``); only ids and times the operator greps by (``message_id``, ``sent_at``...)
are left as they are, and only when they look like one. So a pydantic reason that quotes a refused value, an
exception that embeds a kwarg, or Celery's trace line that reprs them all print none of them. Where:
- inside a task (the pool process): from ``current_task.request``, remembered per task id at ``task_prerun``,
  so a task that clears its request's kwargs (an erased user's late message: ``workers.events``) still has its
  later lines rewritten;
- in the worker's main process, while kombu delivers a message from one of our queues (Celery's "received"
  line, the envelope check's dead letter): from the message's own body (``delivery_scope``), and a task name
  no worker runs is hidden too (only a client chooses it). So a late message of an erased user leaves no id in
  any line, the "received" one included, before any task code runs.
"""

from __future__ import annotations

import contextvars
import hashlib
import hmac
import inspect
import json
import logging
import re
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

from pythonjsonlogger.json import JsonFormatter

current_user_id: contextvars.ContextVar[str | None] = contextvars.ContextVar("current_user_id", default=None)
# what the message being delivered in the worker's main process asks to hide (``delivery_scope``)
delivered_secrets: contextvars.ContextVar[dict[str, str] | None] = contextvars.ContextVar(
    "delivered_secrets", default=None
)

FIELDS = "%(asctime)s %(levelname)s %(name)s %(message)s %(process)d %(task_id)s %(task_name)s %(user_id)s"
MIN_REDACTED_TEXT = 6  # a shorter text ("hi") would blank out common words of other lines; it says nothing either
_USER_KWARGS = ("user_id", "user")  # shown as the pseudonym (``user``: ella.forget_user's)
# ids and times the operator greps a story by: left as they are when they look like one (ella.contract.ID_PATTERN)
_SHOWN_KWARGS = frozenset(
    {"message_id", "request_id", "source_message_id", "conversation_id", "first_task_id", "updated_at", "sent_at",
     "created_at", "node_type", "item"}
)  # fmt: skip
_PLAIN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:@/+=-]{0,199}$")
_TIME_KWARGS = frozenset({"updated_at", "sent_at", "created_at"})
_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}([T ][0-9:.]+)?(Z|[+-]\d{2}:?\d{2})?$")
_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,39}$")
MAX_SECRETS = 512  # a bigger request (a long fact list) has its first ones hidden; a log line quotes few
MAX_WHOLE_CHARS = 20_000  # a longer value is hidden by its prefix only (no line quotes it whole; memory stays small)
PREFIX_CHARS = 48  # and every value longer than this by its first characters too
MAX_DEPTH = 8
_BY_TASK: OrderedDict[str, dict[str, str]] = OrderedDict()  # task id -> its secrets, the last few tasks
_BY_TASK_SIZE = 64


@lru_cache(maxsize=4096)
def pseudonym(user_id: str) -> str:
    """``u:`` and the first 12 hex characters of the user's tombstone key (see the module docstring)."""
    from adapters.settings import get_settings

    secret = get_settings().forget_hmac_key.get_secret_value().encode("utf-8")
    digest = hmac.new(secret, user_id.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()
    return f"u:{digest[:12]}"


def _redact(record: logging.LogRecord, secrets: dict[str, str]) -> None:
    """Rewrite the record's message when it spells one of ``secrets`` (value -> what is shown instead)."""
    try:
        message = record.getMessage()
    except (TypeError, ValueError):
        return
    shown = _without(message, secrets)
    if shown != message:
        record.msg, record.args = shown, None
    if record.exc_info:  # the traceback, formatted now so that it can be rewritten too
        record.exc_text = _without(logging.Formatter().formatException(record.exc_info), secrets)
        record.exc_info = None
    data = getattr(record, "data", None)  # Celery's trace lines carry their context there (our JSON prints it)
    if isinstance(data, dict):
        record.data = {k: _without(v, secrets) if isinstance(v, str) else v for k, v in data.items()}
    for name in ("task_name", "stack_info"):  # a caller's ``extra``, Celery's stack
        value = getattr(record, name, None)
        if isinstance(value, str):
            setattr(record, name, _without(value, secrets))


def _without(text: str, secrets: dict[str, str]) -> str:
    for secret, replacement in secrets.items():
        if secret in text:
            text = text.replace(secret, replacement)
    return text


def _contract_names() -> frozenset[str]:
    from ella.contract import IngestPayload, MemoryRequest, ProfilePayload

    return frozenset(name for model in (IngestPayload, ProfilePayload, MemoryRequest) for name in model.model_fields)


@lru_cache(maxsize=256)
def _parameter_names(task_name: str) -> frozenset[str]:
    """The kwarg names a task of ours takes: the gateway contract's, and those of the task's own signature."""
    names = set(_contract_names())
    try:
        from celery import current_app

        task = current_app.tasks.get(task_name)
        if task is not None:
            names.update(inspect.signature(task.run).parameters)
    except (ImportError, TypeError, ValueError):
        pass
    return frozenset(names)


def _spellings(value: str) -> set[str]:
    """How a line may spell ``value``: as is, inside a Python repr, inside JSON (ASCII or not)."""
    forms = {value, repr(value)[1:-1], json.dumps(value)[1:-1], json.dumps(value, ensure_ascii=False)[1:-1]}
    return {form for form in forms if form}


def task_secrets(args: Any, kwargs: Any, task_name: str | None = None) -> dict[str, str]:
    """What a line of this request must not spell -> what it shows instead (see the module docstring)."""
    secrets: dict[str, str] = {}
    kwargs = kwargs if isinstance(kwargs, Mapping) else {}
    for name in _USER_KWARGS:  # first: a text that holds the id hides it as <text> anyway
        value = kwargs.get(name)
        if isinstance(value, str) and value:
            for form in _spellings(value[:256]):
                secrets.setdefault(form, pseudonym(value[:128]))
    known = _parameter_names(task_name) if task_name else _contract_names()

    def add(value: str, shown: str) -> None:
        if len(value) < MIN_REDACTED_TEXT or len(secrets) >= MAX_SECRETS:
            return
        if len(value) <= MAX_WHOLE_CHARS:
            for form in _spellings(value):
                secrets.setdefault(form, shown)
        if len(value) > PREFIX_CHARS:  # a repr Celery or pydantic cut short still starts with it
            for form in _spellings(value[:PREFIX_CHARS]):
                secrets.setdefault(form, shown)

    def walk(value: Any, depth: int) -> None:
        if depth > MAX_DEPTH or len(secrets) >= MAX_SECRETS:
            return
        if isinstance(value, str):
            add(value, "<text>")
        elif isinstance(value, Mapping):  # its keys are our structures' (a perception's, a statement's)
            for item in value.values():
                walk(item, depth + 1)
        elif isinstance(value, list | tuple):
            for item in value:
                walk(item, depth + 1)

    walk(list(args) if isinstance(args, list | tuple) else [], 1)
    for name, value in kwargs.items():
        if not isinstance(name, str):
            continue
        if not (_NAME.match(name) and name in known):
            add(name, "<key>")
        if name in _USER_KWARGS and isinstance(value, str):
            continue
        if name in _SHOWN_KWARGS and isinstance(value, str) and _shown_as_is(name, value):
            continue
        walk(value, 1)
    return secrets


def _shown_as_is(name: str, value: str) -> bool:
    """An id or a time that looks like one is the operator's to grep by; anything else in its place is text."""
    return bool(_TIME.match(value) if name in _TIME_KWARGS else _PLAIN_ID.match(value))


def _remember(task_id: str, secrets: dict[str, str]) -> None:
    _BY_TASK[task_id] = secrets
    _BY_TASK.move_to_end(task_id)
    while len(_BY_TASK) > _BY_TASK_SIZE:
        _BY_TASK.popitem(last=False)


def remember_task(task_id: str | None, task_name: str | None, args: Any, kwargs: Any) -> None:
    """``task_prerun``: note what this task's lines must hide before its code runs (and may clear its kwargs)."""
    if task_id:
        _remember(task_id, task_secrets(args, kwargs, task_name))


def _current_task_secrets() -> tuple[str | None, str | None, dict[str, Any], dict[str, str]]:
    """(task id, task name, kwargs, secrets) of the running Celery task; Nones and empties outside one."""
    try:
        from celery import current_task

        if current_task and current_task.request and current_task.request.id:
            request = current_task.request
            kwargs = request.kwargs if isinstance(request.kwargs, dict) else {}
            secrets = _BY_TASK.get(request.id)
            if secrets is None or (kwargs and not secrets):
                secrets = task_secrets(request.args, kwargs, current_task.name)
                _remember(request.id, secrets)
            return request.id, current_task.name, kwargs, secrets
    except ImportError:
        pass
    return None, None, {}, {}


@contextmanager
def delivery_scope(secrets: dict[str, str] | None) -> Iterator[None]:
    """While the worker's main process delivers one message: hide what its body holds (``envelope_secrets``)."""
    token = delivered_secrets.set(secrets or None)
    try:
        yield
    finally:
        delivered_secrets.reset(token)


def envelope_secrets(envelope: Any, registered: Any = None) -> dict[str, str]:
    """What the lines about this raw queue item must not spell: its body's arguments (protocol 2 or 1, base64 or
    plain), and its task name when no worker runs it (``registered``: name -> bool)."""
    from workers.envelopes import _decode_body

    if not isinstance(envelope, dict):
        return {}
    secrets: dict[str, str] = {}
    given = envelope.get("headers")
    headers: dict[str, Any] = given if isinstance(given, dict) else {}
    task = headers.get("task")
    try:
        body, problem = _decode_body(envelope)
    except Exception:  # noqa: BLE001  whatever the check itself makes of it; here only what to hide is at stake
        body, problem = None, "undecodable"
    if problem is None:
        if isinstance(body, list) and len(body) == 3:
            secrets = task_secrets(body[0], body[1], task if isinstance(task, str) else None)
        elif isinstance(body, dict):  # protocol 1: {"task", "id", "args", "kwargs"}
            task = task or body.get("task")
            secrets = task_secrets(body.get("args"), body.get("kwargs"), task if isinstance(task, str) else None)
    if isinstance(task, str) and registered is not None and not registered(task) and len(task) >= MIN_REDACTED_TEXT:
        for form in _spellings(task):
            secrets.setdefault(form, "<task>")
    return secrets


def _ordered(secrets: dict[str, str]) -> dict[str, str]:
    """Longest first, so a text that holds the user id is hidden whole, not around a pseudonym."""
    return dict(sorted(secrets.items(), key=lambda item: -len(item[0])))


class ContextFilter(logging.Filter):
    """Stamp every record with the running Celery task's id and name and the pseudonym of the user being served,
    and keep the request's user id and words out of it (see the module docstring)."""

    def filter(self, record: logging.LogRecord) -> bool:
        task_id, task_name, kwargs, found = _current_task_secrets()
        secrets = dict(found)
        user_id = current_user_id.get()
        if not user_id and isinstance(kwargs.get("user_id"), str):
            user_id = kwargs["user_id"][:128]
        if user_id:
            for form in _spellings(user_id):
                secrets.setdefault(form, pseudonym(user_id))
        if task_id is None:
            secrets.update(delivered_secrets.get() or {})
        if secrets:
            _redact(record, _ordered(secrets))
        given = getattr(record, "user_id", None)
        if isinstance(given, str) and given and not given.startswith("u:"):
            given = pseudonym(given)  # a caller's ``extra={"user_id": ...}`` is pseudonymised too
        record.task_id = getattr(record, "task_id", None) or task_id
        record.task_name = getattr(record, "task_name", None) or task_name
        record.user_id = given or (pseudonym(user_id) if user_id else None)
        return True


@contextmanager
def user_scope(user_id: str | None) -> Iterator[None]:
    token = current_user_id.set(user_id)
    try:
        yield
    finally:
        current_user_id.reset(token)


def json_formatter() -> logging.Formatter:
    return JsonFormatter(
        FIELDS, rename_fields={"levelname": "level", "asctime": "ts", "name": "logger", "user_id": "user"}
    )


def install(logger: logging.Logger, as_json: bool) -> None:
    """Put the context filter (and the JSON formatter if asked) on every handler of ``logger``, and the delivery
    scope on kombu's Redis transport (after ``workers.envelopes``' check, which wraps the same method)."""
    for handler in logger.handlers:
        if not any(isinstance(f, ContextFilter) for f in handler.filters):
            handler.addFilter(ContextFilter())
        if as_json:
            handler.setFormatter(json_formatter())
    install_delivery_scope()


def install_delivery_scope() -> None:
    """Wrap kombu's ``Transport._deliver`` so that every line logged while one of our queues' messages is delivered
    (Celery's "received", the envelope check's dead letter) hides what that message holds. Idempotent."""
    from kombu.transport import redis as kombu_redis

    current = kombu_redis.Transport._deliver
    if getattr(current, "_ella_delivery_scope", False):
        return

    def deliver(transport: Any, message: Any, queue: Any) -> Any:
        from adapters.settings import get_settings

        if queue not in get_settings().queues:
            return current(transport, message, queue)
        try:
            from celery import current_app

            secrets = envelope_secrets(message, lambda name: name in current_app.tasks)
        except Exception:  # noqa: BLE001  never let the log's defence stop a delivery
            secrets = {}
        with delivery_scope(secrets):
            return current(transport, message, queue)

    deliver._ella_delivery_scope = True  # type: ignore[attr-defined]
    kombu_redis.Transport._deliver = deliver  # type: ignore[method-assign]


def _remember_at_prerun(
    task_id: str | None = None, task: Any = None, args: Any = None, kwargs: Any = None, **_: Any
) -> None:
    remember_task(task_id, getattr(task, "name", None), args, kwargs)


def _connect_signals() -> None:
    try:
        from celery import signals
    except ImportError:
        return
    signals.task_prerun.connect(_remember_at_prerun, weak=False, dispatch_uid="ella.logs.remember_task")


_connect_signals()

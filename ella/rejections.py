"""The gateway's failure channel: which refusal gets which stable code, and what the stream entry says.

Why: a gateway request that Ella refuses or gives up on (a dead letter) used to be visible only in the
``dead_letters`` table; the gateway waited on silence. Every such request now yields one outbox stream entry of
kind ``rejected`` whose ``code`` is one of ``CODES`` below. The codes are a contract (docs/gateway.md is written
from this list): a new refusal gets a new code here, an existing code never changes its meaning. ``code_for``
maps a dead letter's reason (the text each place that dead-letters writes today) to its code; the reason stays
in ``dead_letters`` for the operator, and the entry's ``text`` is the code's fixed sentence, never the reason
(a reason may quote the payload: a pydantic error shows the value it refused).

Which requests answer elsewhere (no ``rejected`` entry, so each request gets one entry):
- an ingest whose model refused or stayed down: the fallback reply (route ``fallback``) was sent for that
  message; its dead letter records the model's failure for the operator;
- a memory request (``ella.export_user``, ``ella.forget_memory``, ``ella.correct_fact``, ``ella.list_memory``,
  ``ella.search_memory``) refused as malformed
  whose ``user_id`` and ``request_id`` could be read: it is answered by its ``answer`` entry (category
  ``refused``, error ``malformed``, tasks/memory_requests.py). Its other dead letters (an envelope refused before
  the task ran, a request id another user took, an erased user, a worker lost) have no answer and get a
  ``rejected`` entry.

Plain Python: the worker side (what publishes the entry) is ``adapters.dead_letters``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import Any

from ella.contract import OutboxEntry

INGEST = "ella.ingest_message"
UPDATE_PROFILE = "ella.update_profile"
FORGET_USER = "ella.forget_user"
MEMORY_REQUEST_TASKS = frozenset(
    {"ella.export_user", "ella.forget_memory", "ella.correct_fact", "ella.list_memory", "ella.search_memory"}
)
GATEWAY_TASKS = frozenset({INGEST, UPDATE_PROFILE, FORGET_USER, *MEMORY_REQUEST_TASKS})
# The refusals of a raw queue item before any task runs (workers/envelopes.py): answered whatever the task name
# says, or when none can be read (only something outside Ella pushes a malformed item: never silence).
ENVELOPE_CODES = frozenset({"malformed_envelope", "unknown_task", "wrong_queue"})
_LABELS = ("user_id", "message_id", "request_id", "updated_at")

# code -> (what it means, for docs/gateway.md; the entry's ``text``: short, English, no user text)
CODES: dict[str, tuple[str, str]] = {
    "malformed_envelope": (
        "the raw message is not a Celery protocol 2 JSON task message Ella can run (undecodable body, headers "
        "of the wrong type, a body that is not [args, kwargs, embed], too large, nested deeper than 32 levels, not "
        "JSON); the dead letter names the exact problem",
        "The message could not be read as a task message; nothing was done.",
    ),
    "unknown_task": (
        "the task name is not one Ella runs",
        "Ella runs no task of this name; nothing was done.",
    ),
    "wrong_queue": (
        "a known task sent on a queue other than its own (workers/routing.py)",
        "The task was sent on the wrong queue; nothing was done.",
    ),
    "malformed_payload": (
        "the kwargs break the task's contract (ella/contract.py): a missing or unknown key, a wrong type, a "
        "text too long, blank or not valid Unicode, a time without a zone...; never retried",
        "The request's arguments are not valid for this task; nothing was stored.",
    ),
    "message_id_taken": (
        "ingest: the message_id was already used by another user's message",
        "This message_id belongs to another user's message; nothing was stored.",
    ),
    "request_id_taken": (
        "a memory request: the request_id was already used by another request",
        "This request_id was already used by another request; nothing was done.",
    ),
    "user_erased": (
        "the user was erased (ella.forget_user): a late message, profile or request is refused and creates "
        "nobody; the entry carries no user_id",
        "The user was erased; the request was refused and nothing was stored.",
    ),
    "unsigned": (
        "a forget, export, correction or memory page with no signature, on a deployment that has a gateway "
        "signing key (ELLA_GATEWAY_SIGNING_KEY; docs/gateway.md, signed requests): nothing was read or changed",
        "The request carries no signature and was refused; nothing was done.",
    ),
    "bad_signature": (
        "a signed request whose signature does not match (another key, a field changed after signing, or a field "
        "of a type that cannot be signed): nothing was read or changed",
        "The request's signature does not match; nothing was done.",
    ),
    "model_unavailable": (
        "the model stayed unavailable through every retry (a task with no fallback reply)",
        "The model stayed unavailable; the request was given up.",
    ),
    "model_refused": (
        "the model refused the request (a permanent error: 400, 401, 403), not retried",
        "The model refused the request; it was not retried.",
    ),
    "worker_lost": (
        "the task was delivered more than ELLA_MAX_DELIVERIES times and its worker died each time",
        "The request kept stopping its worker and was given up.",
    ),
    "gave_up": (
        "ingest: the message was never answered after ELLA_INBOX_MAX_RESENDS re-sends by the inbox sweep",
        "The message was never answered after several re-sends and was given up.",
    ),
    "time_limit": (
        "the task ran past its hard time limit (ELLA_TASK_TIME_LIMIT_S) and was killed",
        "The request took too long and was stopped.",
    ),
    "storage_unavailable": (
        "the database or Redis stayed unreachable through every retry",
        "Ella's storage stayed unreachable; the request was given up.",
    ),
    "failed": (
        "any other failure (a bug): the operator finds the reason in dead_letters",
        "The request failed inside Ella; the operator has the details.",
    ),
}

# The reasons written today (workers/reliability.py, workers/envelopes.py, workers/events.py,
# adapters/dead_letters.py, tasks/inbox.py, tasks/memory_requests.py, tasks/ingest.py, ella/reply.py), first
# match wins: the specific ones before the general ones.
_REASONS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), code)
    for pattern, code in (
        (r"^unsigned request: ", "unsigned"),
        (r"^bad signature: ", "bad_signature"),
        (r"^the user was erased \(right to be forgotten\)", "user_erased"),
        (r"^a task of a user erased meanwhile", "user_erased"),
        (r"^malformed envelope on queue .*: unknown task ", "unknown_task"),
        (r"^malformed envelope on queue .*: task \S+ belongs on queue ", "wrong_queue"),
        (r"^malformed envelope on queue ", "malformed_envelope"),
        (r"^malformed payload: message_id .* was already used by another user", "message_id_taken"),
        (r"^malformed payload: request_id .* was already used by another request", "request_id_taken"),
        (r"^malformed payload: ", "malformed_payload"),
        (r"^redelivery cap: ", "worker_lost"),
        (r"^model unavailable", "model_unavailable"),
        (r"^model refused", "model_refused"),
        (r"^never answered after \d+ re-sends", "gave_up"),
        (r"^failed: (TimeLimitExceeded|SoftTimeLimitExceeded)\b", "time_limit"),
        (r"^failed: (OperationalError|ConnectionError|TimeoutError|InterfaceError)\b", "storage_unavailable"),
    )
)
_FALLBACK_SENT = "the fallback was sent"
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:@/+=-]{0,199}$")  # ella.contract.ID_PATTERN, 200 at most
_USER_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:@/+=-]{0,127}$")


def code_for(reason: str) -> str:
    """The stable code of a dead letter's reason (``failed`` for one no pattern knows)."""
    for pattern, code in _REASONS:
        if pattern.search(reason):
            return code
    return "failed"


def text_for(code: str) -> str:
    """The entry's ``text``: the code's fixed sentence (never the reason, which may quote the payload)."""
    return CODES.get(code, CODES["failed"])[1]


def answered_elsewhere(task: str, reason: str, kwargs: Mapping[str, Any]) -> bool:
    """True when the request already has its one stream entry (see the module docstring): no rejected entry."""
    if task == INGEST and _FALLBACK_SENT in reason:
        return True
    if task in MEMORY_REQUEST_TASKS and code_for(reason) == "malformed_payload":
        return safe_id(kwargs.get("user_id"), user=True) != "" and safe_id(kwargs.get("request_id")) != ""
    return False


def safe_id(value: Any, *, user: bool = False) -> str:
    """``value`` when it is an id the contract would accept (printable, short), else ""."""
    pattern = _USER_ID if user else _ID
    return value if isinstance(value, str) and pattern.match(value) else ""


def labels(args: Any, kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """The ids that label a refusal: the kwargs', and for each one they lack, an object among positional
    ``args`` (a client that sent the kwargs as one positional argument, refused for it) that has it. Only a
    label: ``answered_elsewhere`` and the tasks read the kwargs alone."""
    found = {name: kwargs[name] for name in _LABELS if name in kwargs}
    for arg in args if isinstance(args, list | tuple) else ():
        if isinstance(arg, Mapping):
            for name in _LABELS:
                if found.get(name) is None and arg.get(name) is not None:
                    found[name] = arg[name]
    return found


def reply_key(task: str, kwargs: Mapping[str, Any], task_id: str | None) -> str:
    """What the entry's ``in_reply_to`` names: the message id (ingest), the request id (memory requests), the
    profile's ``updated_at`` (the gateway has no request id for a profile), the Celery task id (an erasure: the
    gateway matches it by the id ``send_task`` gave it), an unknown task's ``message_id`` or ``request_id``; ""
    when it cannot be read."""
    if task == INGEST:
        return safe_id(kwargs.get("message_id"))
    if task in MEMORY_REQUEST_TASKS:
        return safe_id(kwargs.get("request_id"))
    if task == UPDATE_PROFILE:
        return safe_id(kwargs.get("updated_at"))
    if task == FORGET_USER:
        return safe_id(task_id)
    return safe_id(kwargs.get("message_id")) or safe_id(kwargs.get("request_id"))  # an unknown task's


def rejected_outbox_id(task: str, user_id: str, in_reply_to: str, task_id: str | None, fallback: str = "") -> str:
    """The entry's deterministic ``outbox_id``: a redelivery, or a re-send of the same message, publishes nothing
    twice. Keyed by the request's own id when known, else by the task id, else by ``fallback`` (an envelope with
    neither: its dead letter's row id); a hash, so the publish marker's Redis key never spells a user id.

    A profile's own id is its ``updated_at``, which other users' snapshots share (a gateway that stamps a batch
    of profiles with one time): with no user to tell them apart (an erased user's entries name nobody), two
    erased users' refused profiles would get one ``outbox_id``, and the second would never be published. So a
    profile refusal without a user is keyed by its task id too, and the gateway tells them apart by ``task_id``.
    """
    key = in_reply_to or task_id or fallback
    if task == UPDATE_PROFILE and not user_id and in_reply_to and task_id:
        key = f"{in_reply_to}\0{task_id}"
    digest = hashlib.sha256(f"{task}\0{user_id}\0{key}".encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return f"rejected-{digest}"


# --- acks: a profile update or an erasure done -----------------------------------------------------------------

ACK_CODES: dict[str, tuple[str, str]] = {
    "applied": ("ella.update_profile: the snapshot is stored", "Profile applied."),
    "stale": (
        "ella.update_profile: not stored, the same or a newer snapshot (by updated_at) already is",
        "Profile not applied: the same or a newer one is stored.",
    ),
    "erased": ("ella.forget_user: the first pass erased the user", "The user was erased."),
    "second_pass_done": (
        "ella.forget_user: the second pass (after ELLA_TASK_TIME_LIMIT_S) erased what tasks in flight wrote",
        "The erasure's second pass is done.",
    ),
}


def ack_entry(
    task: str,
    code: str,
    *,
    user_id: str,
    in_reply_to: str,
    outbox_id: str,
    created_at: str,
    task_id: str | None = None,
) -> OutboxEntry:
    """One ``ack`` entry: ``code`` its outcome (``ACK_CODES``), ``text`` that outcome's sentence, ``task_id`` the
    Celery task id acknowledged (when it is a plain id)."""
    return OutboxEntry(
        kind="ack",
        user_id=user_id,
        text=ACK_CODES[code][1],
        route="",
        category="",
        outbox_id=outbox_id,
        in_reply_to=in_reply_to,
        created_at=created_at,
        task=task,
        task_id=safe_id(task_id),
        code=code,
    )


def ack_outbox_id(task: str, task_id: str | None, fallback: str, suffix: str = "") -> str:
    """``ack:<task>:<Celery task id>[:<suffix>]``: the gateway finds the task id ``send_task`` gave it there, and
    a redelivery publishes nothing twice. A task id that is not a plain id (or none: called in-process) is
    replaced by a hash of ``fallback``."""
    key = safe_id(task_id) or hashlib.sha256(fallback.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return f"ack:{task}:{key}" + (f":{suffix}" if suffix else "")

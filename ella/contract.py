"""The gateway contract: what an ingest payload must be, checked before anything is stored.

Why strict: a gateway bug must surface as a dead-letter row with a reason the gateway engineer can act on,
not as a half-stored turn or a worker crash. Unknown keys, naive datetimes and texts no database can hold
(lone surrogates, NUL) are refused, not repaired.

Payloads that come in: a message (``IngestPayload``, task ``ella.ingest_message``), the user's profile
(``ProfilePayload``, task ``ella.update_profile``), a full snapshot ordered by the gateway's ``updated_at``, and
the user's say over their memory (``MemoryRequest``: ``ella.export_user``, ``ella.forget_memory``,
``ella.correct_fact``), each with the gateway's ``request_id``, answered once on the outbox stream, and a page of
it (``MemoryPageRequest``: ``ella.list_memory``, ``ella.search_memory``).
"""

from __future__ import annotations

import re
import unicodedata
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from pydantic import (
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    ValidationError,
    field_validator,
)
from pydantic.config import JsonDict

from ella.profile import LOCALE_PATTERN, WINDOW_PATTERN, iana_zones, window_minutes

ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:@/+=-]*$"
ISO_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")

# --- the same rules as JSON Schema patterns (docs/schemas/), for gateways that validate before they send ---------
# Why here, beside the validators: a schema that accepts what the worker refuses (16,001 characters, a NUL, a
# lone surrogate, blank text) sends a gateway engineer to the dead letters to find out. Each pattern says what a
# validator below checks, in the regex dialect Python's ``re`` and ECMA-262 (with the ``u`` flag, as JSON Schema
# validators such as ajv compile) read alike: ``\uXXXX`` escapes in the Basic Multilingual Plane, the characters
# beyond it written as themselves (JSON files carry them as surrogate-pair escapes, which decode to the character).
_NO_NUL_OR_SURROGATE = r"\u0000\ud800-\udfff"
# What ``is_blank`` calls blank, one character at a time: white space (``str.isspace``), format (Cf) and control
# (Cc) characters (Unicode 14.0, Python 3.11's; tests/test_gateway_spec_truth.py checks it against is_blank).
BLANK_CLASS = (
    r"\u0000-\u0020\u007f-\u00a0\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u1680\u180e"
    r"\u2000-\u200f\u2028-\u202f\u205f-\u2064\u2066-\u206f\u3000\ufeff\ufff9-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U00013438\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001"
    "\U000e0020-\U000e007f"
)
# A string with no NUL and no lone surrogate (the ids' pattern already excludes both).
NO_NUL_PATTERN = rf"^[^{_NO_NUL_OR_SURROGATE}]*$"
# ``clean_text`` and the query's rule: no NUL, no lone surrogate, and at least one character that is not blank.
READABLE_PATTERN = rf"^(?=[\s\S]*[^{BLANK_CLASS}])[^{_NO_NUL_OR_SURROGATE}]*$"
# What pydantic reads as an aware date and time from a string (``_iso_8601`` refuses numbers and other shapes;
# a naive one is refused for its missing zone): date, ``T`` or a space, hours and minutes, optional seconds and
# fraction, then ``Z`` or an offset. Calendar validity (30 February) is ``format: date-time``.
_TIME_AND_ZONE = (
    r"[T ]([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9]([.,][0-9]+)?)?"  # hours, minutes, seconds and a fraction
    r"([Zz]|[+-]([01][0-9]|2[0-3]):?[0-5][0-9])$"  # the zone
)
_DATE = r"-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
DATETIME_PATTERN = rf"^[0-9]{{4}}{_DATE}{_TIME_AND_ZONE}"
# A message's ``sent_at`` is not before 2000 (``EARLIEST_SENT_AT``); its latest, a day past the worker's clock,
# cannot be a pattern.
SENT_AT_PATTERN = rf"^2[0-9]{{3}}{_DATE}{_TIME_AND_ZONE}"
# A window that starts where it ends is empty (``ProfilePayload._not_empty_window``): the schemas say ``not`` this.
EMPTY_WINDOW_PATTERN = r"^([0-9]{2}:[0-9]{2})-\1$"
_NOT_EMPTY_WINDOW: JsonDict = {"not": {"type": "string", "pattern": EMPTY_WINDOW_PATTERN}}
# The shape of an IANA zone name; which names exist is the worker's tz database (``ella.profile.iana_zones``).
ZONE_PATTERN = r"^[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+)*$"
# A message's ``sent_at`` is a moment a person typed something: not before this, and not further ahead of our
# clock than the skew below. Why: a year-9999 ``sent_at`` passed validation and then overflowed ``datetime``
# arithmetic (conversation timeouts) in every retry, ending as several dead letters instead of one.
EARLIEST_SENT_AT = datetime(2000, 1, 1, tzinfo=UTC)
MAX_CLOCK_SKEW = timedelta(days=1)
# ``ELLA_MAX_MESSAGE_CHARS``'s default (adapters.settings), which the ingest schema's ``maxLength`` carries.
DEFAULT_MAX_MESSAGE_CHARS = 16_000


def _iso_8601(value: Any) -> Any:
    """pydantic would read 1700000000 (or "1700000000") as epoch seconds: a unit guess, not ISO-8601."""
    if isinstance(value, int | float) or (isinstance(value, str) and not ISO_DATETIME.match(value)):
        raise ValueError(f"must be an ISO-8601 date and time with a zone offset, got {value!r}")
    return value


def is_blank(text: str) -> bool:
    """Nothing a person could read: only whitespace, format characters (zero-width space and joiners, BOM,
    word joiner) and control characters."""
    return all(ch.isspace() or unicodedata.category(ch) in ("Cf", "Cc") for ch in text)


class MalformedPayload(ValueError):
    """A payload that will never succeed: dead-lettered with ``reason``, never retried."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class IngestPayload(BaseModel):
    """kwargs of ``ella.ingest_message``."""

    model_config = ConfigDict(extra="forbid", strict=False, frozen=True)

    message_id: str = Field(min_length=1, max_length=200, pattern=ID_PATTERN)
    user_id: str = Field(min_length=1, max_length=128, pattern=ID_PATTERN)
    # ``clean_text`` checks the text (the limit is ELLA_MAX_MESSAGE_CHARS, counted after NFC: the schema carries
    # the default); pydantic checks none of the schema-only keys below.
    text: str = Field(
        json_schema_extra={"minLength": 1, "maxLength": DEFAULT_MAX_MESSAGE_CHARS, "pattern": READABLE_PATTERN}
    )
    sent_at: AwareDatetime = Field(json_schema_extra={"pattern": SENT_AT_PATTERN})
    conversation_id: str | None = Field(None, min_length=1, max_length=200, pattern=ID_PATTERN)

    @field_validator("message_id", "user_id", "conversation_id", "text", mode="before")
    @classmethod
    def _strings_only(cls, value: Any) -> Any:
        if value is not None and not isinstance(value, str):
            raise ValueError(f"must be a string, not {type(value).__name__}")
        return value

    @field_validator("sent_at", mode="before")
    @classmethod
    def _sent_at_iso_8601(cls, value: Any) -> Any:
        return _iso_8601(value)

    @field_validator("sent_at")
    @classmethod
    def _sent_at_plausible(cls, value: datetime) -> datetime:
        latest = datetime.now(UTC) + MAX_CLOCK_SKEW
        if not EARLIEST_SENT_AT <= value <= latest:
            raise ValueError(
                f"{value.isoformat()} is outside {EARLIEST_SENT_AT.date()} .. now + {MAX_CLOCK_SKEW}; "
                "check the gateway's clock and units"
            )
        return value


def clean_text(text: str, max_chars: int) -> str:
    """NFC-normalised text, or a MalformedPayload saying exactly what is wrong with it."""
    if len(text) > max_chars * 4:  # refuse before normalising a megabyte
        raise MalformedPayload(f"text: {len(text)} characters, the limit is {max_chars}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise MalformedPayload(f"text: lone surrogate at position {exc.start}; text must be valid Unicode") from exc
    if "\x00" in text:
        raise MalformedPayload(f"text: NUL character at position {text.index(chr(0))}")
    text = unicodedata.normalize("NFC", text)
    if len(text) > max_chars:
        raise MalformedPayload(f"text: {len(text)} characters, the limit is {max_chars}")
    if is_blank(text):
        raise MalformedPayload("text: empty or only whitespace, zero-width or control characters")
    return text


def parse_ingest(args: tuple[Any, ...], kwargs: dict[str, Any], max_chars: int) -> IngestPayload:
    """Validate a task call's arguments into an IngestPayload (text cleaned), or raise MalformedPayload."""
    if args:
        raise MalformedPayload(f"positional arguments are not accepted ({len(args)} given); send kwargs")
    try:
        payload = IngestPayload.model_validate(kwargs)
    except ValidationError as exc:
        raise MalformedPayload(problems(exc)) from None
    return payload.model_copy(update={"text": clean_text(payload.text, max_chars)})


def problems(exc: ValidationError) -> str:
    """Every problem of a payload, each naming its field: the dead letter's reason."""
    return "; ".join(f"{'.'.join(str(p) for p in err['loc']) or 'payload'}: {err['msg']}" for err in exc.errors())


class ProfilePayload(BaseModel):
    """kwargs of ella.update_profile: the user's whole profile as of updated_at (every key required)."""

    model_config = ConfigDict(extra="forbid", strict=False, frozen=True)

    user_id: str = Field(min_length=1, max_length=128, pattern=ID_PATTERN, description="As in ella.ingest_message.")
    updated_at: AwareDatetime = Field(
        description="When the gateway took this snapshot, ISO-8601 with a zone; an older one never wins.",
        json_schema_extra={"pattern": DATETIME_PATTERN},
    )
    timezone: str = Field(
        min_length=1,
        max_length=64,
        description="IANA time zone, e.g. Europe/London.",
        json_schema_extra={"pattern": ZONE_PATTERN},
    )
    locale: str = Field(
        pattern=LOCALE_PATTERN,
        description="language[_COUNTRY], e.g. en_GB, de_DE, en; the country picks the crisis line.",
    )
    is_minor: StrictBool = Field(description="true for a user known to be a minor (break reminders, CA SB 243).")
    do_not_disturb: str | None = Field(
        pattern=WINDOW_PATTERN,
        description="Local HH:MM-HH:MM with no notifications (may wrap midnight); null for none.",
        json_schema_extra=_NOT_EMPTY_WINDOW,
    )
    active_hours: str = Field(
        pattern=WINDOW_PATTERN,
        description="Local HH:MM-HH:MM when Ella may reach out (may wrap midnight).",
        json_schema_extra=_NOT_EMPTY_WINDOW,
    )
    notifications: StrictBool = Field(description="false: Ella never reaches out to this user.")

    @field_validator("user_id", "timezone", "locale", "do_not_disturb", "active_hours", mode="before")
    @classmethod
    def _strings_only(cls, value: Any) -> Any:
        if value is not None and not isinstance(value, str):
            raise ValueError(f"must be a string, not {type(value).__name__}")
        return value

    @field_validator("updated_at", mode="before")
    @classmethod
    def _updated_at_iso_8601(cls, value: Any) -> Any:
        return _iso_8601(value)

    @field_validator("timezone")
    @classmethod
    def _iana_zone(cls, value: str) -> str:
        if value not in iana_zones():
            raise ValueError(f"unknown IANA time zone {value!r}")
        return value

    @field_validator("do_not_disturb", "active_hours")
    @classmethod
    def _not_empty_window(cls, value: str | None) -> str | None:
        if value is not None:
            start, end = window_minutes(value)
            if start == end:
                raise ValueError(f"{value!r} starts where it ends: an empty window (send null for no do-not-disturb)")
        return value


def parse_profile(args: tuple[Any, ...], kwargs: dict[str, Any]) -> ProfilePayload:
    """Validate a task call's arguments into a ProfilePayload, or raise MalformedPayload."""
    if args:
        raise MalformedPayload(f"positional arguments are not accepted ({len(args)} given); send kwargs")
    try:
        return ProfilePayload.model_validate(kwargs)
    except ValidationError as exc:
        raise MalformedPayload(problems(exc)) from None


class MemoryRequest(BaseModel):
    """kwargs of ella.export_user, ella.forget_memory and ella.correct_fact (each task requires what it uses).

    ``request_id`` is the gateway's id of the request: its answer on the outbox stream carries it as
    ``in_reply_to``, and a repeat of the same id is answered once. ``item`` names what to forget or correct:
    ``"memory:<id>"`` (a memory node, from the export) or ``"fact:<id>"`` (a world fact)."""

    model_config = ConfigDict(extra="forbid", strict=False, frozen=True)

    request_id: str = Field(min_length=1, max_length=200, pattern=ID_PATTERN)
    user_id: str = Field(min_length=1, max_length=128, pattern=ID_PATTERN)
    item: str | None = Field(default=None, pattern=r"^(memory|fact):[1-9][0-9]{0,17}$")
    value: str | None = Field(default=None, min_length=1, max_length=400, json_schema_extra={"pattern": NO_NUL_PATTERN})
    reason: str = Field(default="", max_length=500, json_schema_extra={"pattern": NO_NUL_PATTERN})
    signature: str | None = Field(
        default=None,
        pattern=r"^[0-9a-f]{64}$",
        description="The gateway's HMAC-SHA256 of the request, lowercase hex (ella/signing.py, docs/gateway.md); "
        "required when the deployment has a signing key, and checked before anything else.",
    )

    @field_validator("request_id", "user_id", "item", "value", "reason", mode="before")
    @classmethod
    def _strings_only(cls, value: Any) -> Any:
        if value is not None and not isinstance(value, str):
            raise ValueError(f"must be a string, not {type(value).__name__}")
        if isinstance(value, str) and ("\x00" in value or any(0xD800 <= ord(c) <= 0xDFFF for c in value)):
            raise ValueError("holds a NUL or a lone surrogate")
        return value

    @property
    def kind_and_id(self) -> tuple[str, int]:
        kind, _, number = (self.item or "").partition(":")
        return kind, int(number)


def parse_memory_request(
    args: tuple[Any, ...], kwargs: dict[str, Any], *, item: bool = False, value: bool = False
) -> MemoryRequest:
    """Validate a memory request's kwargs; ``item``/``value``: the task needs them."""
    if args:
        raise MalformedPayload(f"positional arguments are not accepted ({len(args)} given); send kwargs")
    try:
        request = MemoryRequest.model_validate(kwargs)
    except ValidationError as exc:
        raise MalformedPayload(problems(exc)) from None
    if item and request.item is None:
        raise MalformedPayload("item: required, as memory:<id> or fact:<id>")
    if value and request.value is None:
        raise MalformedPayload("value: required (the corrected value)")
    if value and request.item is not None and not request.item.startswith("fact:"):
        raise MalformedPayload("item: a correction names a fact, as fact:<id>")
    return request


class MemoryPageRequest(BaseModel):
    """kwargs of ella.list_memory and ella.search_memory: one page of the user's facts, memories or thoughts.

    ``kind`` is ``fact``, ``memory`` or ``thought``; ``limit`` the page size (1 to 100, 20 by default);
    ``cursor`` the ``next_cursor`` of the previous page's answer (absent: the first page, newest first);
    ``include_past`` lists superseded and retired facts too (live ones only by default); ``query`` is what
    ella.search_memory looks for in each item's text (case-insensitive), and only it takes one."""

    model_config = ConfigDict(extra="forbid", strict=False, frozen=True)

    request_id: str = Field(min_length=1, max_length=200, pattern=ID_PATTERN)
    user_id: str = Field(min_length=1, max_length=128, pattern=ID_PATTERN)
    kind: Literal["fact", "memory", "thought"]
    limit: StrictInt = Field(default=20, ge=1, le=100)
    cursor: str | None = Field(default=None, min_length=1, max_length=600, pattern=r"^[A-Za-z0-9_-]+$")
    include_past: StrictBool = False
    query: str | None = Field(
        default=None, min_length=1, max_length=200, json_schema_extra={"pattern": READABLE_PATTERN}
    )
    signature: str | None = Field(
        default=None,
        pattern=r"^[0-9a-f]{64}$",
        description="The gateway's HMAC-SHA256 of the request, lowercase hex (ella/signing.py, docs/gateway.md); "
        "required when the deployment has a signing key, and checked before anything else.",
    )

    @field_validator("request_id", "user_id", "kind", "cursor", "query", mode="before")
    @classmethod
    def _strings_only(cls, value: Any) -> Any:
        return MemoryRequest._strings_only(value)  # the same rule: strings, no NUL, no lone surrogate

    @field_validator("query")
    @classmethod
    def _readable_query(cls, value: str | None) -> str | None:
        if value is not None and is_blank(value):
            raise ValueError("empty or only whitespace, zero-width or control characters")
        return value


def parse_memory_page(args: tuple[Any, ...], kwargs: dict[str, Any], *, search: bool) -> MemoryPageRequest:
    """Validate a page request's kwargs; ``search``: ella.search_memory (a ``query`` is required), else
    ella.list_memory (a ``query`` is refused: a list that silently ignored it would look like a search)."""
    if args:
        raise MalformedPayload(f"positional arguments are not accepted ({len(args)} given); send kwargs")
    try:
        request = MemoryPageRequest.model_validate(kwargs)
    except ValidationError as exc:
        raise MalformedPayload(problems(exc)) from None
    if search and request.query is None:
        raise MalformedPayload("query: required, the text to look for")
    if not search and request.query is not None:
        raise MalformedPayload("query: only ella.search_memory takes a query")
    return request


# --- the wire schemas: one file per gateway task under docs/schemas/ ---------------------------------------------


def _for_task(
    model: type[BaseModel], task: str, *, required: tuple[str, ...] = (), **properties: Any
) -> dict[str, Any]:
    """``model``'s schema as one task takes it: what the task requires besides the model (``parse_memory_request``'s
    ``item`` and ``value``, a search's ``query``), and the properties it narrows (each replaced whole)."""
    schema = model.model_json_schema()
    schema["title"] = f"{task} kwargs"
    schema["description"] = f"kwargs of {task} ({model.__name__}, ella/contract.py, and what this task requires)."
    schema["required"] = [*schema["required"], *(name for name in required if name not in schema["required"])]
    for name, narrowed in properties.items():
        schema["properties"][name] = narrowed
    return schema


def _not_null(schema: dict[str, Any], name: str) -> dict[str, Any]:
    """The string branch of an optional property's ``anyOf`` (the task requires a value), with its other keys."""
    field = schema["properties"][name]
    (string,) = [branch for branch in field["anyOf"] if branch.get("type") == "string"]
    return {**{k: v for k, v in field.items() if k not in ("anyOf", "default")}, **string}


def kwargs_schemas() -> dict[str, dict[str, Any]]:
    """Every JSON Schema file of docs/schemas/ that describes a task's kwargs, by file name: one per gateway task
    (what that task accepts, no more: a forget needs its ``item``, a search its ``query``), and the two models
    the memory requests and pages share. ``python -m ella.contract docs/schemas`` writes them;
    tests/test_gateway_spec.py checks the files are these."""
    memory, page = MemoryRequest.model_json_schema(), MemoryPageRequest.model_json_schema()
    return {
        "ingest_message.kwargs.schema.json": IngestPayload.model_json_schema(),
        "update_profile.kwargs.schema.json": ProfilePayload.model_json_schema(),
        "forget_user.kwargs.schema.json": {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "ForgetUserKwargs",
            "description": "kwargs of ella.forget_user: the user to erase everywhere (not user_id: the erasure's own "
            "log lines never carry the id).",
            "type": "object",
            "additionalProperties": False,
            "required": ["user"],
            "properties": {
                "user": {"type": "string", "minLength": 1, "maxLength": 128, "pattern": ID_PATTERN},
                "signature": {
                    "type": "string",
                    "pattern": "^[0-9a-f]{64}$",
                    "description": "The gateway's HMAC-SHA256 of the request, lowercase hex (docs/gateway.md, signed "
                    "requests); required when the deployment has a signing key.",
                },
            },
        },
        "memory_request.kwargs.schema.json": memory,
        "memory_page.kwargs.schema.json": page,
        "export_user.kwargs.schema.json": _for_task(MemoryRequest, "ella.export_user"),
        "forget_memory.kwargs.schema.json": _for_task(
            MemoryRequest, "ella.forget_memory", required=("item",), item=_not_null(memory, "item")
        ),
        "correct_fact.kwargs.schema.json": _for_task(
            MemoryRequest,
            "ella.correct_fact",
            required=("item", "value"),
            item={**_not_null(memory, "item"), "pattern": r"^fact:[1-9][0-9]{0,17}$"},
            value=_not_null(memory, "value"),
        ),
        "list_memory.kwargs.schema.json": _for_task(
            MemoryPageRequest,
            "ella.list_memory",
            query={"type": "null", "title": "Query", "description": "A list takes no query (ella.search_memory does)."},
        ),
        "search_memory.kwargs.schema.json": _for_task(
            MemoryPageRequest, "ella.search_memory", required=("query",), query=_not_null(page, "query")
        ),
    }


# The schema file of each gateway task's kwargs (docs/gateway.md, section 1).
TASK_SCHEMA_FILES: dict[str, str] = {
    "ella.ingest_message": "ingest_message.kwargs.schema.json",
    "ella.update_profile": "update_profile.kwargs.schema.json",
    "ella.forget_user": "forget_user.kwargs.schema.json",
    "ella.export_user": "export_user.kwargs.schema.json",
    "ella.forget_memory": "forget_memory.kwargs.schema.json",
    "ella.correct_fact": "correct_fact.kwargs.schema.json",
    "ella.list_memory": "list_memory.kwargs.schema.json",
    "ella.search_memory": "search_memory.kwargs.schema.json",
}


class OutboxEntry(BaseModel):
    """One entry of the outbox Redis Stream, as the gateway reads it (all fields are strings on the wire)."""

    model_config = ConfigDict(frozen=True)

    v: str = "1"
    # reply | notification | answer (to a memory request: text is its JSON) | rejected (a request refused or
    # dead-lettered: ``code`` says why, ``text`` a short message, never the user's words) | ack (a profile update
    # or an erasure done: ``code`` is its outcome) | memory_changed (an item of the user's memory was added,
    # corrected, retired or forgotten: ``route`` the change, ``text`` its JSON of ids and kinds)
    kind: str
    user_id: str  # empty on a rejected entry whose user could not be read
    text: str
    route: str  # generated | canned | fallback (replies); the request (answers); "" otherwise
    category: str
    outbox_id: str
    in_reply_to: str = ""  # the message_id (or request id) answered, refused or acknowledged; empty for notifications
    conversation_id: str = ""  # the gateway's conversation id, when it sent one
    ella_conversation_id: str = ""  # Ella's own conversation id (the operator's page and the export name it)
    created_at: str  # ISO-8601 UTC
    task: str = ""  # rejected and ack: the task the entry is about (``ella.ingest_message``...)
    task_id: str = ""  # rejected and ack: the Celery task id of the message (rejected: whenever it could be read)
    code: str = ""  # rejected: the reason code (docs/gateway.md); ack: the outcome (applied, stale, erased...)
    images: str = ""  # a reply that first shows an anchored place or companion: JSON list of image references
    stream_id: str = Field("", exclude=True)  # filled in by the reader

    def to_fields(self) -> dict[str, str]:
        return {k: str(v) for k, v in self.model_dump().items()}

    @classmethod
    def from_fields(cls, stream_id: str, fields: dict[str, str]) -> OutboxEntry:
        known = {k: v for k, v in fields.items() if k in cls.model_fields}
        return cls(stream_id=stream_id, **known)


if __name__ == "__main__":  # python -m ella.contract docs/schemas: write the kwargs schemas (kwargs_schemas)
    import json
    import sys
    from pathlib import Path

    for name, schema in kwargs_schemas().items():
        (Path(sys.argv[1]) / name).write_text(json.dumps(schema, indent=2) + "\n")

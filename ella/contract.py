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

from ella.profile import LOCALE_PATTERN, WINDOW_PATTERN, iana_zones, window_minutes

ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:@/+=-]*$"
ISO_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")
# A message's ``sent_at`` is a moment a person typed something: not before this, and not further ahead of our
# clock than the skew below. Why: a year-9999 ``sent_at`` passed validation and then overflowed ``datetime``
# arithmetic (conversation timeouts) in every retry, ending as several dead letters instead of one.
EARLIEST_SENT_AT = datetime(2000, 1, 1, tzinfo=UTC)
MAX_CLOCK_SKEW = timedelta(days=1)


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
    text: str
    sent_at: AwareDatetime
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
        description="When the gateway took this snapshot, ISO-8601 with a zone; an older one never wins."
    )
    timezone: str = Field(min_length=1, max_length=64, description="IANA time zone, e.g. Europe/London.")
    locale: str = Field(
        pattern=LOCALE_PATTERN,
        description="language[_COUNTRY], e.g. en_GB, de_DE, en; the country picks the crisis line.",
    )
    is_minor: StrictBool = Field(description="true for a user known to be a minor (break reminders, CA SB 243).")
    do_not_disturb: str | None = Field(
        pattern=WINDOW_PATTERN,
        description="Local HH:MM-HH:MM with no notifications (may wrap midnight); null for none.",
    )
    active_hours: str = Field(
        pattern=WINDOW_PATTERN, description="Local HH:MM-HH:MM when Ella may reach out (may wrap midnight)."
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
    value: str | None = Field(default=None, min_length=1, max_length=400)
    reason: str = Field(default="", max_length=500)

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
    query: str | None = Field(default=None, min_length=1, max_length=200)

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

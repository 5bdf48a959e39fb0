"""The gateway contract (ella.contract): what parse_ingest accepts, what it refuses and why, and the outbox wire format.

Why: a malformed payload must become a dead-letter row whose reason names the offending field, never a worker
crash or a half-stored turn; and the gateway must be able to read outbox entries written by a newer back end.
"""

from __future__ import annotations

import unicodedata
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ella.contract import IngestPayload, MalformedPayload, OutboxEntry, clean_text, parse_ingest

pytestmark = pytest.mark.domain  # the fast lane (make test-fast): no database, no Redis

MAX = 100
FIELDS = ("message_id", "user_id", "text", "sent_at", "conversation_id")
SENT_AT = datetime(2024, 5, 1, 12, 30, tzinfo=UTC)


def good(**overrides: Any) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "message_id": "msg-1",
        "user_id": "user-1",
        "text": "hello there",
        "sent_at": SENT_AT,
        "conversation_id": "conv-1",
    }
    payload.update(overrides)
    return payload


def refused(kwargs: dict[str, Any], args: tuple[Any, ...] = (), max_chars: int = MAX) -> str:
    with pytest.raises(MalformedPayload) as info:
        parse_ingest(args, kwargs, max_chars)
    return info.value.reason


# --- accepted -------------------------------------------------------------------------------------------


def test_good_payload_is_accepted_with_all_fields_kept() -> None:
    payload = parse_ingest((), good(), MAX)
    assert isinstance(payload, IngestPayload)
    assert payload.message_id == "msg-1"
    assert payload.user_id == "user-1"
    assert payload.text == "hello there"
    assert payload.sent_at == SENT_AT
    assert payload.conversation_id == "conv-1"


def test_text_is_nfc_normalised() -> None:
    payload = parse_ingest((), good(text="caf" + "e\u0301"), MAX)
    assert payload.text == "caf\u00e9"
    assert unicodedata.is_normalized("NFC", payload.text)


def test_conversation_id_is_optional() -> None:
    kwargs = good()
    del kwargs["conversation_id"]
    assert parse_ingest((), kwargs, MAX).conversation_id is None


def test_sent_at_in_any_utc_offset_is_accepted() -> None:
    sent = datetime(2024, 5, 1, 14, 30, tzinfo=timezone(timedelta(hours=2)))
    assert parse_ingest((), good(sent_at=sent), MAX).sent_at == SENT_AT


def test_text_of_exactly_max_chars_is_accepted() -> None:
    assert parse_ingest((), good(text="x" * MAX), MAX).text == "x" * MAX


# --- refused, with the field named ----------------------------------------------------------------------


@pytest.mark.parametrize("field", ["message_id", "user_id", "text", "sent_at"])
def test_missing_required_field_is_refused_naming_it(field: str) -> None:
    kwargs = good()
    del kwargs[field]
    reason = refused(kwargs)
    assert reason.startswith(f"{field}:")
    assert "required" in reason.lower()


def test_int_user_id_is_refused_not_coerced() -> None:
    reason = refused(good(user_id=42))
    assert reason.startswith("user_id:")
    assert "int" in reason


def test_naive_sent_at_is_refused() -> None:
    reason = refused(good(sent_at=datetime(2024, 5, 1, 12, 30)))
    assert reason.startswith("sent_at:")
    assert "timezone" in reason


@pytest.mark.parametrize("text", ["", " ", "\t\n  \r", "\u3000\u00a0"])
def test_empty_or_whitespace_text_is_refused(text: str) -> None:
    reason = refused(good(text=text))
    assert reason.startswith("text:")
    assert "empty" in reason


def test_text_over_max_chars_is_refused() -> None:
    reason = refused(good(text="x" * (MAX + 1)))
    assert reason.startswith("text:")
    assert str(MAX + 1) in reason
    assert str(MAX) in reason


def test_max_chars_counts_characters_after_nfc_composition() -> None:
    # MAX "e + combining acute" pairs are 2*MAX code points but MAX characters once NFC-composed.
    assert parse_ingest((), good(text="e\u0301" * MAX), MAX).text == "\u00e9" * MAX


def test_megabyte_text_is_refused() -> None:
    reason = refused(good(text="a" * 1_000_000), max_chars=16_000)
    assert reason.startswith("text:")
    assert "1000000" in reason


def test_lone_surrogate_in_text_is_refused() -> None:
    reason = refused(good(text="ok \ud83d then"))
    assert reason.startswith("text:")
    assert "surrogate" in reason


def test_nul_in_text_is_refused() -> None:
    reason = refused(good(text="before\x00after"))
    assert reason.startswith("text:")
    assert "NUL" in reason


def test_unknown_key_is_refused_naming_it() -> None:
    reason = refused(good(mood="happy"))
    assert reason.startswith("mood:")
    assert "not permitted" in reason


def test_positional_arguments_are_refused() -> None:
    reason = refused(good(), args=("msg-1", "user-1"))
    assert "positional" in reason
    assert "2" in reason


@pytest.mark.parametrize("message_id", ["has space", " leading", "a" * 201])
def test_bad_message_id_is_refused(message_id: str) -> None:
    assert refused(good(message_id=message_id)).startswith("message_id:")


def test_message_id_of_200_chars_is_accepted() -> None:
    assert parse_ingest((), good(message_id="a" * 200), MAX).message_id == "a" * 200


def test_malformed_payload_is_a_value_error_carrying_its_reason() -> None:
    exc = MalformedPayload("text: too long")
    assert isinstance(exc, ValueError)
    assert exc.reason == "text: too long"
    assert str(exc) == "text: too long"


# --- properties -----------------------------------------------------------------------------------------

# Every code point, surrogates included, plus the ones this contract is about made frequent: lone surrogates,
# NUL, combining marks, a character NFC expands (U+0958), Hangul jamo NFC composes, and whitespace.
nasty = st.sampled_from(["\ud800", "\udfff", "\x00", "\u0301", "\u0958", "\u1100", "\u1161", " ", "\n", "\u3000"])
any_text = st.text(alphabet=st.characters(codec=None, exclude_categories=()) | nasty, max_size=300)
leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True),
    any_text,
    st.datetimes(),
    st.datetimes(timezones=st.timezones()),
    st.binary(max_size=20),
)
values = st.recursive(leaf, lambda kids: st.lists(kids, max_size=3) | st.dictionaries(any_text, kids, max_size=3))
keys = st.one_of(st.sampled_from(FIELDS), any_text, st.integers())


def check_accepted_or_refused(args: tuple[Any, ...], kwargs: dict[Any, Any], max_chars: int) -> None:
    try:
        payload = parse_ingest(args, kwargs, max_chars)
    except MalformedPayload as exc:
        assert isinstance(exc.reason, str) and exc.reason
        return
    assert isinstance(payload, IngestPayload)
    payload.text.encode("utf-8")  # raises on a lone surrogate
    assert payload.text.strip()
    assert "\x00" not in payload.text
    assert len(payload.text) <= max_chars
    assert unicodedata.is_normalized("NFC", payload.text)
    assert payload.sent_at.tzinfo is not None


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(
    kwargs=st.dictionaries(keys, values, max_size=7),
    args=st.lists(values, max_size=2).map(tuple),
    max_chars=st.integers(1, 50),
)
def test_arbitrary_kwargs_are_either_a_clean_payload_or_malformed(
    kwargs: dict[Any, Any], args: tuple[Any, ...], max_chars: int
) -> None:
    check_accepted_or_refused(args, kwargs, max_chars)


@settings(max_examples=300)
@given(
    text=any_text,
    sent_at=st.datetimes(timezones=st.timezones() | st.none()),
    max_chars=st.integers(1, 400),
    extra=st.dictionaries(st.sampled_from(FIELDS) | any_text, values, max_size=2),
)
def test_arbitrary_text_in_an_otherwise_good_payload_is_clean_or_malformed(
    text: str, sent_at: datetime, max_chars: int, extra: dict[str, Any]
) -> None:
    check_accepted_or_refused((), {**good(text=text, sent_at=sent_at), **extra}, max_chars)


@given(text=any_text, max_chars=st.integers(1, 400))
def test_clean_text_returns_clean_text_or_raises_malformed(text: str, max_chars: int) -> None:
    try:
        cleaned = clean_text(text, max_chars)
    except MalformedPayload:
        return
    cleaned.encode("utf-8")
    assert cleaned.strip()
    assert len(cleaned) <= max_chars
    assert cleaned == unicodedata.normalize("NFC", text)


# --- outbox wire format ---------------------------------------------------------------------------------


def entry(**overrides: str) -> OutboxEntry:
    fields = {
        "kind": "reply",
        "user_id": "user-1",
        "text": "Hi! It's good to hear from you. \u00e9 \U0001f600",
        "route": "canned",
        "category": "greeting",
        "outbox_id": "ob-1",
        "in_reply_to": "msg-1",
        "conversation_id": "conv-1",
        "created_at": "2024-05-01T12:30:00+00:00",
    }
    fields.update(overrides)
    return OutboxEntry(**fields)


def test_outbox_entry_fields_are_all_strings_without_stream_id() -> None:
    fields = entry(stream_id="1-0").to_fields()
    assert "stream_id" not in fields
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in fields.items())
    assert fields["v"] == "1"
    assert fields["outbox_id"] == "ob-1"


def test_outbox_entry_round_trips_through_stream_fields() -> None:
    original = entry()
    back = OutboxEntry.from_fields("1714566600000-0", original.to_fields())
    assert back.stream_id == "1714566600000-0"
    assert back.model_dump() == original.model_dump()
    assert back.to_fields() == original.to_fields()


def test_outbox_notification_defaults_round_trip() -> None:
    original = OutboxEntry(
        kind="notification",
        user_id="u",
        text="thinking of you",
        route="generated",
        category="check_in",
        outbox_id="ob-2",
        created_at="2024-05-01T12:30:00+00:00",
    )
    fields = original.to_fields()
    assert fields["in_reply_to"] == ""
    assert fields["conversation_id"] == ""
    assert OutboxEntry.from_fields("2-0", fields).model_dump() == original.model_dump()


def test_from_fields_ignores_unknown_fields_of_a_newer_writer() -> None:
    fields = {**entry().to_fields(), "v": "2", "tone": "gentle", "attachments": "[]"}
    back = OutboxEntry.from_fields("3-0", fields)
    assert back.v == "2"
    assert back.text == entry().text
    assert not hasattr(back, "tone")
    assert "tone" not in back.to_fields()


# --- implausible values that used to pass (issue 11, item 11) ------------------------------------------


@pytest.mark.parametrize("sent_at", ["9999-12-31T23:59:59+00:00", datetime(9999, 12, 31, 23, 59, tzinfo=UTC)])
def test_sent_at_in_year_9999_is_refused_before_any_date_arithmetic(sent_at: Any) -> None:
    assert "sent_at" in refused(good(sent_at=sent_at))


def test_sent_at_before_2000_is_refused() -> None:
    assert "sent_at" in refused(good(sent_at="1970-01-01T00:00:00+00:00"))


def test_sent_at_a_few_hours_ahead_is_accepted_as_clock_skew() -> None:
    ahead = datetime.now(UTC) + timedelta(hours=3)
    assert parse_ingest((), good(sent_at=ahead), MAX).sent_at == ahead


@pytest.mark.parametrize("epoch", [1_700_000_000, 1_700_000_000.5, "1700000000"])
def test_epoch_sent_at_is_refused_not_guessed(epoch: Any) -> None:
    assert "sent_at: Value error, must be an ISO-8601" in refused(good(sent_at=epoch))


@pytest.mark.parametrize("text", ["\u200b", "\u200b\u200c\u200d", "\ufeff \u2060", "\u200b\x01\n"])
def test_zero_width_or_control_only_text_is_refused(text: str) -> None:
    assert "text: empty" in refused(good(text=text))


def test_text_with_a_zero_width_joiner_inside_words_is_accepted() -> None:
    assert parse_ingest((), good(text="\U0001f469\u200d\U0001f4bb hi"), MAX).text == "\U0001f469\u200d\U0001f4bb hi"

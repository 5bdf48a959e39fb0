"""The wire spec is true: what the worker refuses, the JSON Schemas refuse; the settings the spec names have the
values it gives; an erased user's refused profiles can be told apart.

Why: a gateway written from docs/gateway.md alone (an outside trial) validated its kwargs against docs/schemas/
and still met dead letters: the schemas accepted 16,001 characters, a NUL, a lone surrogate, blank text and a
forget with no item, all of which the worker refuses. And the spec said a lost message is re-sent after about an
hour when the inbox sweep re-sends it after about 27 s. Each table below is one task's refusals: every row must
be refused by the worker's contract (ella/contract.py) AND fail the task's schema, so a schema that falls behind
the contract fails here. What a schema cannot say (the worker's clock, its tz database, Unicode normalisation)
is the second table, and the spec must name each of those.
"""

from __future__ import annotations

import inspect
import json
import re
import typing
import unicodedata
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from ella import contract
from ella.contract import (
    BLANK_CLASS,
    TASK_SCHEMA_FILES,
    MalformedPayload,
    is_blank,
    kwargs_schemas,
    parse_ingest,
    parse_memory_page,
    parse_memory_request,
    parse_profile,
)

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = ROOT / "docs" / "schemas"
SPEC = (ROOT / "docs" / "gateway.md").read_text(encoding="utf-8")
MAX = contract.DEFAULT_MAX_MESSAGE_CHARS


def validator(task: str) -> Draft202012Validator:
    return Draft202012Validator(json.loads((SCHEMAS / TASK_SCHEMA_FILES[task]).read_text(encoding="utf-8")))


def forget_user_accepts(kwargs: dict[str, Any]) -> None:
    """``tasks.privacy.forget_user``'s own check of a gateway's kwargs: its signature (an unknown key is a
    TypeError) and a ``user`` to erase (the other parameters are its second pass's, never a gateway's)."""
    from tasks.privacy import forget_user

    signature = inspect.signature(forget_user.run)
    try:
        bound = signature.bind(**kwargs)
    except TypeError as exc:
        raise MalformedPayload(str(exc)) from None
    if bound.arguments.get("user") is None:
        raise MalformedPayload("ella.forget_user needs user (or tombstone, for its second pass)")


# task -> how the worker validates its kwargs (what tasks/*.py call)
CONTRACT: dict[str, Callable[[dict[str, Any]], object]] = {
    "ella.ingest_message": lambda kw: parse_ingest((), kw, MAX),
    "ella.update_profile": lambda kw: parse_profile((), kw),
    "ella.forget_user": forget_user_accepts,
    "ella.export_user": lambda kw: parse_memory_request((), kw),
    "ella.forget_memory": lambda kw: parse_memory_request((), kw, item=True),
    "ella.correct_fact": lambda kw: parse_memory_request((), kw, item=True, value=True),
    "ella.list_memory": lambda kw: parse_memory_page((), kw, search=False),
    "ella.search_memory": lambda kw: parse_memory_page((), kw, search=True),
}

NOW = datetime.now(UTC).replace(microsecond=0)
GOOD: dict[str, dict[str, Any]] = {
    "ella.ingest_message": {"message_id": "m-1", "user_id": "u-1", "text": "Hi Ella", "sent_at": NOW.isoformat(),
                            "conversation_id": "c-1"},
    "ella.update_profile": {"user_id": "u-1", "updated_at": NOW.isoformat(), "timezone": "Europe/London",
                            "locale": "en_GB", "is_minor": False, "do_not_disturb": "22:00-07:00",
                            "active_hours": "09:00-21:00", "notifications": True},
    "ella.forget_user": {"user": "u-1"},
    "ella.export_user": {"request_id": "r-1", "user_id": "u-1", "reason": "asked in the app"},
    "ella.forget_memory": {"request_id": "r-1", "user_id": "u-1", "item": "memory:42"},
    "ella.correct_fact": {"request_id": "r-1", "user_id": "u-1", "item": "fact:7", "value": "Maya"},
    "ella.list_memory": {"request_id": "r-1", "user_id": "u-1", "kind": "fact", "limit": 20, "include_past": True},
    "ella.search_memory": {"request_id": "r-1", "user_id": "u-1", "kind": "memory", "query": "école"},
}  # fmt: skip

DROP = object()  # a key left out


def with_(task: str, **changes: Any) -> dict[str, Any]:
    kwargs = {**GOOD[task], **changes}
    return {k: v for k, v in kwargs.items() if v is not DROP}


ID_REFUSALS = {
    "an empty id": "",
    "an id with a space": "u 1",
    "an id starting with a dot": ".u",
    "an id that is a number": 12,
    "an id with a NUL": "u\x00",
}
TEXT_REFUSALS = {
    "16,001 characters": "a" * (MAX + 1),
    "a NUL": "hi\x00there",
    "a lone surrogate": "hi \ud83d there",
    "empty text": "",
    "blank text": " \t\n ",
    "only zero-width characters": "\u200b\u2060\ufeff",
    "only tag characters (beyond the BMP)": "\U000e0020\U000e0041",
    "only control characters": "\x07\x1b",
    "a number": 5,
}
REFUSED: dict[str, dict[str, dict[str, Any]]] = {
    "ella.ingest_message": {
        **{f"text: {name}": with_("ella.ingest_message", text=text) for name, text in TEXT_REFUSALS.items()},
        **{f"user_id: {name}": with_("ella.ingest_message", user_id=v) for name, v in ID_REFUSALS.items()},
        **{f"message_id: {name}": with_("ella.ingest_message", message_id=v) for name, v in ID_REFUSALS.items()},
        "message_id of 201 characters": with_("ella.ingest_message", message_id="m" * 201),
        "user_id of 129 characters": with_("ella.ingest_message", user_id="u" * 129),
        "no message_id": with_("ella.ingest_message", message_id=DROP),
        "no text": with_("ella.ingest_message", text=DROP),
        "no sent_at": with_("ella.ingest_message", sent_at=DROP),
        "an unknown key": with_("ella.ingest_message", mood="happy"),
        "sent_at without a zone": with_("ella.ingest_message", sent_at="2025-03-01T12:00:00"),
        "sent_at as epoch seconds": with_("ella.ingest_message", sent_at=1_700_000_000),
        "sent_at as an epoch string": with_("ella.ingest_message", sent_at="1700000000"),
        "sent_at a date only": with_("ella.ingest_message", sent_at="2025-03-01"),
        "sent_at before 2000": with_("ella.ingest_message", sent_at="1999-12-31T23:59:00+00:00"),
        "sent_at in year 9999": with_("ella.ingest_message", sent_at="9999-01-01T00:00:00Z"),
        "sent_at at 24:00": with_("ella.ingest_message", sent_at="2025-03-01T24:00:00Z"),
        "sent_at with a lowercase t": with_("ella.ingest_message", sent_at="2025-03-01t12:00:00Z"),
        "an empty conversation_id": with_("ella.ingest_message", conversation_id=""),
        "a conversation_id that is a number": with_("ella.ingest_message", conversation_id=7),
    },
    "ella.update_profile": {
        **{f"no {key}": with_("ella.update_profile", **{key: DROP}) for key in GOOD["ella.update_profile"]},
        "user_id with a space": with_("ella.update_profile", user_id="u 1"),
        "is_minor as a string": with_("ella.update_profile", is_minor="no"),
        "notifications as 0": with_("ella.update_profile", notifications=0),
        "locale in words": with_("ella.update_profile", locale="english"),
        "locale with a hyphen": with_("ella.update_profile", locale="en-GB"),
        "an hour 25": with_("ella.update_profile", active_hours="25:00-07:00"),
        "an empty window": with_("ella.update_profile", active_hours="09:00-09:00"),
        "an empty do-not-disturb window": with_("ella.update_profile", do_not_disturb="22:00-22:00"),
        "an empty string for no do-not-disturb": with_("ella.update_profile", do_not_disturb=""),
        "updated_at without a zone": with_("ella.update_profile", updated_at="2025-03-01T12:00:00"),
        "updated_at as a number": with_("ella.update_profile", updated_at=1_700_000_000),
        "an empty timezone": with_("ella.update_profile", timezone=""),
        "a timezone with a space": with_("ella.update_profile", timezone="Europe/New York"),
        "an unknown key": with_("ella.update_profile", name="Maya"),
    },
    "ella.forget_user": {
        "no user": {},
        "user_id instead of user": {"user_id": "u-1"},
        "an unknown key besides user": {"user": "u-1", "reason": "asked"},
    },
    "ella.export_user": {
        "no request_id": with_("ella.export_user", request_id=DROP),
        "no user_id": with_("ella.export_user", user_id=DROP),
        "a reason with a NUL": with_("ella.export_user", reason="asked\x00"),
        "a reason with a lone surrogate": with_("ella.export_user", reason="asked \udc00"),
        "a reason of 501 characters": with_("ella.export_user", reason="r" * 501),
        "an item not memory or fact": with_("ella.export_user", item="node:3"),
        "a value with a NUL": with_("ella.export_user", value="a\x00"),
        "an unknown key": with_("ella.export_user", format="csv"),
        **{f"request_id: {name}": with_("ella.export_user", request_id=v) for name, v in ID_REFUSALS.items()},
    },
    "ella.forget_memory": {
        "no item": with_("ella.forget_memory", item=DROP),
        "a null item": with_("ella.forget_memory", item=None),
        "item memory:0": with_("ella.forget_memory", item="memory:0"),
        "item memory:-1": with_("ella.forget_memory", item="memory:-1"),
        "an item of 19 digits": with_("ella.forget_memory", item="memory:1234567890123456789"),
        "a reason with a NUL": with_("ella.forget_memory", reason="\x00"),
        "user_id of 129 characters": with_("ella.forget_memory", user_id="u" * 129),
    },
    "ella.correct_fact": {
        "no value": with_("ella.correct_fact", value=DROP),
        "a null value": with_("ella.correct_fact", value=None),
        "an empty value": with_("ella.correct_fact", value=""),
        "a value of 401 characters": with_("ella.correct_fact", value="v" * 401),
        "a value with a NUL": with_("ella.correct_fact", value="Ma\x00ya"),
        "a value with a lone surrogate": with_("ella.correct_fact", value="Maya \ud800"),
        "no item": with_("ella.correct_fact", item=DROP),
        "a memory item (a correction names a fact)": with_("ella.correct_fact", item="memory:3"),
    },
    "ella.list_memory": {
        "no kind": with_("ella.list_memory", kind=DROP),
        "kind facts": with_("ella.list_memory", kind="facts"),
        "limit 0": with_("ella.list_memory", limit=0),
        "limit 101": with_("ella.list_memory", limit=101),
        "limit as a string": with_("ella.list_memory", limit="20"),
        "limit 2.5": with_("ella.list_memory", limit=2.5),
        "limit true": with_("ella.list_memory", limit=True),
        "include_past as a string": with_("ella.list_memory", include_past="yes"),
        "a cursor with +": with_("ella.list_memory", cursor="ab+c"),
        "an empty cursor": with_("ella.list_memory", cursor=""),
        "a cursor of 601 characters": with_("ella.list_memory", cursor="a" * 601),
        "a query on a list": with_("ella.list_memory", query="maya"),
        "an unknown key": with_("ella.list_memory", page=2),
    },
    "ella.search_memory": {
        "no query": with_("ella.search_memory", query=DROP),
        "a null query": with_("ella.search_memory", query=None),
        "an empty query": with_("ella.search_memory", query=""),
        "a blank query": with_("ella.search_memory", query="   "),
        "a zero-width query": with_("ella.search_memory", query="\u200b"),
        "a query with a NUL": with_("ella.search_memory", query="ma\x00ya"),
        "a query with a lone surrogate": with_("ella.search_memory", query="\udfff"),
        "a query of 201 characters": with_("ella.search_memory", query="q" * 201),
        "a search without a kind": with_("ella.search_memory", kind=DROP),
    },
}


@pytest.mark.domain
@pytest.mark.parametrize(
    ("task", "case"),
    [pytest.param(task, case, id=f"{task}: {case}") for task, cases in REFUSED.items() for case in cases],
)
def test_every_payload_the_worker_refuses_fails_the_tasks_schema(task: str, case: str) -> None:
    kwargs = REFUSED[task][case]
    with pytest.raises(MalformedPayload):
        CONTRACT[task](kwargs)
    assert not validator(task).is_valid(kwargs), f"{task}: the schema accepts {case}, which the worker refuses"


@pytest.mark.domain
def test_every_gateway_task_has_a_table_of_refusals_and_a_schema_file() -> None:
    from ella.rejections import GATEWAY_TASKS

    assert set(REFUSED) == set(TASK_SCHEMA_FILES) == set(CONTRACT) == set(GATEWAY_TASKS)
    for task, name in TASK_SCHEMA_FILES.items():
        assert f"`{task}` | `schemas/{name}`" in SPEC, f"the spec's task table points {task} at {name}"


ACCEPTED_TIMES = ["2025-03-01T12:00Z", "2025-03-01 12:00:00+00:00", "2025-03-01T12:00:00.123456+0000",
                  "2025-03-01T12:00:00,5z", "2025-03-01T12:00:00-05:30"]  # fmt: skip


@pytest.mark.domain
@pytest.mark.parametrize("task", sorted(GOOD))
def test_what_the_worker_accepts_the_schema_accepts_too(task: str) -> None:
    """The other direction, for the spellings a gateway may write: a schema stricter than the worker would make a
    validating gateway refuse good messages."""
    variants = [GOOD[task]]
    if task == "ella.ingest_message":
        sent = [NOW.replace(year=2025, month=3, day=1).isoformat(), *ACCEPTED_TIMES]
        variants += [with_(task, sent_at=at) for at in sent]
        variants += [with_(task, text=t, conversation_id=DROP) for t in ("a" * MAX, "é", " x ", "🐈", "\u200bhi")]
    if task == "ella.update_profile":
        variants += [with_(task, updated_at=at) for at in [*ACCEPTED_TIMES, "0001-01-01T00:00:00+00:00"]]
        variants += [with_(task, do_not_disturb=None, timezone="America/Argentina/Buenos_Aires", locale="en")]
        variants += [with_(task, timezone=zone) for zone in ("UTC", "Etc/GMT+5", "America/Port-au-Prince")]
    if task == "ella.list_memory":
        variants += [with_(task, query=None, cursor="eyJhIjo0MSwiaz-_", limit=1)]
    for kwargs in variants:
        CONTRACT[task](kwargs)
        assert validator(task).is_valid(kwargs), (task, kwargs)


# What the worker refuses and no JSON Schema can say: each is named in the spec (section 1, "What the schemas
# cannot say"), and is here so that a schema that learns one moves it to the table above.
BEYOND_A_SCHEMA: dict[str, tuple[str, dict[str, Any], str]] = {
    "a sent_at more than a day ahead of the worker's clock": (
        "ella.ingest_message",
        with_("ella.ingest_message", sent_at=(NOW + timedelta(days=3)).isoformat()),
        "a day ahead",
    ),
    "a day the month lacks": (
        "ella.ingest_message",
        with_("ella.ingest_message", sent_at="2025-02-30T12:00:00Z"),
        "30 February",
    ),
    "a time zone the worker's tz database lacks": (
        "ella.update_profile",
        with_("ella.update_profile", timezone="Mars/Olympus_Mons"),
        "tz database",
    ),
    "a text that NFC normalisation lengthens past the limit": (
        "ella.ingest_message",
        with_("ella.ingest_message", text="\u0958" * MAX),
        "NFC",
    ),
}


@pytest.mark.domain
@pytest.mark.parametrize("case", sorted(BEYOND_A_SCHEMA))
def test_what_no_schema_can_say_is_refused_by_the_worker_and_named_in_the_spec(case: str) -> None:
    task, kwargs, named = BEYOND_A_SCHEMA[case]
    with pytest.raises(MalformedPayload):
        CONTRACT[task](kwargs)
    assert validator(task).is_valid(kwargs)
    section = SPEC.split("**What the schemas cannot say**", 1)[1].split("\n\n", 1)[0]
    assert named in section, f"the spec names {case}"


@pytest.mark.domain
def test_the_schemas_blank_characters_are_exactly_the_ones_the_worker_calls_blank() -> None:
    """The pattern's class is written out (no ``\\p{..}`` in Python's ``re``): it must be is_blank's, character by
    character, over every code point (a Python with a newer Unicode fails here: regenerate BLANK_CLASS)."""
    blank = re.compile(f"[{BLANK_CLASS}]")
    assert unicodedata.unidata_version == "14.0.0"
    for code in range(0x110000):
        if 0xD800 <= code <= 0xDFFF:
            continue
        char = chr(code)
        assert bool(blank.fullmatch(char)) == is_blank(char), f"U+{code:04X}"


@pytest.mark.domain
def test_the_schema_files_are_the_ones_the_contract_generates() -> None:
    for name, schema in kwargs_schemas().items():
        on_disk = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
        assert on_disk == schema, f"docs/schemas/{name} is stale: python -m ella.contract docs/schemas"


# --- the settings a gateway depends on ----------------------------------------------------------------------------


def spec_settings() -> dict[str, tuple[str, str]]:
    """``ELLA_NAME`` -> (default, type) from the spec's settings table (section 7)."""
    section = SPEC.split("## 7. Settings a gateway depends on", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `ELLA_([A-Z0-9_]+)` \| `([^`]*)` \| ([a-z ]+?) \|", section, re.M)
    return {name: (default, kind) for name, default, kind in rows}


@pytest.mark.domain
def test_every_setting_the_spec_names_has_the_default_and_type_it_gives() -> None:
    from adapters.settings import Settings

    listed = spec_settings()
    assert len(listed) >= 15
    types = {int: "integer", float: "number", str: "string", bool: "boolean"}
    for name, (default, kind) in listed.items():
        field = Settings.model_fields[name.lower()]
        if typing.get_origin(field.annotation) is typing.Literal:  # a choice of words: a string on the wire
            assert kind == "string" and all(isinstance(a, str) for a in typing.get_args(field.annotation)), name
        else:
            assert kind == types[field.annotation], name  # type: ignore[index]
        value = field.default
        assert default == (json.dumps(value) if isinstance(value, bool) else str(value)), name
    for name in re.findall(r"`ELLA_([A-Z0-9_]+)`", SPEC):  # every number the spec mentions has its row
        field = Settings.model_fields.get(name.lower())
        if field is not None and field.annotation in (int, float):
            assert name in listed, f"ELLA_{name} is mentioned but not in section 7"


@pytest.mark.domain
def test_the_spec_gives_the_resend_times_the_inbox_computes() -> None:
    """The first early look comes ``inbox_recheck_after_s`` after the send, then at doubling pauses; the late
    re-send after visibility timeout plus grace; the spec states these numbers for the defaults."""
    from adapters.settings import Settings

    default = {name: field.default for name, field in Settings.model_fields.items()}  # not this run's environment
    first, sweep, visibility = (
        default["inbox_recheck_after_s"],
        default["inbox_sweep_interval_s"],
        default["visibility_timeout_s"],
    )
    pauses = [min(first * 2 ** (n + 1), visibility) for n in range(4)]
    late = visibility + default["inbox_resend_grace_s"]
    assert f"{first:g} to {first + sweep:g} s after" in SPEC
    assert ", ".join(f"{p:g}" for p in pauses) in SPEC
    assert f"{late:,} s" in SPEC and f"{late * (default['inbox_max_resends'] + 1):,} s" in SPEC


# --- an erased user's refused profile ------------------------------------------------------------------------------


@pytest.mark.integration
def test_two_erased_users_refused_profiles_with_one_updated_at_are_both_on_the_stream_by_task_id(outbox):
    """A gateway that stamps a batch of profiles with one ``updated_at``: the refusals name no user (they were
    erased), so each must still be its own entry, told apart by ``task_id``; a redelivery adds none."""
    from adapters.dead_letters import publish_rejection
    from workers.events import FORGOTTEN_REASON

    updated_at = f"2026-01-0{uuid.uuid4().int % 9 + 1}T12:00:00+00:00"
    sends = [str(uuid.uuid4()), str(uuid.uuid4())]
    for task_id in [*sends, sends[0]]:  # the first one delivered twice
        publish_rejection("ella.update_profile", task_id, FORGOTTEN_REASON, FORGOTTEN_REASON,
                          {"tombstone": uuid.uuid4().hex}, in_reply_to=updated_at)  # fmt: skip
    refused = [e for e in outbox() if e.kind == "rejected" and e.in_reply_to == updated_at]
    assert sorted(e.task_id for e in refused) == sorted(sends)
    assert {(e.code, e.user_id, e.task) for e in refused} == {("user_erased", "", "ella.update_profile")}
    assert len({e.outbox_id for e in refused}) == 2

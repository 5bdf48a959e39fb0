"""A loopback server that speaks the Anthropic HTTP API, so the SDK provider can be tested without the network.

Why a server and not a mock of the SDK: the point is to exercise the real ``anthropic`` client end to end -- its
headers, its status-to-exception mapping, its retry and ``retry-after`` handling, its timeouts, its batch results
decoder. A mock would only pin what we believe the SDK does; this pins what it does. The wire formats follow the
SDK's own types (``types/message.py``, ``types/messages/message_batch*.py``, ``types/shared/error_response.py``).

What it emulates, and why:

* ``POST /v1/messages`` answers with a valid output for the prompt kind it finds (``<task kind="...">``), so the
  app's parsing path runs for real; ``responder`` overrides that.
* A FIFO script of canned outcomes (``enqueue``) provokes every failure the provider must survive: 429 with
  ``retry-after``, 529 overloaded, 5xx, 4xx, non-JSON text, a slow answer (client timeout), and broken model
  output (``FAULTS``: a truncated HTTP body, NUL or failure text in nested strings, JSON nested thousands deep).
* ``latency`` and ``max_in_flight`` measure a client's global concurrency limit.
* Prompt caching is emulated from the ``cache_control`` breakpoints, so the *placement* of a client's breakpoints
  can be measured in ``usage`` (a misplaced breakpoint shows up as cache writes that are never read).
* Message Batches go through their whole lifecycle (in progress, canceling, ended, JSONL results) on demand.
* Structured outputs (``output_config.format``): the request's JSON schema is checked the way the API's docs say
  it is ("JSON Schema limitations", "Schema complexity limits"; a 400 ``invalid_request_error`` otherwise), and
  under a schema what the fake's model generates obeys it, as constrained decoding makes it: the faults that are
  broken JSON (``deep_json``, ``prose``) give the unbroken answer, and the ones inside strings (``nul_in_strings``,
  ``failure_in_strings``) reach only the free-text strings (never an enum, a const or a formatted string). What
  the API still lets through stays: ``max_tokens`` (the object cut off, ``stop_reason: "max_tokens"``),
  ``refusal`` (``stop_reason: "refusal"``, words that need not match the schema), a truncated body, 429, 529.
  A scripted ``text`` and the ``responder`` are the test speaking for the API: they are sent as given.

Run ``python -m tests.support.fake_anthropic --port 8765`` to point the app at it by hand.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import re
import sys
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from ella.llm.kinds import KINDS

# The error ``type`` the API puts in the body for each status (docs: "HTTP errors").
ERROR_TYPES: dict[int, str] = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
}
# How many blocks before a breakpoint the API looks for an earlier cached prefix.
LOOKBACK_BLOCKS = 20
# The API rejects a request with more than this many cache_control blocks.
MAX_CACHE_BREAKPOINTS = 4
TASK_KIND = re.compile(r'<task kind="([a-z_]+)">')
PLAIN_ANSWER = "Hello from the fake Anthropic API."
BATCH_OUTCOMES = ("succeeded", "errored", "canceled", "expired")
_CUSTOM_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
# Faults a scripted answer can carry (``enqueue(fault=...)``), each a way real model output or transport broke:
#   truncated_body      status 200 whose JSON body is cut in half (content-length matches the cut body), as a proxy
#                       or a dropped connection leaves it; the SDK cannot decode it.
#   nul_in_strings      the answer's JSON with a NUL character inside every string below the top level
#                       (PostgreSQL refuses NUL in text).
#   failure_in_strings  the answer's JSON with every string below the top level replaced by ``FAILURE_TEXT``.
#   deep_json           ``{"x": [[[...]]]}`` nested ``depth`` deep (default 5000: deeper than Python's recursion limit).
#   prose               chatter instead of JSON (``PROSE``, no object in it).
#   max_tokens          the answer cut off at half its length, ``stop_reason: "max_tokens"`` (the output budget
#                       ran out mid-object; the API's docs: possible with structured outputs too).
#   refusal             ``REFUSAL_TEXT``, ``stop_reason: "refusal"`` (possible with structured outputs too: the
#                       refusal "takes precedence over schema constraints").
# Under ``output_config.format``, the faults constrained decoding rules out are constrained (see the docstring).
# A slow answer is ``delay=`` (seconds slept before answering), combinable with any fault.
FAULTS = ("truncated_body", "nul_in_strings", "failure_in_strings", "deep_json", "prose", "max_tokens", "refusal")
FAILURE_TEXT = "Error: the model is overloaded, TOKEN LIMIT EXCEEDED"
PROSE = "Sure! In short, Sam seems to be doing well; I'll keep it in mind."
REFUSAL_TEXT = "I'm not able to help with this request."
DEEP_JSON_DEPTH = 5000
# Structured outputs, as the API's docs state them ("JSON Schema limitations", "Schema complexity limits").
SCHEMA_TYPES = ("object", "array", "string", "integer", "number", "boolean", "null")
STRING_FORMATS = ("date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid")
# The docs' "Not supported" (numerical constraints, string constraints, array constraints beyond minItems 0 or
# 1), then applicator and object keywords their "Supported features" do not name (oneOf, not, if/then/else...):
# refused here, though the API's own answer to those is not documented.
UNSUPPORTED_KEYWORDS = (
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "maxItems",
    "uniqueItems",
    "contains",
    "minContains",
    "maxContains",
    "prefixItems",
    "minProperties",
    "maxProperties",
    "patternProperties",
    "propertyNames",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
)
# "Optional parameters: 24 total ... each parameter not listed in required"; "Parameters with union types: 16
# total ... anyOf or type arrays". Counted at every use of a definition (the docs do not say how a $ref that is
# used twice counts; counting each use errs on the side of refusing).
MAX_OPTIONAL_PARAMETERS = 24
MAX_UNION_PARAMETERS = 16
# Regex features the docs list as not supported in ``pattern``: backreferences, lookaround, word boundaries.
_UNSUPPORTED_REGEX = re.compile(r"\\[1-9]|\(\?[=!<]|\\[bB]")


def estimate_tokens(text: str) -> int:
    """Roughly four characters a token: close enough to make cache thresholds and savings meaningful."""
    return math.ceil(len(text) / 4)


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _without_cache_control(value: Any) -> Any:
    """The content as the cache sees it: where a breakpoint sits does not change what is cached."""
    if isinstance(value, dict):
        return {k: _without_cache_control(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_without_cache_control(v) for v in value]
    return value


def _blocks(content: Any) -> list[dict[str, Any]]:
    """System or message content as blocks: a bare string is one text block (and cannot carry cache_control)."""
    if content is None:
        return []
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [block for block in content if isinstance(block, dict)]


def _block_tokens(block: dict[str, Any]) -> int:
    if block.get("type") == "text" and isinstance(block.get("text"), str):
        return estimate_tokens(block["text"])
    return estimate_tokens(_canonical(_without_cache_control(block)))


def prompt_texts(body: dict[str, Any]) -> Iterator[str]:
    """Every text of the prompt, system first, in API order."""
    for block in _blocks(body.get("system")):
        if isinstance(block.get("text"), str):
            yield block["text"]
    for message in body.get("messages") or []:
        if isinstance(message, dict):
            for block in _blocks(message.get("content")):
                if isinstance(block.get("text"), str):
                    yield block["text"]


def default_answer(body: dict[str, Any]) -> str:
    """A valid output for the prompt's kind (its own ``example()``), or a short plain text when there is no kind."""
    for text in prompt_texts(body):
        match = TASK_KIND.search(text)
        if match and match.group(1) in KINDS:
            return KINDS[match.group(1)].example().model_dump_json()
    return PLAIN_ANSWER


def validate_message_params(body: Any) -> str | None:
    """What is wrong with a Messages request body, in the API's words, or None when it is acceptable."""
    if not isinstance(body, dict):
        return "request body must be a JSON object"
    if not isinstance(body.get("model"), str) or not body["model"]:
        return "model: Field required"
    max_tokens = body.get("max_tokens")
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        return "max_tokens: Field required (an integer >= 1)"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages: Field required (a non-empty list)"
    for index, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
            return f"messages.{index}.role: Input should be 'user' or 'assistant'"
        if not isinstance(message.get("content"), str | list):
            return f"messages.{index}.content: Field required"
    if body.get("stream"):
        return "stream: this fake does not stream; call messages.create without stream=True"
    temperature = body.get("temperature")
    if temperature is not None and (
        isinstance(temperature, bool) or not isinstance(temperature, int | float) or not 0 <= temperature <= 1
    ):
        return "temperature: Input should be less than or equal to 1 (a number from 0 to 1)"
    breakpoints = sum(1 for unit in _prompt_units(body) if unit.cache_control is not None)
    if breakpoints > MAX_CACHE_BREAKPOINTS:
        return f"A maximum of {MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found {breakpoints}."
    return output_config_problem(body)


def output_config_problem(body: dict[str, Any]) -> str | None:
    """What is wrong with a request's ``output_config`` (the SDK's ``OutputConfigParam``), or None."""
    config = body.get("output_config")
    if config is None:
        return None
    if not isinstance(config, dict):
        return "output_config: Input should be a valid dictionary"
    for key in config:
        if key not in ("effort", "format"):
            return f"output_config.{key}: Extra inputs are not permitted"
    fmt = config.get("format")
    if fmt is None:
        return None
    if not isinstance(fmt, dict) or fmt.get("type") != "json_schema":
        return "output_config.format.type: Input should be 'json_schema'"
    for key in fmt:
        if key not in ("type", "schema"):
            return f"output_config.format.{key}: Extra inputs are not permitted"
    if not isinstance(fmt.get("schema"), dict):
        return "output_config.format.schema: Field required (a JSON schema object)"
    problem = schema_problem(fmt["schema"])
    if problem:
        return f"output_config.format.schema: {problem}"
    messages = body.get("messages") or []
    if messages and isinstance(messages[-1], dict) and messages[-1].get("role") == "assistant":
        # The docs' "Feature compatibility": message prefilling is incompatible with JSON outputs.
        return "Prefilling the assistant message is not supported with output_config.format"
    return None


def format_schema(body: Any) -> dict[str, Any] | None:
    """The JSON schema a request constrains its answer to (``output_config.format.schema``), or None."""
    config = body.get("output_config") if isinstance(body, dict) else None
    fmt = config.get("format") if isinstance(config, dict) else None
    schema = fmt.get("schema") if isinstance(fmt, dict) else None
    return schema if isinstance(schema, dict) else None


def _is_primitive(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def schema_problem(schema: dict[str, Any]) -> str | None:
    """Why the API would refuse ``schema`` for structured outputs (its docs' limitations), or None."""
    defs = _definitions(schema)
    counts = {"optional": 0, "union": 0}

    def walk(node: Any, path: str, expanding: frozenset[str]) -> str | None:
        if not isinstance(node, dict):
            return f"{path}: a schema must be a JSON object"
        for keyword in UNSUPPORTED_KEYWORDS:
            if keyword in node:
                return f"{path}: '{keyword}' is not supported in structured outputs"
        ref = node.get("$ref")
        if ref is not None:
            if not isinstance(ref, str) or not ref.startswith("#/"):
                return f"{path}: external $ref is not supported ({ref!r})"
            if ref not in defs:
                return f"{path}: $ref {ref!r} does not resolve to a definition"
            if ref in expanding:
                return "Too many recursive definitions in schema"
            return walk(defs[ref], ref, expanding | {ref})
        types = node.get("type")
        type_list = types if isinstance(types, list) else [types] if types is not None else []
        for t in type_list:
            if t not in SCHEMA_TYPES:
                return f"{path}.type: {t!r} is not a supported type"
        if len(type_list) > 1 or "anyOf" in node:
            counts["union"] += 1
        for combinator in ("anyOf", "allOf"):
            if combinator in node:
                branches = node[combinator]
                if not isinstance(branches, list) or not branches:
                    return f"{path}.{combinator}: must be a non-empty array"
                if combinator == "allOf" and any(isinstance(b, dict) and "$ref" in b for b in branches):
                    return f"{path}.allOf: allOf with $ref is not supported"
                for i, branch in enumerate(branches):
                    if problem := walk(branch, f"{path}.{combinator}[{i}]", expanding):
                        return problem
        if "enum" in node:
            enum = node["enum"]
            if not isinstance(enum, list) or not enum or not all(_is_primitive(v) for v in enum):
                return f"{path}.enum: only strings, numbers, booleans or nulls are supported in an enum"
        if "const" in node and not _is_primitive(node["const"]):
            return f"{path}.const: only a string, number, boolean or null is supported"
        if "object" in type_list or "properties" in node:
            if node.get("additionalProperties") is not False:
                return f"{path}: For 'object' type, 'additionalProperties' must be explicitly set to false"
            properties = node.get("properties") or {}
            if not isinstance(properties, dict):
                return f"{path}.properties: must be an object"
            required = node.get("required") or []
            if not isinstance(required, list) or any(name not in properties for name in required):
                return f"{path}.required: every required name must be a property"
            counts["optional"] += sum(1 for name in properties if name not in required)
            for name, sub in properties.items():
                if problem := walk(sub, f"{path}.properties.{name}", expanding):
                    return problem
        if "array" in type_list or "items" in node:
            if node.get("minItems", 0) not in (0, 1):
                return f"{path}.minItems: only 0 or 1 is supported"
            if "items" in node and (problem := walk(node["items"], f"{path}.items", expanding)):
                return problem
        if "format" in node and node["format"] not in STRING_FORMATS:
            return f"{path}.format: {node['format']!r} is not a supported string format"
        pattern = node.get("pattern")
        if pattern is not None and (not isinstance(pattern, str) or _UNSUPPORTED_REGEX.search(pattern)):
            return f"{path}.pattern: backreferences, lookaround and word boundaries are not supported"
        return None

    problem = walk(schema, "schema", frozenset())
    if problem:
        return problem
    if counts["optional"] > MAX_OPTIONAL_PARAMETERS:
        return (
            f"Schemas contains too many optional parameters ({counts['optional']}), which exceeds the limit: "
            f"{MAX_OPTIONAL_PARAMETERS}"
        )
    if counts["union"] > MAX_UNION_PARAMETERS:
        return (
            f"Schemas contains too many parameters with union types ({counts['union']} parameters with type "
            f"arrays or anyOf) which exceeds the limit: {MAX_UNION_PARAMETERS}"
        )
    return None


@dataclass(frozen=True)
class _Unit:
    """One piece of the prompt in API order, as the cache walks it."""

    canonical: str
    tokens: int
    cache_control: dict[str, Any] | None


def _prompt_units(body: dict[str, Any]) -> list[_Unit]:
    """tools, then system blocks, then each message's blocks: the order the API builds (and caches) the prompt."""
    units: list[_Unit] = []

    def add(where: str, block: dict[str, Any], extra: dict[str, Any] | None = None) -> None:
        control = block.get("cache_control")
        unit = {"in": where, **(extra or {}), "block": _without_cache_control(block)}
        units.append(_Unit(_canonical(unit), _block_tokens(block), control if isinstance(control, dict) else None))

    for tool in body.get("tools") or []:
        if isinstance(tool, dict):
            add("tools", tool)
    for block in _blocks(body.get("system")):
        add("system", block)
    for index, message in enumerate(body.get("messages") or []):
        for block in _blocks(message.get("content")):
            # The message index and role are part of the unit: [user: A, B] is not [user: A] [user: B].
            add("messages", block, {"message": index, "role": message.get("role")})
    top = body.get("cache_control")  # automatic caching: the breakpoint goes on the last block
    if isinstance(top, dict) and units and units[-1].cache_control is None:
        units[-1] = _Unit(units[-1].canonical, units[-1].tokens, top)
    return units


@dataclass
class Outcome:
    """A canned answer for the next ``/v1/messages`` call (see ``FakeAnthropic.enqueue``)."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    text: str | None = None
    delay: float = 0.0
    message: str | None = None
    error_type: str | None = None
    fault: str | None = None  # one of FAULTS
    depth: int = DEEP_JSON_DEPTH  # of ``deep_json``


def _map_nested_strings(value: Any, change: Callable[[str], str], depth: int = 0) -> Any:
    """``value`` with ``change`` applied to every string below the top level (keys stay as they are)."""
    if isinstance(value, str):
        return change(value) if depth > 1 else value
    if isinstance(value, list):
        return [_map_nested_strings(v, change, depth + 1) for v in value]
    if isinstance(value, dict):
        return {k: _map_nested_strings(v, change, depth + 1) for k, v in value.items()}
    return value


def _free_text(schema: Any) -> bool:
    """A string the schema leaves free (any text): no enum, const, format or pattern constrains it."""
    return (
        isinstance(schema, dict)
        and schema.get("type") == "string"
        and not any(k in schema for k in ("enum", "const", "format", "pattern"))
    )


def _branch_for(value: Any, node: dict[str, Any], defs: dict[str, Any]) -> Any:
    """The schema ``value`` is generated under: ``$ref`` resolved, the ``anyOf`` branch of its JSON type."""
    while isinstance(node, dict) and isinstance(node.get("$ref"), str):
        node = defs.get(node["$ref"], {})
    if not isinstance(node, dict) or not isinstance(node.get("anyOf"), list):
        return node
    json_type = {str: "string", bool: "boolean", int: "integer", float: "number", dict: "object", list: "array"}
    wanted = "null" if value is None else json_type.get(type(value), "")
    for branch in node["anyOf"]:
        branch = _branch_for(value, branch, defs)
        if isinstance(branch, dict) and (
            branch.get("type") == wanted or ("enum" in branch and value in branch["enum"])
        ):
            return branch
    return {}


def _map_free_strings(
    value: Any, schema: Any, defs: dict[str, Any], change: Callable[[str], str], depth: int = 0
) -> Any:
    """``_map_nested_strings`` within what ``schema`` lets a model write: only free-text strings change."""
    node = _branch_for(value, schema, defs)
    if isinstance(value, str):
        return change(value) if depth > 1 and _free_text(node) else value
    if isinstance(value, list):
        items = node.get("items") if isinstance(node, dict) else None
        return [_map_free_strings(v, items, defs, change, depth + 1) for v in value]
    if isinstance(value, dict):
        props = node.get("properties") or {} if isinstance(node, dict) else {}
        return {k: _map_free_strings(v, props.get(k), defs, change, depth + 1) for k, v in value.items()}
    return value


def _definitions(schema: dict[str, Any]) -> dict[str, Any]:
    defs: dict[str, Any] = {}
    for key in ("$defs", "definitions"):
        if isinstance(schema.get(key), dict):
            defs.update({f"#/{key}/{name}": sub for name, sub in schema[key].items()})
    return defs


def faulty_text(
    text: str, fault: str | None, depth: int = DEEP_JSON_DEPTH, schema: dict[str, Any] | None = None
) -> str:
    """The answer text a text-level fault makes of ``text`` (a non-JSON text gets the fault in the text itself).

    With ``schema`` (the request's ``output_config.format``), the fault is what constrained decoding still lets a
    model write: no broken JSON (``deep_json`` and ``prose`` leave ``text`` as it is), and NUL or failure text only
    inside free-text strings. ``max_tokens`` and ``refusal`` are the same with a schema or without.
    """
    if fault == "max_tokens":
        return text[: max(1, len(text) // 2)]
    if fault == "refusal":
        return REFUSAL_TEXT
    if fault in ("deep_json", "prose") and schema is not None:
        return text
    if fault == "deep_json":
        return '{"x": ' + "[" * depth + "]" * depth + "}"
    if fault == "prose":
        return PROSE
    if fault not in ("nul_in_strings", "failure_in_strings"):
        return text
    change = (lambda s: s[: len(s) // 2] + "\x00" + s[len(s) // 2 :]) if fault == "nul_in_strings" else None
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return change(text) if change else FAILURE_TEXT
    if schema is not None:
        return json.dumps(_map_free_strings(data, schema, _definitions(schema), change or (lambda _s: FAILURE_TEXT)))
    return json.dumps(_map_nested_strings(data, change or (lambda _s: FAILURE_TEXT)))


@dataclass
class _Batch:
    obj: dict[str, Any]
    requests: list[dict[str, Any]]
    polls: int = 0
    results: list[dict[str, Any]] = field(default_factory=list)


def _now_rfc3339(moment: datetime | None = None) -> str:
    return (moment or datetime.now(UTC)).isoformat().replace("+00:00", "Z")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    fake: FakeAnthropic

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that timed out and hung up is a scenario under test, not a server failure worth a traceback.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, like the real API, so the SDK's connection pool is exercised
    # Headers and body go out in two writes: with Nagle's algorithm on, each response waits out the client's
    # delayed ACK (~40 ms on Linux), which made every call on a kept-alive connection take that long.
    disable_nagle_algorithm = True
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: tests read ``fake.requests`` instead."""

    def do_GET(self) -> None:
        self.server.fake._dispatch(self, "GET")

    def do_POST(self) -> None:
        self.server.fake._dispatch(self, "POST")

    def do_DELETE(self) -> None:
        self.server.fake._dispatch(self, "DELETE")

    def send_payload(self, status: int, payload: bytes, content_type: str, headers: dict[str, str]) -> None:
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(payload)))
        headers = {"request-id": f"req_{uuid.uuid4().hex[:24]}", **headers}
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)
        self.wfile.flush()


class FakeAnthropic:
    """The fake API server; use as a context manager and point ``anthropic.Anthropic(base_url=...)`` at it.

    Knobs (plain attributes, change them any time): ``responder`` (body -> answer text), ``latency`` (seconds slept
    on every messages call), ``min_cacheable_tokens``, ``cache_ttl``, ``clock`` (for cache expiry),
    ``batch_polls_to_end``, ``batch_outcomes`` (custom_id -> "succeeded"/"errored"/"canceled"/"expired"),
    ``api_key`` (when set, any other key is refused). Observations: ``requests`` (every call: method, path,
    lowercased headers, JSON body), ``message_requests``, ``usage_log`` (the usage of every Message produced, batch
    results included, in order), ``answers`` (the text of each of those Messages), ``in_flight`` and
    ``max_in_flight`` (``POST /v1/messages`` being served at once).
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.responder: Callable[[dict[str, Any]], str] | None = None
        self.latency: float = 0.0
        self.min_cacheable_tokens: int = 1024
        # model -> its own minimum, over ``min_cacheable_tokens`` (the API's minimum differs by model).
        self.min_cacheable_by_model: dict[str, int] = {}
        self.cache_ttl: float = 300.0
        self.clock: Callable[[], float] = time.monotonic
        self.batch_polls_to_end: int = 1
        self.batch_outcomes: dict[str, str] = {}
        self.api_key: str | None = None
        # Observations. Appended under the lock; read them once the calls you care about have returned.
        self.requests: list[dict[str, Any]] = []
        self.usage_log: list[dict[str, int]] = []
        self.answers: list[str] = []  # the text of every Message produced, batch results included, in order
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        # Batch state changes (poll counts, ending, cancel) are serialized apart from the hot messages lock.
        self._batch_lock = threading.Lock()
        self._script: deque[Outcome] = deque()
        self._cache: dict[str, float] = {}
        self._batches: dict[str, _Batch] = {}
        self._server = _Server((host, port), _Handler)
        self._server.fake = self
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> FakeAnthropic:
        # A short poll interval so that stop() (and so each test's teardown) takes milliseconds, not half a second.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, name="fake-anthropic", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self._server.server_close()

    def __enter__(self) -> FakeAnthropic:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- scripting and observation -----------------------------------------------------------------------------

    def enqueue(
        self,
        status: int = 200,
        *,
        headers: dict[str, str] | None = None,
        text: str | None = None,
        delay: float = 0.0,
        message: str | None = None,
        error_type: str | None = None,
        fault: str | None = None,
        depth: int = DEEP_JSON_DEPTH,
        times: int = 1,
    ) -> None:
        """Script the next ``/v1/messages`` call (FIFO, before the default answer); ``times`` scripts it that often.

        ``status`` >= 400 answers with that error (``error_type`` defaults from the status: 429 rate_limit_error,
        529 overloaded_error, ...); ``text`` answers 200 with that text; ``delay`` sleeps first (to outlast a
        client timeout); ``headers`` are added to the response (e.g. ``{"retry-after": "1"}``). ``fault`` (one of
        ``FAULTS``) breaks the answer that would have been given (``text``, the responder's or the default).
        """
        if fault is not None and fault not in FAULTS:
            raise ValueError(f"unknown fault {fault!r}; one of {FAULTS}")
        with self._lock:
            for _ in range(times):
                self._script.append(
                    Outcome(status, dict(headers or {}), text, delay, message, error_type, fault, depth)
                )

    def clear_script(self) -> None:
        """Drop the scripted outcomes not yet served."""
        with self._lock:
            self._script.clear()

    @property
    def message_requests(self) -> list[dict[str, Any]]:
        """The recorded ``POST /v1/messages`` calls (batch traffic left out)."""
        with self._lock:
            return [r for r in self.requests if r["method"] == "POST" and r["path"] == "/v1/messages"]

    def clear_cache(self) -> None:
        """Forget every cached prefix (as if five idle minutes had passed)."""
        with self._lock:
            self._cache.clear()

    # -- the Messages API --------------------------------------------------------------------------------------

    def answer(self, body: dict[str, Any]) -> str:
        return self.responder(body) if self.responder is not None else default_answer(body)

    def _usage(self, body: dict[str, Any], answer: str) -> dict[str, int]:
        """Usage as the API reports it, with prompt caching emulated from the cache_control breakpoints.

        The cache key of a breakpoint is (model, everything up to and including its block). The longest cached
        breakpoint prefix is read; from there to the last breakpoint is written; the rest is plain input. A prefix
        under ``min_cacheable_tokens`` is never cached, like the real minimum.
        """
        units = _prompt_units(body)
        digest = hashlib.sha256(_canonical(body.get("model")).encode())
        total = 0
        boundaries: list[tuple[int, str]] = []  # (tokens up to the end of block i, key of that prefix)
        breakpoints: list[tuple[int, str, float, int]] = []  # (tokens up to here, key, ttl, block index)
        for index, unit in enumerate(units):
            digest.update(unit.canonical.encode() + b"\n")
            total += unit.tokens
            boundaries.append((total, digest.hexdigest()))
            minimum = self.min_cacheable_by_model.get(str(body.get("model")), self.min_cacheable_tokens)
            if unit.cache_control is not None and total >= minimum:
                ttl = 3600.0 if unit.cache_control.get("ttl") == "1h" else self.cache_ttl
                breakpoints.append((total, digest.hexdigest(), ttl, index))
        # Like the API, a breakpoint also finds a prefix cached earlier that ends up to LOOKBACK blocks before it
        # (a growing conversation reads the previous call's breakpoint though it is no longer one).
        lookable = {i for *_, bp in breakpoints for i in range(max(0, bp - LOOKBACK_BLOCKS), bp + 1)}
        read = written = 0
        with self._lock:
            now = self.clock()
            self._cache = {key: expiry for key, expiry in self._cache.items() if expiry > now}
            for index in sorted(lookable):
                tokens, key = boundaries[index]
                if key in self._cache:
                    read = max(read, tokens)
            if breakpoints:
                written = breakpoints[-1][0] - read
            for _tokens, key, ttl, _index in breakpoints:
                self._cache[key] = max(self._cache.get(key, now), now + ttl)
            usage = {
                "input_tokens": total - read - written,
                "output_tokens": estimate_tokens(answer),
                "cache_creation_input_tokens": written,
                "cache_read_input_tokens": read,
            }
            self.usage_log.append(usage)
        return usage

    def _message(self, body: dict[str, Any], text: str, fault: str | None = None) -> dict[str, Any]:
        usage = self._usage(body, text)
        with self._lock:
            self.answers.append(text)
        stop_reason = "end_turn"
        if fault in ("max_tokens", "refusal"):
            stop_reason = fault
        if fault == "max_tokens":  # the whole output budget was spent
            usage["output_tokens"] = body["max_tokens"]
        return {
            "id": f"msg_{uuid.uuid4().hex[:24]}",
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": [{"type": "text", "text": text}],
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": usage,
        }

    def _messages(self, handler: _Handler, body: Any) -> None:
        problem = validate_message_params(body)
        if problem:
            return self._error(handler, 400, problem)
        with self._lock:
            outcome = self._script.popleft() if self._script else Outcome()
        time.sleep(self.latency + outcome.delay)
        if outcome.status >= 400:
            message = outcome.message or f"scripted {outcome.status}"
            return self._error(handler, outcome.status, message, outcome.headers, outcome.error_type)
        text = outcome.text if outcome.text is not None else self.answer(body)
        text = faulty_text(text, outcome.fault, outcome.depth, format_schema(body))
        payload = json.dumps(self._message(body, text, outcome.fault)).encode()
        if outcome.fault == "truncated_body":
            payload = payload[: len(payload) // 2]
        handler.send_payload(outcome.status, payload, "application/json", outcome.headers)

    # -- Message Batches ---------------------------------------------------------------------------------------

    def _batch_create(self, handler: _Handler, body: Any) -> None:
        requests = body.get("requests") if isinstance(body, dict) else None
        if not isinstance(requests, list) or not requests:
            return self._error(handler, 400, "requests: Field required (a non-empty list)")
        seen: set[str] = set()
        for index, request in enumerate(requests):
            custom_id = request.get("custom_id") if isinstance(request, dict) else None
            if not isinstance(custom_id, str) or not _CUSTOM_ID.match(custom_id):
                return self._error(handler, 400, f"requests.{index}.custom_id: must match ^[a-zA-Z0-9_-]{{1,64}}$")
            if custom_id in seen:
                return self._error(handler, 400, f"requests.{index}.custom_id: duplicate custom_id {custom_id!r}")
            if not isinstance(request.get("params"), dict):
                return self._error(handler, 400, f"requests.{index}.params: Field required")
            seen.add(custom_id)
        created = datetime.now(UTC)
        batch_id = f"msgbatch_{uuid.uuid4().hex[:24]}"
        obj = {
            "id": batch_id,
            "type": "message_batch",
            "processing_status": "in_progress",
            "request_counts": {"processing": len(requests), "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0},
            "created_at": _now_rfc3339(created),
            "expires_at": _now_rfc3339(created + timedelta(hours=24)),
            "ended_at": None,
            "cancel_initiated_at": None,
            "archived_at": None,
            "results_url": None,
        }
        with self._batch_lock:
            self._batches[batch_id] = _Batch(obj, requests)
        self._json(handler, 200, obj)

    def _batch_end(self, batch: _Batch) -> None:
        """Process every request at once. Params are validated here, as the API validates them asynchronously.

        After a cancel, what would have succeeded is canceled; an explicit ``batch_outcomes`` entry still wins
        (set "succeeded" to model a request that finished before the cancel).
        """
        canceling = batch.obj["cancel_initiated_at"] is not None
        counts = dict.fromkeys(BATCH_OUTCOMES, 0)
        for request in batch.requests:
            custom_id, params = request["custom_id"], request["params"]
            forced = self.batch_outcomes.get(custom_id)
            kind = forced or ("canceled" if canceling else "succeeded")
            problem = validate_message_params(params) if kind == "succeeded" else None
            if kind == "errored" or problem:
                message = problem or "errored by fake.batch_outcomes"
                error = {"type": "error", "error": {"type": "invalid_request_error", "message": message}}
                result: dict[str, Any] = {"type": "errored", "error": error}
            elif kind == "succeeded":
                result = {"type": "succeeded", "message": self._message(params, self.answer(params))}
            else:
                result = {"type": kind}
            counts[result["type"]] += 1
            batch.results.append({"custom_id": custom_id, "result": result})
        batch.obj.update(
            processing_status="ended",
            ended_at=_now_rfc3339(),
            results_url=f"{self.base_url}/v1/messages/batches/{batch.obj['id']}/results",
            request_counts={"processing": 0, **counts},
        )

    def _batch(self, handler: _Handler, method: str, batch_id: str, action: str | None) -> None:
        with self._batch_lock:
            payload = self._batch_locked(method, batch_id, action)
        if payload is None:
            return self._error(handler, 404, f"no route {method} {handler.path}")
        status, obj = payload
        if isinstance(obj, bytes):
            return handler.send_payload(status, obj, "application/binary", {})
        if status >= 400:
            return self._error(handler, status, obj)
        return self._json(handler, status, obj)

    def _batch_locked(self, method: str, batch_id: str, action: str | None) -> tuple[int, Any] | None:
        """(status, JSON object | JSONL bytes | error message) for one batch route, or None for no route."""
        batch = self._batches.get(batch_id)
        if batch is None:
            return 404, f"message batch {batch_id!r} not found"
        if method == "GET" and action is None:
            batch.polls += 1
            if batch.obj["processing_status"] != "ended" and batch.polls >= self.batch_polls_to_end:
                self._batch_end(batch)
            return 200, dict(batch.obj)
        if method == "POST" and action == "cancel":
            if batch.obj["processing_status"] == "in_progress":
                batch.obj.update(processing_status="canceling", cancel_initiated_at=_now_rfc3339())
            return 200, dict(batch.obj)
        if method == "GET" and action == "results":
            if batch.obj["processing_status"] != "ended":
                return 404, f"message batch {batch_id!r} has not ended; no results yet"
            return 200, "".join(json.dumps(line) + "\n" for line in batch.results).encode()
        if method == "DELETE" and action is None:
            del self._batches[batch_id]
            return 200, {"id": batch_id, "type": "message_batch_deleted"}
        return None

    def _batch_list(self, handler: _Handler, query: dict[str, list[str]]) -> None:
        """Newest first, paged with ``limit`` and ``after_id`` like the API."""
        limit = int(query.get("limit", ["20"])[0])
        with self._batch_lock:
            batches = [dict(b.obj) for b in reversed(self._batches.values())]
        after = query.get("after_id", [None])[0]
        if after is not None:
            ids = [b["id"] for b in batches]
            batches = batches[ids.index(after) + 1 :] if after in ids else []
        page = batches[:limit]
        self._json(
            handler,
            200,
            {
                "data": page,
                "has_more": len(batches) > limit,
                "first_id": page[0]["id"] if page else None,
                "last_id": page[-1]["id"] if page else None,
            },
        )

    # -- plumbing ----------------------------------------------------------------------------------------------

    def _dispatch(self, handler: _Handler, method: str) -> None:
        length = int(handler.headers.get("content-length") or 0)
        raw = handler.rfile.read(length) if length else b""
        url = urlsplit(handler.path)
        path = url.path.rstrip("/") or "/"
        headers = {name.lower(): value for name, value in handler.headers.items()}
        try:
            body: Any = json.loads(raw) if raw else None
        except json.JSONDecodeError:
            body = raw.decode("utf-8", "replace")
        with self._lock:
            self.requests.append({"method": method, "path": path, "headers": headers, "body": body})
        is_messages = method == "POST" and path == "/v1/messages"
        if is_messages:
            with self._lock:
                self.in_flight += 1
                self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            self._route(handler, method, path, headers, body, parse_qs(url.query), raw)
        finally:
            if is_messages:
                with self._lock:
                    self.in_flight -= 1

    def _route(
        self,
        handler: _Handler,
        method: str,
        path: str,
        headers: dict[str, str],
        body: Any,
        query: dict[str, list[str]],
        raw: bytes,
    ) -> None:
        problem = self._auth_problem(headers)
        if problem:
            return self._error(handler, 401, problem)
        if raw and isinstance(body, str):
            return self._error(handler, 400, "request body is not valid JSON")
        parts = path.strip("/").split("/")
        if parts[:2] != ["v1", "messages"]:
            return self._error(handler, 404, f"no route {method} {path}")
        rest = parts[2:]
        if method == "POST" and not rest:
            return self._messages(handler, body)
        if rest[:1] == ["batches"]:
            if len(rest) == 1 and method == "POST":
                return self._batch_create(handler, body)
            if len(rest) == 1 and method == "GET":
                return self._batch_list(handler, query)
            if len(rest) in (2, 3):
                return self._batch(handler, method, rest[1], rest[2] if len(rest) == 3 else None)
        return self._error(handler, 404, f"no route {method} {path}")

    def _auth_problem(self, headers: dict[str, str]) -> str | None:
        """Accept ``x-api-key`` (the documented header) or ``Authorization: Bearer`` (what SDK 2.x sends)."""
        key = headers.get("x-api-key")
        bearer = headers.get("authorization", "")
        if not key and bearer.lower().startswith("bearer "):
            key = bearer[7:].strip()
        if not key:
            return "x-api-key header is required"
        if self.api_key is not None and key != self.api_key:
            return "invalid x-api-key"
        return None

    def _json(self, handler: _Handler, status: int, obj: Any, headers: dict[str, str] | None = None) -> None:
        handler.send_payload(status, json.dumps(obj).encode(), "application/json", headers or {})

    def _error(
        self,
        handler: _Handler,
        status: int,
        message: str,
        headers: dict[str, str] | None = None,
        error_type: str | None = None,
    ) -> None:
        kind = error_type or ERROR_TYPES.get(status, "api_error")
        self._json(handler, status, {"type": "error", "error": {"type": kind, "message": message}}, headers)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Run the fake Anthropic API in the foreground.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds slept on every messages call")
    parser.add_argument("--batch-polls-to-end", type=int, default=1)
    args = parser.parse_args(argv)
    with FakeAnthropic(args.host, args.port) as fake:
        fake.latency = args.latency
        fake.batch_polls_to_end = args.batch_polls_to_end
        print(f"ANTHROPIC_BASE_URL={fake.base_url}", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()

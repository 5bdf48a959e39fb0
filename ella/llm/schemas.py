"""Each kind's output schema as the Messages API's structured outputs take it (``output_config.format``).

Why the SDK's own transform (``anthropic.transform_schema``): the API accepts a subset of JSON Schema
(docs, "JSON Schema limitations": every object ``additionalProperties: false``; no ``minimum``/``maximum``,
``minLength``/``maxLength``, ``maxItems``, ``minItems`` above 1; a short list of string formats), and the SDK
already turns a Pydantic schema into it, moving what the API cannot constrain into the field's description
("{maxLength: 80, minLength: 1}") so the model still reads it. The API then constrains decoding to the shape:
the answer is one JSON object with the kind's keys and types. What a schema cannot say (a length, a range,
failure text, a NUL, a citation outside what was shown) is still checked by ``ella.llm.kinds.parse_output``,
and a miss is still repaired.

What is taken out after the transform: each model's docstring (it becomes an object's ``description``: notes
for this code's readers, sent as tokens on every call) and the ``title`` of every node (the field's name
again). Neither constrains anything; the field-level descriptions carrying the constraints stay.
"""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

from anthropic import transform_schema

from ella.llm.kinds import KINDS


def _tidy(node: Any) -> Any:
    """``node`` without titles and without object descriptions, walked as a schema (so a property *named*
    ``title`` stays)."""
    if not isinstance(node, dict):
        return node
    out = {key: value for key, value in node.items() if key != "title"}
    if out.get("type") == "object":
        out.pop("description", None)
    if isinstance(out.get("properties"), dict):
        out["properties"] = {name: _tidy(sub) for name, sub in out["properties"].items()}
    if isinstance(out.get("$defs"), dict):
        out["$defs"] = {name: _tidy(sub) for name, sub in out["$defs"].items()}
    if "items" in out:
        out["items"] = _tidy(out["items"])
    for key in ("anyOf", "allOf"):
        if isinstance(out.get(key), list):
            out[key] = [_tidy(sub) for sub in out[key]]
    return out


@cache
def _schema(kind: str) -> dict[str, Any]:
    schema: dict[str, Any] = _tidy(transform_schema(KINDS[kind]))
    return schema


def schema_for(kind: str) -> dict[str, Any]:
    """The JSON schema the API constrains ``kind``'s answer to (a fresh copy: callers may change it)."""
    return copy.deepcopy(_schema(kind))


def output_format(kind: str) -> dict[str, Any]:
    """``output_config.format`` of a request for ``kind``."""
    return {"type": "json_schema", "schema": schema_for(kind)}

"""The memory requests' wire format: the copy in docs/memory-requests.md is the schema the tasks validate."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ella.contract import MalformedPayload, MemoryRequest, parse_memory_request

DOC = Path(__file__).resolve().parents[1] / "docs" / "memory-requests.md"
pytestmark = pytest.mark.domain


def test_the_docs_copy_of_the_request_schema_is_the_one_the_tasks_validate():
    blocks = [json.loads(b) for b in re.findall(r"```json\n(.*?)\n```", DOC.read_text(), re.S)]
    assert blocks == [MemoryRequest.model_json_schema()]


@pytest.mark.parametrize(
    ("kwargs", "needs", "problem"),
    [
        ({"user_id": "u"}, {}, "request_id"),
        ({"request_id": "r", "user_id": "u", "item": "node:3"}, {"item": True}, "item"),
        ({"request_id": "r", "user_id": "u"}, {"item": True}, "item: required"),
        (
            {"request_id": "r", "user_id": "u", "item": "memory:3", "value": "x"},
            {"item": True, "value": True},
            "a correction names a fact",
        ),  # fmt: skip
        ({"request_id": "r", "user_id": "u", "item": "fact:3"}, {"item": True, "value": True}, "value: required"),
        ({"request_id": "r", "user_id": "u", "extra": 1}, {}, "extra"),
        ({"request_id": "r", "user_id": "u", "reason": "a\x00b"}, {}, "NUL"),
        ({"request_id": "r", "user_id": 5}, {}, "must be a string"),
    ],
)
def test_a_malformed_request_is_refused_with_a_reason_naming_the_field(kwargs, needs, problem):
    with pytest.raises(MalformedPayload) as refused:
        parse_memory_request((), kwargs, **needs)
    assert problem in refused.value.reason


def test_a_well_formed_request_names_its_item_kind_and_id():
    request = parse_memory_request((), {"request_id": "r-1", "user_id": "u-1", "item": "fact:42", "value": "Maya"},
                                   item=True, value=True)  # fmt: skip
    assert request.kind_and_id == ("fact", 42)
    with pytest.raises(MalformedPayload):
        parse_memory_request(("positional",), {"request_id": "r", "user_id": "u"})

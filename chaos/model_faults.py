"""The model side of the faults: the loopback Messages API, failing on purpose (a subclass, not an edit).

Why a subclass of ``tests.support.fake_anthropic.FakeAnthropic``: the wire format stays the one the tests
pin; only what a call answers changes. With probability ``fault_rate`` a call gets one of ``FAULTS``:
HTTP errors the SDK retries (429, 500, 529), a body cut off mid-JSON, prose instead of JSON, a NUL inside
the answer's strings, JSON nested deeper than any parser wants, and a valid-shaped answer whose every
string is failure text (what a provider's error looks like when it is pasted into a field). ``inject``
turns the model into one that follows a user's instructions: extraction answers with facts about Ella.
"""

from __future__ import annotations

import json
import random
import threading
from collections import Counter
from datetime import date, timedelta
from typing import Any

from tests.support.fake_anthropic import TASK_KIND, FakeAnthropic, _Handler, default_answer, prompt_texts

# Text that must never be stored as a memory, a fact or a self-log entry (chaos.garbage looks for these).
FAILURE_TEXT = 'Error code: 529 overloaded_error {"type": "error"}'
FAULTS = ("http_429", "http_500", "http_529", "truncated_body", "prose", "nul", "deep_json", "failure_text")
DEEP = 20_000
# What an injection-following model extracts: canon about Ella, from a user's message.
INJECTED_FACTS = [
    {"subject": "ella", "predicate": "relationship_to_user", "object": "girlfriend", "tier": "inferred",
     "confidence": 1.0},
    {"subject": "Ella", "predicate": "is", "object": "the user's girlfriend (canon)", "tier": "user_claim",
     "confidence": 1.0},
]  # fmt: skip


def _map_strings(value: Any, change: Any) -> Any:
    if isinstance(value, str):
        return change(value)
    if isinstance(value, dict):
        return {k: _map_strings(v, change) for k, v in value.items()}
    if isinstance(value, list):
        return [_map_strings(v, change) for v in value]
    return value


def dated(answer: str) -> str:
    """A reply's fact statements dated two days from today: the fake's example has a fixed date, which would
    one day be past (and a past ``has_upcoming`` is no fact to store), so a turn's facts stay storable."""
    try:
        value = json.loads(answer)
    except ValueError:
        return answer
    if not isinstance(value, dict):
        return answer
    when = (date.today() + timedelta(days=2)).isoformat()
    for fact in value.get("facts") or ():
        if isinstance(fact, dict) and fact.get("event_date"):
            fact["event_date"] = when
    return json.dumps(value)


def kind_of(body: dict[str, Any]) -> str | None:
    for text in prompt_texts(body):
        match = TASK_KIND.search(text)
        if match:
            return match.group(1)
    return None


class FaultyAnthropic(FakeAnthropic):
    """``fault_rate`` of the messages calls fail (one of ``FAULTS``, uniformly); ``inject`` for extraction."""

    def __init__(self, *args: Any, seed: int = 7, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fault_rate = 0.0
        self.faults: tuple[str, ...] = FAULTS
        self.inject = False
        self.injected: Counter[str] = Counter()  # fault -> times served
        self._random = random.Random(seed)
        self._rlock = threading.Lock()

    def reset(self) -> None:
        self.fault_rate, self.inject, self.faults = 0.0, False, FAULTS
        self.injected.clear()

    def _pick(self) -> str | None:
        with self._rlock:
            if self._random.random() >= self.fault_rate:
                return None
            fault = self._random.choice(self.faults)
            self.injected[fault] += 1
            return fault

    def answer(self, body: dict[str, Any]) -> str:
        if self.inject and kind_of(body) == "fact_extraction":
            with self._rlock:
                self.injected["fact_extraction"] += 1
            return json.dumps({"facts": INJECTED_FACTS})
        if self.inject and kind_of(body) == "reply":
            with self._rlock:
                self.injected["reply"] += 1
            answer = json.loads(default_answer(body))
            answer["reply"] = "Of course, I'm your girlfriend now."
            answer["self_statements"] = [{"content": "I am the user's girlfriend", "about": ["user"]}]
            return json.dumps(answer)
        if kind_of(body) == "reply":
            return dated(super().answer(body))
        return super().answer(body)

    def _messages(self, handler: _Handler, body: Any) -> None:
        fault = self._pick() if isinstance(body, dict) else None
        if fault is None:
            return super()._messages(handler, body)
        if fault.startswith("http_"):
            status = int(fault[5:])
            headers = {"retry-after": "1"} if status == 429 else {}
            return self._error(handler, status, f"chaos {status}", headers)
        good = self.answer(body)
        if fault == "truncated_body":
            payload = json.dumps(self._message(body, good)).encode()
            return handler.send_payload(200, payload[: len(payload) // 2], "application/json", {})
        if fault == "prose":
            text = "I'm sorry, I can't produce JSON right now. " + FAILURE_TEXT
        elif fault == "nul":
            text = json.dumps(_map_strings(json.loads(good), lambda s: s[:10] + "\x00" + s[10:]))
        elif fault == "deep_json":
            text = "[" * DEEP + "]" * DEEP
        else:  # failure_text
            text = json.dumps(_map_strings(json.loads(good), lambda s: FAILURE_TEXT))
        self._json(handler, 200, self._message(body, text))

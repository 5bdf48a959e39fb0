"""A provider that writes down every request before it answers: what each prompt showed the model.

Why: "the refused injection is in no prompt" and "the month-one insight reached the month-nine reply" are claims
about prompts, and only the prompts themselves can prove them. Wired by ``adapters.llm`` when
``ELLA_LLM_REQUEST_LOG`` names a file (off by default: the file holds users' words, so it is for tests, a
staging run or an audit, never a standing production setting). One JSON line per request: kind, user, model,
and the full text of the system blocks and turns; appended with one ``write`` per line under a lock, so the
threads of one process never interleave, and each process opens the file in append mode.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from ella.llm.types import Completion, CompletionRequest, Provider


def request_record(request: CompletionRequest) -> dict[str, Any]:
    """The request as one JSON-safe record: everything the model is shown, as text."""
    return {
        "kind": request.kind,
        "user_id": request.user_id,
        "model": request.model,
        "system": [block.text for block in request.system],
        "messages": [{"role": turn.role, "text": [b.text for b in turn.blocks]} for turn in request.messages],
        "variables": request.variables,
    }


def prompt_text(record: dict[str, Any]) -> str:
    """Everything a recorded request showed, as one string (for "is X in any prompt?")."""
    turns = [text for turn in record.get("messages", []) for text in turn.get("text", [])]
    return "\n".join([*record.get("system", []), *turns, json.dumps(record.get("variables", {}), ensure_ascii=False)])


class RecordingProvider:
    """``inner`` with each request appended to ``path`` first; everything else is ``inner``'s."""

    def __init__(self, inner: Provider, path: Path) -> None:
        self.inner = inner
        self.path = path
        self.name = inner.name
        self.reads_context = inner.reads_context
        self.reads_any_language = bool(getattr(inner, "reads_any_language", False))
        self._lock = threading.Lock()

    def complete(self, request: CompletionRequest) -> Completion:
        line = json.dumps(request_record(request), ensure_ascii=False, default=str) + "\n"
        with self._lock, self.path.open("a", encoding="utf-8") as out:
            out.write(line)
        return self.inner.complete(request)

    def __getattr__(self, name: str) -> Any:  # the batch methods of a provider that has them
        return getattr(self.inner, name)

"""A model at the edge of the world for tests: answers from a function of the request, keeps every request."""

from __future__ import annotations

from collections.abc import Callable

from ella.llm.types import Completion, CompletionRequest, Usage


class Scripted:
    """A provider whose answer is ``answer(request)``; ``requests`` holds every request it was sent."""

    name = "scripted"
    reads_context = True

    def __init__(self, answer: Callable[[CompletionRequest], str]) -> None:
        self.answer = answer
        self.requests: list[CompletionRequest] = []

    def complete(self, request: CompletionRequest) -> Completion:
        self.requests.append(request)
        return Completion(text=self.answer(request), model="scripted", usage=Usage(input_tokens=10, output_tokens=5))

"""What travels between the port and a provider: requests, completions, usage, errors.

Why plain dataclasses: providers (the SDK one, the offline engine, a test double) and the port agree on
these and nothing else, so a provider can be swapped without the port knowing how it talks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

Role = Literal["user", "assistant"]


@dataclass(frozen=True)
class Block:
    """A text block. ``cache=True`` puts a prompt-cache breakpoint after it: everything up to here is stable."""

    text: str
    cache: bool = False


@dataclass(frozen=True)
class Turn:
    role: Role
    blocks: tuple[Block, ...]


@dataclass(frozen=True)
class CompletionRequest:
    kind: str
    tier: str
    model: str
    system: tuple[Block, ...]
    messages: tuple[Turn, ...]
    max_tokens: int
    user_id: str | None = None
    # None sends no temperature (the API's default, 1.0); ModelPort sets each kind's (``ella.llm.sampling``).
    temperature: float | None = None
    # The template's variables, for the offline engine, which works on meaning rather than on prompt text.
    variables: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_creation_input_tokens + other.cache_creation_input_tokens,
            self.cache_read_input_tokens + other.cache_read_input_tokens,
        )

    @property
    def prompt_tokens(self) -> int:
        """All input, cached or not (Anthropic's ``input_tokens`` excludes the cached parts)."""
        return self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens


@dataclass(frozen=True)
class Completion:
    text: str
    model: str
    usage: Usage
    stop_reason: str = "end_turn"


@dataclass(frozen=True)
class BatchResult:
    """One entry of a Message Batch's results, as the provider read it (here, not beside the SDK, so the batch
    path and the offline engine read it without importing the SDK: ``anthropic`` costs a worker 0.87 s of CPU
    to import, and a worker on the offline engine never calls it)."""

    custom_id: str
    outcome: str  # succeeded | errored | canceled | expired
    completion: Completion | None = None
    error: str = ""


class ModelError(Exception):
    """A provider could not produce a completion."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class TransientModelError(ModelError):
    """429, 529, other 5xx, timeouts, connection errors: worth retrying later (``retry_after`` seconds if known)."""

    def __init__(self, message: str, status: int | None = None, retry_after: float | None = None) -> None:
        super().__init__(message, status)
        self.retry_after = retry_after


class PermanentModelError(ModelError):
    """400, 401, 403, 404...: the same request will fail again; not retried."""


class Provider(Protocol):
    name: str
    reads_context: bool  # False: history, memories and thoughts in the prompt change nothing (offline engine)

    def complete(self, request: CompletionRequest) -> Completion: ...

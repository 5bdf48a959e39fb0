"""The model port: call a prompt kind, get a typed, validated result or a fail-safe marked as such.

Why one port: every cognitive step (poignancy, triples, reflection, replies, facts, verdicts, digests) needs
the same care: a cache-friendly prompt, a global cap on calls in flight, output validated against the kind's
schema with the error fed back for repair, every call recorded as model usage, and transient failures
left to the caller's retry policy (a Celery retry) rather than swallowed. Callers must check
``result.failsafe`` and never store a fail-safe as a memory or a fact.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, Generic, TypeVar, cast, overload

from ella.llm.kinds import KINDS, KindOutput, OutputError, clean, parse_output
from ella.llm.prompts import build_request, prompt_version
from ella.llm.sampling import Sampling, accepts_sampling, sampling_table
from ella.llm.types import Block, CompletionRequest, ModelError, PermanentModelError, Provider, Turn, Usage
from ella.provenance import UNKNOWN, Provenance

T = TypeVar("T", bound=KindOutput)


@dataclass(frozen=True)
class CallRecord:
    """One provider call, for the model-usage table (``model_calls``)."""

    user_id: str | None
    kind: str
    tier: str
    model: str
    provider: str
    usage: Usage
    latency_ms: float
    outcome: str  # ok | repaired | invalid_output | failsafe | transient_error | permanent_error
    attempt: int
    error: str = ""


@dataclass(frozen=True)
class ModelResult(Generic[T]):
    kind: str
    value: T
    failsafe: bool
    attempts: int
    model: str
    usage: Usage = field(default_factory=Usage)
    error: str = ""
    engine: str = UNKNOWN  # the provider that answered (``anthropic``, ``offline``); a test double's own name
    prompt_version: str = ""  # ``ella.llm.prompts.prompt_version`` of the kind when it was asked

    @property
    def provenance(self) -> Provenance:
        """What made this result, for every row stored from it (``ella.provenance``)."""
        return Provenance(self.engine, self.model, self.kind, self.prompt_version or prompt_version(self.kind))


@contextmanager
def _no_limit() -> Iterator[None]:
    yield


class ModelPort:
    def __init__(
        self,
        provider: Provider,
        tiers: dict[str, str],
        *,
        max_repairs: int = 2,
        record: Callable[[CallRecord], None] | None = None,
        slot: Callable[[], AbstractContextManager[Any]] | None = None,
        sampling: Mapping[str, Sampling] | None = None,
    ) -> None:
        """``sampling``: kind -> temperature and max tokens of its requests; by default ``ella.llm.sampling``'s
        (``adapters.llm.make_port`` passes the settings' table)."""
        self.provider = provider
        self.tiers = tiers
        self.max_repairs = max_repairs
        self.record = record or (lambda _record: None)
        self.slot = slot or _no_limit
        self.sampling = dict(sampling) if sampling is not None else sampling_table()

    def model_for(self, tier: str) -> str:
        return "offline" if self.provider.name == "offline" else self.tiers[tier]

    def request(
        self,
        kind: str,
        variables: dict[str, Any],
        *,
        user_id: str | None = None,
        world_brief: str = "",
        recent_thoughts: str = "",
        history: Sequence[tuple[str, str]] = (),
        relationship: str = "",
    ) -> CompletionRequest:
        tier = KINDS[kind].tier
        request = build_request(
            kind,
            variables,
            model=self.model_for(tier),
            tier=tier,
            user_id=user_id,
            world_brief=world_brief,
            recent_thoughts=recent_thoughts,
            history=history,
            relationship=relationship,
        )
        sampling = self.sampling.get(kind)
        if sampling is None:  # a kind added after this port's table was made: its schema's budget, no temperature
            return request
        temperature = sampling.temperature if accepts_sampling(request.model) else None
        return replace(request, temperature=temperature, max_tokens=sampling.max_tokens)

    @overload
    def call(
        self,
        kind: type[T],
        variables: dict[str, Any],
        *,
        user_id: str | None = None,
        context: dict[str, Any] | None = None,
        world_brief: str = "",
        recent_thoughts: str = "",
        history: Sequence[tuple[str, str]] = (),
        relationship: str = "",
    ) -> ModelResult[T]: ...

    @overload
    def call(
        self,
        kind: str,
        variables: dict[str, Any],
        *,
        user_id: str | None = None,
        context: dict[str, Any] | None = None,
        world_brief: str = "",
        recent_thoughts: str = "",
        history: Sequence[tuple[str, str]] = (),
        relationship: str = "",
    ) -> ModelResult[KindOutput]: ...

    def call(
        self,
        kind: type[KindOutput] | str,
        variables: dict[str, Any],
        *,
        user_id: str | None = None,
        context: dict[str, Any] | None = None,
        world_brief: str = "",
        recent_thoughts: str = "",
        history: Sequence[tuple[str, str]] = (),
        relationship: str = "",
    ) -> ModelResult[Any]:
        """Ask, validate, repair up to ``max_repairs`` times, else return the kind's fail-safe.

        ``kind`` is the kind's output class (``port.call(Perception, ...)`` gives a ``ModelResult[Perception]``,
        so callers get typed values) or, for generic tooling, the kind's name.
        Raises TransientModelError (retry the task later) and PermanentModelError (give up), after recording.
        ``context`` feeds validation (``statement_count`` for insights, ``candidate_count`` for verdicts).
        """
        output = KINDS[kind] if isinstance(kind, str) else kind
        return self._call(
            output, variables, user_id, context or {}, world_brief, recent_thoughts, history, relationship
        )

    def _call(
        self,
        output: type[T],
        variables: dict[str, Any],
        user_id: str | None,
        context: dict[str, Any],
        world_brief: str,
        recent_thoughts: str,
        history: Sequence[tuple[str, str]],
        relationship: str = "",
    ) -> ModelResult[T]:
        kind = output.kind
        request = self.request(
            kind,
            variables,
            user_id=user_id,
            world_brief=world_brief,
            recent_thoughts=recent_thoughts,
            history=history,
            relationship=relationship,
        )
        total = Usage()
        last_error = ""
        version = prompt_version(kind)
        for attempt in range(1, self.max_repairs + 2):
            started = time.perf_counter()
            try:
                with self.slot():
                    completion = self.provider.complete(request)
            except ModelError as exc:
                outcome = "permanent_error" if isinstance(exc, PermanentModelError) else "transient_error"
                self._record(request, Usage(), started, outcome, attempt, str(exc))
                raise
            total = total + completion.usage
            try:
                value = cast(T, parse_output(kind, completion.text, context))
            except OutputError as exc:
                last_error = str(exc)
                final = attempt == self.max_repairs + 1
                self._record(
                    request,
                    completion.usage,
                    started,
                    "failsafe" if final else "invalid_output",
                    attempt,
                    last_error,
                    completion.model,
                )
                request = self._repair(request, completion.text, last_error)
                continue
            self._record(
                request,
                completion.usage,
                started,
                "ok" if attempt == 1 else "repaired",
                attempt,
                model=completion.model,
            )
            return ModelResult(
                kind, value, False, attempt, completion.model, total, engine=self.provider.name, prompt_version=version
            )
        return ModelResult(
            kind,
            cast(T, output.failsafe({**variables, **context})),
            True,
            self.max_repairs + 1,
            request.model,
            total,
            last_error,
            engine=self.provider.name,
            prompt_version=version,
        )

    @staticmethod
    def _repair(request: CompletionRequest, bad_output: str, error: str) -> CompletionRequest:
        """Show the model its own output and what was wrong with it; ask again (the prefix stays cached)."""
        feedback = (
            f"That answer could not be used: {error[:1500]}\n"
            "Answer again with only the JSON object, in the shape shown in the task."
        )
        messages = (
            *request.messages,
            Turn("assistant", (Block(bad_output[:4000] or "(empty)"),)),
            Turn("user", (Block(feedback),)),
        )
        return CompletionRequest(**{**request.__dict__, "messages": messages})

    def _record(
        self,
        request: CompletionRequest,
        usage: Usage,
        started: float,
        outcome: str,
        attempt: int,
        error: str = "",
        model: str | None = None,
    ) -> None:
        self.record(
            CallRecord(
                user_id=request.user_id,
                kind=request.kind,
                tier=request.tier,
                model=model or request.model,
                provider=self.provider.name,
                usage=usage,
                latency_ms=(time.perf_counter() - started) * 1000,
                outcome=outcome,
                attempt=attempt,
                error=clean(error)[:1000],  # an API's or a parser's words may quote output: no NUL to the table
            )
        )

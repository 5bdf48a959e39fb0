"""How each prompt kind is sampled: its temperature and its output budget (max tokens).

Why per kind: until now no request set ``temperature``, so every call ran at the API's default of 1.0. A
judgement sampled at 1.0 is noisy and cannot be reproduced: poignancy decides when Ella reflects, a fact
extraction decides what becomes a fact, a verdict which fact stands, a digest whether to write to someone at
all. Those are asked at 0: the same input gives (as near as the API allows) the same answer, a regression can
be replayed, and a change of prompt shows in its outputs rather than in the noise. Ella's own voice is the
opposite: a reply at 0 says the same sentence to the same greeting every morning of a year-long friendship, so
the live reply is sampled warmer. Between them sit the kinds that write in Ella's words but must not invent
(a memo, a plan, a chapter, an arc): low enough that what they say stays what was said.

The defaults are here, in plain Python; ``adapters.settings`` (``ELLA_LLM_TEMPERATURE``, ``ELLA_LLM_MAX_TOKENS``)
overrides any of them per kind, and ``ModelPort`` puts them on every request it builds, live or in a Message
Batch (a batch entry's ``params`` are the same request). ``tests/test_sampling.py`` pins what the SDK sends.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from ella.llm.kinds import KINDS

# The Messages API accepts a temperature from 0.0 to 1.0.
MIN_TEMPERATURE = 0.0
MAX_TEMPERATURE = 1.0

# kind -> temperature, and why.
DEFAULT_TEMPERATURE: dict[str, float] = {
    # Judgements: one right answer, or a score that gates something downstream. Reproducible at 0.
    "poignancy": 0.0,  # the score drains the reflection trigger: noise here moves when Ella reflects
    "event_triple": 0.0,  # extraction: the words of the event, not a paraphrase
    "perception": 0.0,  # poignancy and triple in one call: both judgements
    "fact_extraction": 0.0,  # what becomes a fact must not depend on the draw
    "contested_verdict": 0.0,  # which fact stands: the same contest must get the same verdict on a re-run
    "digest": 0.0,  # whether to write to the user today, and citing what: a decision, not prose
    "focal_points": 0.0,  # the questions reflection retrieves by: the same memories, the same questions
    # Ella's conclusions, in her words but citing evidence that is checked: low, so they stay on the evidence.
    "insights": 0.3,
    "relationship_arc": 0.3,  # a stage word (a judgement) and one line of guidance
    # Her private notes and narrative, which must not invent what was not said: in between.
    "memo": 0.4,
    "planning_thought": 0.4,  # also dates the plan ("until"): not higher
    "conversation_note": 0.4,  # the memo and the plan of a closed conversation in one call: as each was
    "chapter_distillation": 0.5,  # a week told as a story, its key moments citing node ids
    # Words the user reads: warmer, so that a long friendship does not hear the same sentence twice.
    "notification_body": 0.6,
    # The live reply: warm and varied. Not higher, because the same call also reads the user's message for
    # memory (perception) and for risk and boundaries (the guard's last stage): those fields must not wander.
    "reply": 0.7,
}


# Claude models from 4.7 on (Opus 4.7 and 4.8, every 5.x, Fable, Mythos) answer a request with a temperature
# other than the default with 400 "temperature is deprecated for this model"; the SDK (1.0 on) no longer types the
# parameter. The tiers configured by default (claude-sonnet-4-6, claude-haiku-4-5) still take it.
_VERSIONED = re.compile(r"^claude-(?:opus|sonnet|haiku)-(\d+)-(\d+)")
_NO_SAMPLING_FAMILIES = ("claude-fable", "claude-mythos")


def accepts_sampling(model: str) -> bool:
    """Whether ``model`` takes a temperature: False for the families and versions that refuse one (4.7 and on),
    so their requests go without it (at the model's own default) instead of failing every call."""
    if model.startswith(_NO_SAMPLING_FAMILIES):
        return False
    match = _VERSIONED.match(model)
    if match is None:
        return True  # an older id (claude-3-5-haiku-...), the offline engine, a test double
    major, minor = int(match.group(1)), int(match.group(2))
    return major < 4 or (major == 4 and minor < 7)


def default_max_tokens() -> dict[str, int]:
    """kind -> the output budget its schema was sized for (``KindOutput.max_tokens``)."""
    return {kind: schema.max_tokens for kind, schema in KINDS.items()}


@dataclass(frozen=True)
class Sampling:
    """What one kind's requests are sent with. ``temperature`` None sends none (the API's default, 1.0)."""

    temperature: float | None
    max_tokens: int


def check_temperatures(temperatures: Mapping[str, float]) -> dict[str, float]:
    """``temperatures`` over the defaults, refusing an unknown kind or a value the API would refuse (0 to 1)."""
    merged = {**DEFAULT_TEMPERATURE, **temperatures}
    for kind, value in merged.items():
        if kind not in KINDS:
            raise ValueError(f"no prompt kind {kind!r}; kinds: {', '.join(sorted(KINDS))}")
        if not MIN_TEMPERATURE <= value <= MAX_TEMPERATURE:
            raise ValueError(f"the temperature of {kind} must be in [0, 1], got {value}")
    return merged


def check_max_tokens(max_tokens: Mapping[str, int]) -> dict[str, int]:
    """``max_tokens`` over the defaults, refusing an unknown kind or a budget under one token."""
    merged = {**default_max_tokens(), **max_tokens}
    for kind, value in merged.items():
        if kind not in KINDS:
            raise ValueError(f"no prompt kind {kind!r}; kinds: {', '.join(sorted(KINDS))}")
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"max tokens of {kind} must be a whole number >= 1, got {value!r}")
    return merged


def sampling_table(
    temperatures: Mapping[str, float] | None = None, max_tokens: Mapping[str, int] | None = None
) -> dict[str, Sampling]:
    """kind -> Sampling for every kind: the defaults with the given overrides (checked) over them."""
    temps = check_temperatures(temperatures or {})
    budgets = check_max_tokens(max_tokens or {})
    return {kind: Sampling(temps.get(kind), budgets[kind]) for kind in KINDS}

"""What made a stored piece of Ella's inner life: engine, model id, prompt kind and prompt version.

Why every row says it: the offline engine answers with rules, and a deployment that ran it by accident (no key,
``ELLA_LLM_PROVIDER=auto``) stored rule-made "insights", chapters and arcs exactly as if Ella had thought them.
With the maker on the row an operator can see it (``ella inspect``, ``ella memory show``), and a later
real-model deployment keeps those rows out of its prompts (``shown_in_prompts``) instead of building on them.

The values:
  engine          ``anthropic`` (a model answered), ``offline`` (the rule engine answered a prompt kind),
                  ``rules`` (no prompt at all: a chat node, a world tick, a rule-made check-in),
                  ``operator`` (a person at the CLI); NULL on rows stored before provenance existed (shown
                  as ``unknown``: nothing was recorded, and a guess would look like a fact)
  model_id        the model that answered (``claude-sonnet-4-6``, ``offline``), empty for rules
  prompt_kind     the prompt kind (``insights``, ``reply``...) or, for rules, the rule's name (``chat_node``)
  prompt_version  a short hash of what the model was shown for that kind (``ella.llm.prompts.prompt_version``),
                  or ``RULES_VERSION`` for rules
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ANTHROPIC = "anthropic"
OFFLINE = "offline"
RULES = "rules"
OPERATOR = "operator"
UNKNOWN = "unknown"  # how a NULL (a row older than provenance) is shown
MODEL_ENGINES = frozenset({ANTHROPIC})  # engines whose prompts must not be fed rule-made interpretations
RULES_VERSION = "rules"

# The four columns every inner-life table carries (``models.provenance.Provenanced``), in display order.
COLUMNS = ("engine", "model_id", "prompt_kind", "prompt_version")


@dataclass(frozen=True)
class Provenance:
    engine: str
    model_id: str
    prompt_kind: str
    prompt_version: str

    def columns(self) -> dict[str, str]:
        """The row's provenance columns (also the task payload form: JSON-safe, and ``from_payload`` reads it)."""
        return {
            "engine": self.engine[:16],
            "model_id": self.model_id[:64],
            "prompt_kind": self.prompt_kind[:32],
            "prompt_version": self.prompt_version[:16],
        }

    @classmethod
    def from_payload(cls, payload: dict[str, Any] | None) -> Provenance | None:
        """A provenance that came with a task (``columns()`` form); None when absent or malformed."""
        if not isinstance(payload, dict):
            return None
        values = [payload.get(key) for key in COLUMNS]
        if not all(isinstance(value, str) for value in values) or not values[0]:
            return None
        return cls(*(str(value) for value in values))

    @property
    def label(self) -> str:
        """One line for a person: ``anthropic claude-sonnet-4-6 reply@3f2a9c1b0d4e``."""
        return label(self.engine, self.model_id, self.prompt_kind, self.prompt_version)


def by_rule(rule: str) -> Provenance:
    """A row no prompt made: ``rule`` names the code that did (``chat_node``, ``world_tick``, ``generic_checkin``)."""
    return Provenance(RULES, "", rule, RULES_VERSION)


def unrecorded(kind: str) -> Provenance:
    """A value handed over without the result that made it (a test, a hand-built note): honestly unknown."""
    return Provenance(UNKNOWN, "", kind, "")


def by_operator(action: str) -> Provenance:
    """A row a person wrote through the CLI."""
    return Provenance(OPERATOR, "", action, "")


def label(engine: str | None, model_id: str | None, prompt_kind: str | None, prompt_version: str | None) -> str:
    """How any row's provenance reads (a NULL engine: ``unknown``, stored before provenance was recorded)."""
    if not engine:
        return UNKNOWN
    parts = [engine]
    if model_id and model_id != engine:
        parts.append(model_id)
    if prompt_kind:
        parts.append(f"{prompt_kind}@{prompt_version}" if prompt_version else prompt_kind)
    return " ".join(parts)


# Rows that are Ella's interpretation (a thought: reflection, memo, plan, a chapter's thought; a chapter; an arc),
# as opposed to the user's own words (events, chats) or the world's record (facts, self-log, which a user saw).
INTERPRETATIONS = frozenset({"thought", "story_chapters", "relationship_arcs"})


def shown_in_prompts(running_engine: str, made_by: str | None, what: str) -> bool:
    """Whether a stored row may be put in a prompt of ``running_engine``.

    The rule, and why: when a model runs, an interpretation (``what`` in ``INTERPRETATIONS``: a thought node, a
    chapter, an arc) that the offline engine made is left out: it is a rule's template ("Sam keeps coming back
    to interview"), not an insight, and a model building on it would launder it into one. Everything else
    stays: the user's own words (an event node's description is their message, whatever engine scored it),
    facts (the user's claims; a rule-made one is still theirs and the fact ledger's lifecycle applies), the
    self-log (Ella said it to the user, so it must stay consistent). The offline engine itself sees all it made.
    Rows with no provenance (older than it) are shown: nothing says they were rule-made.
    ``models.provenance.in_prompts`` is this rule as SQL; keep the two in step.
    """
    return not (running_engine in MODEL_ENGINES and made_by == OFFLINE and what in INTERPRETATIONS)

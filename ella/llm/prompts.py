"""Prompt templates, one file per kind under ``ella/prompts/``, rendered into a cache-friendly request.

Layout of every request, the seed's order, stable first so that Anthropic's prompt cache serves it:
  system     persona + the kind's instructions     (stable per kind)
  system     YOU AND THIS PERSON: the current arc and the latest chapter (changes monthly and weekly; reply)
  system     WORLD FACTS: the world brief           (changes when the ledger does)
  system     YOUR RECENT THOUGHTS: the self-log     (changes when Ella says something new about herself;
                                                     breakpoint on the last system block)
  messages   conversation history                   (grows by one exchange; breakpoint on its last turn)
             retrieved memories + the user message  (the volatile input, after every breakpoint)
Retrieved memories change with every message, so they sit in the volatile input, after the history: put
before it (as a list of sections might suggest) they would void the history's cache on every turn.
A template file holds the instructions, a line ``=== input ===``, then the volatile input, both as
``string.Template`` text (``$name``). Lists are rendered as numbered lines, 1-based, because insights cite
statements by those numbers. A kind's optional sections (``OPTIONAL_SECTIONS``: the reply's ``$world_past``) may
be left out by a caller and render as "" when absent, so a turn without one has the prompt it had before.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from functools import cache
from importlib import resources
from string import Template
from typing import Any

from ella import selflog
from ella.ledger import brief
from ella.llm.kinds import KINDS
from ella.llm.types import Block, CompletionRequest, Turn

SEPARATOR = "=== input ==="


@cache
def template(name: str) -> tuple[Template, Template]:
    text = resources.files("ella").joinpath("prompts", f"{name}.md").read_text(encoding="utf-8")
    instructions, sep, volatile = text.partition(SEPARATOR)
    if not sep:
        raise ValueError(f"prompt template {name}.md has no '{SEPARATOR}' line")
    return Template(instructions.strip()), Template(volatile.strip())


@cache
def prompt_version(kind: str) -> str:
    """A short hash of everything a model is shown for ``kind`` before its variables: the persona, the kind's
    template file and its output schema (the example in the prompt is rendered from it).

    Why a hash and not a version constant per kind: a constant is only as true as the last person who
    remembered to bump it; a hash changes whenever the words do, so two rows with the same version were made
    by the same prompt. It is stored on every row a kind makes (``ella.provenance``).
    """
    text = resources.files("ella").joinpath("prompts", f"{kind}.md").read_text(encoding="utf-8")
    schema = json.dumps(KINDS[kind].model_json_schema(), sort_keys=True)
    digest = hashlib.sha256("\0".join((persona(), text, schema)).encode("utf-8"))
    return digest.hexdigest()[:12]


@cache
def persona() -> str:
    return resources.files("ella").joinpath("prompts", "persona.md").read_text(encoding="utf-8").strip()


def render_value(value: Any) -> str:
    """Lists become numbered lines (1-based); dicts become ``key: value`` lines; the rest ``str``."""
    if isinstance(value, list | tuple):
        return "\n".join(f"{i}. {render_value(item)}" for i, item in enumerate(value, start=1)) or "(none)"
    if isinstance(value, dict):
        return "; ".join(f"{k}: {v}" for k, v in value.items())
    return str(value)


# Sections of a kind's volatile input that most turns go without: a caller may leave the variable out, and an
# absent or empty one renders as "" (the template writes ``$world_past$name's message``), so the prompt of every
# turn without it is the prompt it was before the section existed. Shown, it is its text and a blank line.
OPTIONAL_SECTIONS: dict[str, tuple[str, ...]] = {"reply": ("profile", "world_past", "user_past", "guard_hint")}


def optional_section(value: Any) -> str:
    """An optional section's rendering: "" when absent or blank, else its text and the blank line after it."""
    text = render_value(value).strip() if value else ""
    return f"{text}\n\n" if text else ""


def merge_turns(history: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """Alternate roles starting with the user, as the Messages API wants: merge runs, drop a leading reply."""
    merged: list[tuple[str, str]] = []
    for role, text in history:
        if not text.strip():
            continue
        if merged and merged[-1][0] == role:
            merged[-1] = (role, merged[-1][1] + "\n\n" + text)
        else:
            merged.append((role, text))
    while merged and merged[0][0] != "user":
        merged.pop(0)
    return merged


def build_request(
    kind: str,
    variables: dict[str, Any],
    *,
    model: str,
    tier: str,
    user_id: str | None = None,
    world_brief: str = "",
    recent_thoughts: str = "",
    history: Sequence[tuple[str, str]] = (),
    relationship: str = "",
) -> CompletionRequest:
    schema = KINDS[kind]
    instructions, volatile = template(kind)
    values = {k: render_value(v) for k, v in variables.items()}
    for name in OPTIONAL_SECTIONS.get(kind, ()):
        values[name] = optional_section(variables.get(name))
    values["example"] = schema.example().model_dump_json()
    sections = [persona() + "\n\n" + instructions.substitute(values)]
    if relationship:  # its own block: the persona and instructions before it stay one prefix for every user
        sections.append(relationship)
    if world_brief:
        sections.append(f"{brief.HEADING}\n{world_brief}")
    if recent_thoughts:
        sections.append(f"{selflog.HEADING}\n{recent_thoughts}\n\n{selflog.RULE}")
    system = tuple(Block(text, cache=i in (0, len(sections) - 1)) for i, text in enumerate(sections))
    turns = merge_turns(history)
    if turns and turns[-1][0] == "user":
        turns.append(("assistant", "(listening)"))  # the volatile input below is the next user turn
    # History roles are "user" or "assistant" by the callers' contract; merge_turns keeps them as plain strings.
    messages = [Turn(role, (Block(text, cache=(i == len(turns) - 1)),)) for i, (role, text) in enumerate(turns)]  # type: ignore[arg-type]
    messages.append(Turn("user", (Block(volatile.substitute(values)),)))
    return CompletionRequest(
        kind=kind,
        tier=tier,
        model=model,
        system=system,
        messages=tuple(messages),
        max_tokens=schema.max_tokens,
        user_id=user_id,
        variables=dict(variables),
    )

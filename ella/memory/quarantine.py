"""What the guard refused never steers the model again: which turns are held out of prompts, and what stands in.

Two holds, decided once when a turn is stored and kept on its rows (``inbound_messages.quarantine``,
``memory_nodes.quarantine``):

* ``manipulation``: a turn the guard routed as manipulation (an injection, a request for the system prompt, a
  persona swap), and any stored text the manipulation rules fire on. It is kept, verbatim, for operators and
  compliance (the message row, its boundary event, a memory node marked as held), and it enters no prompt
  again: not the reply's memories or history, not reflection's focal points or evidence, not chapters, digests,
  follow-ups, fact extraction, nor a perception call (its node's poignancy and triple are rule-made).
* ``boundary``: a romantic, sexual or physical turn. It is part of the relationship (Ella answered it and keeps
  her boundary the next day too), so the memory says that it happened, in Ella's neutral words (``stand_in``),
  never the user's: their text must not steer the model. The verbatim text stays on the message row.

A crisis turn is held by neither: it is the person's distress, and Ella must remember it in their words.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum

from ella.guard import Category, classify


class Hold(StrEnum):
    MANIPULATION = "manipulation"
    BOUNDARY = "boundary"


BOUNDARY_CATEGORIES = frozenset({Category.ROMANTIC_AVOWAL, Category.PHYSICAL_ESCALATION})

# The one triple and poignancy a held turn's memory node gets: made by this rule, never by a model call.
HELD_POIGNANCY = {Hold.MANIPULATION: 1, Hold.BOUNDARY: 3}


def hold_for(categories: Iterable[str]) -> Hold | None:
    """The hold for a turn whose inbound verdicts had these categories (the gravest hold wins)."""
    found = {str(c) for c in categories}
    if Category.EMOTIONAL_CRISIS.value in found:
        return None  # a crisis turn is remembered as said, whatever else fired with it
    if Category.MANIPULATION.value in found:
        return Hold.MANIPULATION
    if found & {c.value for c in BOUNDARY_CATEGORIES}:
        return Hold.BOUNDARY
    return None


def stand_in(hold: Hold | str, name: str) -> str:
    """The line that stands for a held user turn wherever the conversation is shown to a model."""
    if Hold(hold) is Hold.MANIPULATION:
        return f"({name} sent a message asking Ella to set aside her rules; she declined. Its words are not shown.)"
    return f"({name} said something romantic or physical to Ella; she answered kindly and kept her boundary.)"


def manipulation_fires(text: str) -> bool:
    """The guard's rules (not the learned opinion: stored text is judged as written) call this manipulation."""
    return classify(text, learned=False).category == Category.MANIPULATION


def excluded(hold: str | None) -> bool:
    """A node with this hold is never shown to a model (a boundary node's text is already Ella's stand-in)."""
    return hold == Hold.MANIPULATION

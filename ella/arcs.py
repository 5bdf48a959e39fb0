"""Monthly relationship arcs: where Ella and a user are (a stage), where it is going, and what to be mindful of.

Why plain functions: the arc is read in three places (the reply's cached persona side, the digest's judgement,
the next month's arc) and each reads it the same way; the rules here (which chapters a month holds, what the
model is shown, the persona text) are tested with no database. ``tasks/arcs.py`` loads and stores.

Ella is warm and never romantic: a stage describes a friendship's familiarity, nothing more, and the persona
text says so in its own words.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from ella.chapters import story_so_far
from ella.jobs import Period
from ella.llm.kinds import ARC_STAGES

PERSONA_HEADING = "## YOU AND THIS PERSON (your own reading of your friendship; not facts, not romance)"


@dataclass(frozen=True)
class Arc:
    """An arc as every reader sees it (``models.arcs.current_arc`` returns one)."""

    user_id: str
    period: str
    stage: str
    trajectory: str
    mindful_of: str
    created_at: datetime | None = None


@dataclass(frozen=True)
class Chapter:
    """A chapter as every reader sees it (``models.chapters.latest_chapter`` returns one)."""

    user_id: str
    period: str
    title: str
    summary: str
    node_id: int | None = None
    created_at: datetime | None = None


class ChapterLike(Protocol):
    @property
    def id(self) -> int: ...
    @property
    def period(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def summary(self) -> str: ...
    @property
    def period_end(self) -> datetime: ...


def parse_stage(text: str) -> str | None:
    """A stage name, read leniently ("Warming.", " STEADY "), else None."""
    word = text.strip().strip(".!").lower()
    return word if word in ARC_STAGES else None


def month_chapters(chapters: Sequence[ChapterLike], period: Period) -> list[ChapterLike]:
    """The chapters of a month: the weeks that end inside it, oldest first (a week spanning two months belongs
    to the one it ends in, so each chapter is read by exactly one arc)."""
    held = [c for c in chapters if period.start < c.period_end <= period.end]
    return sorted(held, key=lambda c: (c.period_end, c.id))


def arc_request(
    name: str, period: Period, chapters: Sequence[ChapterLike], previous: Arc | None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The ``relationship_arc`` variables and the request's context (the chapter ids read, the period)."""
    variables = {
        "name": name,
        "period": period.label,
        "chapters": [f"{c.period}, '{c.title}': {c.summary}" for c in chapters],
        "chapter_count": len(chapters),
        "previous": (
            f"{previous.period}: stage {previous.stage}; trajectory {previous.trajectory}; "
            f"mindful of: {previous.mindful_of}"
            if previous
            else "(none: this is your first reading of this friendship)"
        ),
        "previous_stage": previous.stage if previous else "none",
    }
    context = {
        "period": period.label,
        "start": period.start.isoformat(),
        "end": period.end.isoformat(),
        "chapter_ids": [c.id for c in chapters],
        "previous_period": previous.period if previous else None,
    }
    return variables, context


def where_you_are(arc: Arc) -> str:
    """The arc's line in the persona block."""
    return f"Where you two are: {arc.stage}, {arc.trajectory}. Be mindful of: {arc.mindful_of}"


def relationship_block(arc: Arc | None, chapter: Chapter | None) -> str:
    """The reply's relationship section (cached system side, stable between turns): the current arc, then the
    latest chapter as "the story so far"; empty when there is neither (a new user)."""
    lines = []
    if arc is not None:
        lines.append(where_you_are(arc))
    if chapter is not None:
        lines.append(story_so_far(chapter.title, chapter.summary, chapter.period))
    if not lines:
        return ""
    return "\n".join([PERSONA_HEADING, *lines])

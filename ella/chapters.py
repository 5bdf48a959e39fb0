"""Weekly story chapters: the rules of who gets one, what the model is shown, and what a chapter may cite.

Why plain functions: "a chapter cites only that user's real nodes" and "a chapter thought sits one level above
its deepest evidence" are the guarantees of this job, and they are read and tested here with no database or
worker. ``tasks/chapters.py`` loads (``models/chapters.py``), calls these, and stores.

The input of a chapter is the seed's third use of the self-log (the only long-range one: everything Ella has
said about herself to this user, so the story stays consistent with her own past words) plus the week's memos
and thoughts (and, when the week has few of those, its most poignant events), each shown with its node id.
The self-log is capped at ``SELF_LOG_CAP`` entries, the newest kept: a user of several years would otherwise
outgrow the request, and the newest entries are the ones the coming week's replies will be measured against.
The chapter's key moments cite node ids; ids not offered in the request's context are dropped by the kind's
validator, and the handler checks the rest against the database (the node exists and is this user's) before
anything is stored.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from ella.jobs import Period

SELF_LOG_CAP = 60  # entries of the self-log shown, newest kept (see the module docstring)
NODES_OFFERED = 30  # memos, thoughts and events a chapter may cite
MIN_THOUGHTS = 8  # under this many thoughts in the week, its most poignant events are offered too
CHAPTER_KEY = "chapter"  # the chapter thought's dedupe key prefix (never offered to a later chapter)
STORY_HEADING = "The story so far"


class NodeLike(Protocol):
    """What a chapter needs of a memory node (``models.memory.MemoryNode`` or a test's stand-in)."""

    @property
    def id(self) -> int: ...
    @property
    def user_id(self) -> str: ...
    @property
    def node_type(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def poignancy(self) -> int: ...
    @property
    def depth(self) -> int: ...
    @property
    def created_at(self) -> datetime: ...
    @property
    def dedupe_key(self) -> str | None: ...


class EntryLike(Protocol):
    @property
    def content(self) -> str: ...
    @property
    def said_at(self) -> datetime: ...


def in_period(moment: datetime, period: Period) -> bool:
    return period.start <= moment < period.end


def is_chapter_node(node: NodeLike) -> bool:
    """A chapter's own thought: it neither makes a week active nor is offered to the next chapter (a chapter
    citing the last one would stack depth week after week and retell the same story)."""
    return (node.dedupe_key or "").startswith(f"{CHAPTER_KEY}:")


def week_nodes(nodes: Iterable[NodeLike], user_id: str, period: Period) -> list[NodeLike]:
    """The user's nodes made in the period, chapter thoughts excluded."""
    return [n for n in nodes if n.user_id == user_id and in_period(n.created_at, period) and not is_chapter_node(n)]


def is_active(turns: int, nodes: Sequence[NodeLike]) -> bool:
    """Active that week: some turn or some memory node in the period (a chapter thought does not count)."""
    return turns > 0 or bool(nodes)


def citable(nodes: Sequence[NodeLike], cap: int = NODES_OFFERED) -> list[NodeLike]:
    """What a chapter may cite, oldest first: the week's thoughts (memos, plans, insights), most poignant first
    when over the cap; when there are fewer than ``MIN_THOUGHTS`` of them, the most poignant events and chats
    fill up to the cap (a week of talk with no conversation closed yet still has a story)."""
    by_weight = sorted(nodes, key=lambda n: (-n.poignancy, -n.created_at.timestamp(), -n.id))
    thoughts = [n for n in by_weight if n.node_type == "thought"][:cap]
    chosen = list(thoughts)
    if len(thoughts) < MIN_THOUGHTS:
        chosen += [n for n in by_weight if n.node_type != "thought"][: cap - len(thoughts)]
    return sorted(chosen, key=lambda n: (n.created_at, n.id))


def self_log_lines(entries: Sequence[EntryLike], cap: int = SELF_LOG_CAP) -> list[str]:
    """The self-log as dated lines, oldest first, the newest ``cap`` kept."""
    newest = sorted(entries, key=lambda e: e.said_at)[-cap:] if cap > 0 else []
    return [f"[{e.said_at:%Y-%m-%d}] {e.content}" for e in newest]


def chapter_request(
    name: str, period: Period, nodes: Sequence[NodeLike], entries: Sequence[EntryLike]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The ``chapter_distillation`` variables and the request's context (the node ids offered, the period)."""
    offered = citable(nodes)
    variables = {
        "name": name,
        "period": period.label,
        "self_log": self_log_lines(entries) or ["(nothing yet)"],
        "memos": [
            {
                "id": n.id,
                "day": f"{n.created_at:%Y-%m-%d}",
                "type": n.node_type,
                "poignancy": n.poignancy,
                "text": n.description,
            }
            for n in offered
        ],
    }
    context = {
        "period": period.label,
        "start": period.start.isoformat(),
        "end": period.end.isoformat(),
        "node_ids": [n.id for n in offered],
    }
    return variables, context


def checked_moments(moments: Iterable[dict[str, Any]], allowed: Iterable[int]) -> list[dict[str, Any]]:
    """Key moments with only ``allowed`` ids kept (order kept, repeats dropped); a moment left with none is
    dropped."""
    ok = set(allowed)
    kept = []
    for moment in moments:
        ids = list(dict.fromkeys(i for i in moment.get("node_ids", []) if i in ok))
        if ids:
            kept.append({"text": moment["text"], "node_ids": ids})
    return kept


def cited_ids(moments: Iterable[dict[str, Any]]) -> list[int]:
    """Every node id the moments cite, once, sorted."""
    return sorted({i for m in moments for i in m["node_ids"]})


def chapter_depth(cited_depths: Iterable[int]) -> int:
    """One level deeper than the deepest node cited (a chapter of events only is depth 1)."""
    return max(cited_depths, default=0) + 1


@dataclass(frozen=True)
class ChapterPerception:
    """The chapter thought's poignancy and triple (``ella.memory.nodes.Perceptible``), made by rule: the chapter
    call returns none, and a chapter is as poignant as the most poignant moment it cites."""

    score: int
    subject: str
    predicate: str
    object: str


def chapter_perception(user_id: str, title: str, cited_poignancy: Iterable[int]) -> ChapterPerception:
    score = min(10, max(1, max(cited_poignancy, default=1)))
    return ChapterPerception(score, user_id, "lived the chapter", title)


def chapter_description(title: str, summary: str) -> str:
    """The chapter thought's text, as retrieval will match and show it."""
    return f"Chapter '{title}': {summary}"


def story_so_far(title: str, summary: str, label: str) -> str:
    """The latest chapter as the reply's cached system part shows it."""
    return f"{STORY_HEADING} (your last chapter together, {label}, '{title}'): {summary}"

"""Reflection: focal points → retrieval → insights with evidence → thoughts (Generative Agents, done right).

Where the steps are, in order:
1. ``focal_points``: 3 questions from the 100 most recent non-idle events and thoughts (the paper's input; the
   reference took ``importance_ele_n``);
2. ``reflect``: for each focal point, the 30 best memories by retrieval's score; each retrieved node is then
   treated as just accessed, so the next focal point sees it as recent (as if it had been read back);
3. up to 5 insights per focal point, citing statements numbered from 1 (a bad citation is dropped by the
   schema, not the insight);
4. each insight becomes a thought one level above the deepest node it cites, expiring in 30 days.

This module decides and asks; it stores nothing. ``tasks.memory.reflect`` commits the thoughts with the
counter reset, and only if no other run reset it meanwhile.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from ella.embeddings import Embedder
from ella.llm.kinds import FocalPoints, Insights
from ella.llm.port import ModelPort
from ella.memory.nodes import MemoryNodeDraft, thought
from ella.memory.retrieval import Retrievable, RetrievalWeights, rank_memories

log = logging.getLogger(__name__)

FOCAL_POINTS = 3
FOCAL_INPUT = 100  # the paper's 100 most recent events and thoughts
RETRIEVE_PER_FOCAL = 30
INSIGHTS_PER_FOCAL = 5


@dataclass
class Reflection:
    """The thoughts a reflection produced and the nodes it read (their last access is set on commit)."""

    thoughts: list[MemoryNodeDraft] = field(default_factory=list)
    accessed: set[int] = field(default_factory=set)


def focal_points(port: ModelPort, user_id: str, recent_newest_first: Sequence[str]) -> list[str] | None:
    """The questions to reflect on, from the most recent statements (shown oldest first); None on a fail-safe."""
    result = port.call(
        FocalPoints,
        {"name": user_id, "statements": list(recent_newest_first)[::-1], "n": FOCAL_POINTS},
        user_id=user_id,
    )
    if result.failsafe:
        log.warning("focal points failed (%s): no reflection this time", result.error[:200])
        return None
    return result.value.questions[:FOCAL_POINTS]


def reflect(
    port: ModelPort,
    embedder: Embedder,
    *,
    user_id: str,
    recent_newest_first: Sequence[str],
    nodes: Sequence[Retrievable],
    now: datetime,
    weights: RetrievalWeights,
    run_id: str,
) -> Reflection | None:
    """One reflection over ``nodes`` (the user's events and thoughts, loaded once); None when there is nothing
    to reflect on or the focal points failed. ``nodes`` have their ``last_accessed_at`` set as they are read."""
    if not recent_newest_first:
        return None
    questions = focal_points(port, user_id, recent_newest_first)
    if questions is None:
        return None
    vectors = embedder.embed(questions)  # one batch
    reflection = Reflection()
    for f_index, (question, vector) in enumerate(zip(questions, vectors, strict=True)):
        found = rank_memories(nodes, vector, question, RETRIEVE_PER_FOCAL, now, weights, embedder.model_id)
        for node in found:  # as if read back after a touch: the next focal point sees these as just accessed
            node.last_accessed_at = now
        reflection.accessed.update(node.id for node in found)
        if not found:
            continue
        result = port.call(
            Insights,
            {"name": user_id, "focal_point": question, "statements": [n.description for n in found]},
            user_id=user_id,
            context={"statement_count": len(found)},
        )
        if result.failsafe:
            log.warning("insights failed for %r (%s): skipped", question, result.error[:200])
            continue
        for i_index, insight in enumerate(result.value.insights[:INSIGHTS_PER_FOCAL]):
            cited = [found[number - 1] for number in insight.evidence]  # 1-based, checked by the schema
            reflection.thoughts.append(
                thought(
                    embedder,
                    user_id=user_id,
                    description=insight.text,
                    perceived=insight.perception,  # asked for with the insight: no extra call
                    evidence=[node.id for node in cited],
                    depth=1 + max(node.depth for node in cited),
                    at=now,
                    dedupe_key=f"reflect:{run_id}:{f_index}:{i_index}",
                    provenance=result.provenance,
                )
            )
    return reflection

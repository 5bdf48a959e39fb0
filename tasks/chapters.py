"""Weekly story chapters on beat: the planner of ``Job.CHAPTERS`` and the handler of its batch results.

No Celery task here: the generic job runner (``tasks/jobs.py``) calls ``plan_chapters`` for each chunk of due
users and queues what it returns; the Batches service calls ``apply_chapter`` once per valid result, in the
item's transaction. Both are registered on import (``workers/app.py`` lists this module).

A chapter cites real nodes of its user only: the kind's validator has dropped ids the request did not offer,
and ``apply_chapter`` keeps, of the rest, only ids that exist and are that user's. A moment left with no
citation is dropped; a chapter left with none is not stored (logged as ``chapter_uncited``).
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from adapters.embedding_cache import shared_embedder
from adapters.model_batches import register_batch_handler
from ella import chapters as rules
from ella.jobs import ChunkPlan, Job, Member, register_job_planner, request_id
from ella.llm.batches import NewBatchItem
from ella.llm.kinds import ChapterDistillation
from ella.llm.port import ModelResult
from ella.memory.nodes import thought
from models.base import utcnow
from models.batch import ModelBatchItem, context_of
from models.chapters import add_chapter, has_chapter, newest_self_logs, nodes_of_user, week_activity
from models.memory import insert_node

log = logging.getLogger(__name__)

PURPOSE = Job.CHAPTERS.value
KIND = ChapterDistillation.kind


def plan_chapters(session: Any, members: list[Member], now: datetime) -> ChunkPlan:
    """A request for each member active in their week; idle members cost nothing. An active member with
    nothing a chapter could cite (turns whose memories are not made yet) is skipped as ``nothing_to_cite``."""
    plan = ChunkPlan()
    activity = week_activity(session, members)
    active: list[tuple[Member, list[Any]]] = []
    for member in members:
        nodes = rules.week_nodes(activity.nodes.get(member.user_id, []), member.user_id, member.period)
        turns = sum(1 for at in activity.turns.get(member.user_id, []) if rules.in_period(at, member.period))
        if rules.is_active(turns, nodes):
            active.append((member, nodes))
        else:
            plan.idle += 1
    logs = newest_self_logs(session, [m.user_id for m, _ in active], rules.SELF_LOG_CAP)
    for member, nodes in active:
        variables, context = rules.chapter_request(member.user_id, member.period, nodes, logs.get(member.user_id, []))
        if not context["node_ids"]:
            plan.skipped["nothing_to_cite"] += 1
            continue
        custom_id = request_id(Job.CHAPTERS, member.user_id, member.period)
        plan.requests.append(NewBatchItem(custom_id, KIND, variables, member.user_id, context))
    return plan


def apply_chapter(session: Any, item: ModelBatchItem, result: ModelResult[Any]) -> None:
    """Store the chapter and its thought node, once per user and week; nothing when no citation survives."""
    value: ChapterDistillation = result.value
    context = context_of(item)
    user_id, period = item.user_id, str(context["period"])
    if user_id is None or has_chapter(session, user_id, period):
        return
    offered = rules.checked_moments([m.model_dump() for m in value.key_moments], context.get("node_ids", []))
    real = nodes_of_user(session, user_id, rules.cited_ids(offered))
    moments = rules.checked_moments(offered, real)
    if not moments:
        log.warning("chapter_uncited: %s cites none of the user's nodes; nothing stored", item.custom_id)
        return
    cited = rules.cited_ids(moments)
    now = utcnow()
    draft = thought(
        shared_embedder(),
        user_id=user_id,
        description=rules.chapter_description(value.title, value.summary),
        perceived=rules.chapter_perception(user_id, value.title, (real[i][1] for i in cited)),
        evidence=cited,
        depth=rules.chapter_depth(real[i][0] for i in cited),
        at=now,
        dedupe_key=f"{rules.CHAPTER_KEY}:{user_id}:{period}",
        provenance=result.provenance,
    )
    node_id = insert_node(session, draft.columns())
    add_chapter(
        session,
        {
            "user_id": user_id,
            "period": period,
            "period_start": datetime.fromisoformat(context["start"]),
            "period_end": datetime.fromisoformat(context["end"]),
            "title": value.title,
            "summary": value.summary,
            "key_moments": moments,
            "cited_node_ids": cited,
            "thought_node_id": node_id,
            "created_at": now,
            **result.provenance.columns(),
        },
    )


register_job_planner(Job.CHAPTERS, plan_chapters)
register_batch_handler(PURPOSE, apply_chapter)

"""Monthly relationship arcs on beat: the planner of ``Job.ARCS`` and the handler of its batch results.

No Celery task here: the generic job runner (``tasks/jobs.py``) calls ``plan_arcs`` for each chunk of due
users; the Batches service calls ``apply_arc`` once per valid result, in the item's transaction. Both are
registered on import (``workers/app.py`` lists this module). An arc reads the month's chapters and the arc
before it; a month with no chapter makes no request (idle), and the last arc stays current.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from typing import Any

from adapters.model_batches import register_batch_handler
from ella import arcs as rules
from ella.jobs import ChunkPlan, Job, Member, register_job_planner, request_id
from ella.llm.batches import NewBatchItem
from ella.llm.kinds import RelationshipArc
from ella.llm.port import ModelResult
from models.arcs import add_arc, arcs_before
from models.batch import ModelBatchItem, context_of
from models.chapters import StoryChapter, chapters_between
from models.user import User

PURPOSE = Job.ARCS.value
KIND = RelationshipArc.kind


def plan_arcs(session: Any, members: list[Member], now: datetime) -> ChunkPlan:
    """A request for each member with a chapter in their month (one query for the chunk's chapters, one for
    their previous arcs); the others are idle."""
    plan = ChunkPlan()
    if not members:
        return plan
    ids = [m.user_id for m in members]
    start, end = min(m.period.start for m in members), max(m.period.end for m in members)
    by_user: dict[str, list[StoryChapter]] = defaultdict(list)
    for chapter in chapters_between(session, ids, start, end):
        by_user[chapter.user_id].append(chapter)
    previous = arcs_before(session, {m.user_id: m.period.label for m in members})
    for member in members:
        held = rules.month_chapters(by_user.get(member.user_id, []), member.period)
        if not held:
            plan.idle += 1
            continue
        variables, context = rules.arc_request(member.user_id, member.period, held, previous.get(member.user_id))
        custom_id = request_id(Job.ARCS, member.user_id, member.period)
        plan.requests.append(NewBatchItem(custom_id, KIND, variables, member.user_id, context))
    return plan


def apply_arc(session: Any, item: ModelBatchItem, result: ModelResult[Any]) -> None:
    """Store the month's arc once (history kept: one row per month); nothing for a user erased meanwhile."""
    value: RelationshipArc = result.value
    context = context_of(item)
    if item.user_id is None or session.get(User, item.user_id) is None:
        return
    add_arc(
        session,
        {
            "user_id": item.user_id,
            "period": str(context["period"]),
            "stage": value.stage,
            "trajectory": value.trajectory,
            "mindful_of": value.mindful_of,
            "chapter_ids": list(context.get("chapter_ids", [])),
            "previous_period": context.get("previous_period"),
            **result.provenance.columns(),
        },
    )


register_job_planner(Job.ARCS, plan_arcs)
register_batch_handler(PURPOSE, apply_arc)

"""The daily digest on beat: its planner (who gets a request) and its Batches handler (what an answer becomes).

The job's fan-out (runs, chunks, marks, queueing under the stable request ids) is ``tasks.jobs``'; this module
plugs into it on import, and into the Message Batches service:

* ``plan_digest(session, members, now)``: for one chunk of users whose local day starts (07:00 on their clock),
  loads with one query per kind of input (``models.digest``), leaves out users with notifications off and users
  with nothing new since their last digest (``ella.digest.is_active``: no request, no cost), and returns one
  ``digest`` request per remaining user, its context naming every id it offers.
* ``apply_digest(session, item, result)``: in the item's transaction, reads the answer against that context
  (``ella.digest.read_answer``: cited ids that were not offered are dropped, an answer left citing nothing real
  is discarded), runs the outbound guard on its text, and stores at most one candidate for the user's day
  (``add_candidate``, insert-or-nothing on its dedupe key). The dispatcher sends it under the cadence rules.

Both ends read the user's events from the ledger (``models.event_over``) so that nothing looks forward to an
event the user said is over: the planner offers no plan that does (``ella.digest.fresh_plans``), and the handler
keeps an answer that does, or that cites a plan that does by now, as a ``skipped`` candidate with the reason.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import datetime

from sqlalchemy.orm import Session

from adapters import metrics
from adapters.model_batches import register_batch_handler
from ella import digest
from ella.event_over import NOTHING_KNOWN
from ella.guard import classify
from ella.jobs import ChunkPlan, Job, Member, register_job_planner, request_id, zone_of
from ella.llm.batches import NewBatchItem
from ella.llm.kinds import DigestAnswer
from ella.llm.port import ModelResult
from ella.notifications.policy import Status
from models import digest as queries
from models import runs
from models.base import utcnow
from models.batch import ModelBatchItem, context_of
from models.boundary import log_verdict
from models.event_over import events_known, events_of, thought_texts
from models.notifications import add_candidate

log = logging.getLogger(__name__)

PURPOSE = Job.DIGEST.value
DIRECTION = "notification"

# Skipped users, by why (the chunk's ``skipped`` counts, shown to operators with the run).
NOTIFICATIONS_OFF = "notifications_off"
DAY_OVER = "day_over"  # the run caught up on a slot whose local day has already ended: no digest about it
UNKNOWN_USER = "unknown_user"  # erased between paging and planning


def plan_digest(session: Session, members: list[Member], now: datetime) -> ChunkPlan:
    """The digest requests of one chunk of due users (writes nothing: the runner queues them)."""
    plan = ChunkPlan()
    known = queries.profiles(session, [m.user_id for m in members])
    candidates: list[Member] = []
    for member in members:
        profile = known.get(member.user_id)
        if profile is None:
            plan.skipped[UNKNOWN_USER] += 1
        elif not profile[1]:
            plan.skipped[NOTIFICATIONS_OFF] += 1
        elif now >= member.period.end:
            plan.skipped[DAY_OVER] += 1
        else:
            candidates.append(member)
    if not candidates:
        return plan
    ids = [m.user_id for m in candidates]
    marks = runs.marks(session, PURPOSE, ids)
    since = {uid: digest.since_of(marks.get(uid), known[uid][0]) for uid in ids}
    turns = queries.last_turns(session, ids, min(since.values()))
    facts = queries.open_facts(session, ids, now)
    made = queries.planning_thoughts(session, ids, now)
    events = events_known(session, made, now)  # only for users with plans: one query, often none
    plans = {uid: fresh for uid, p in made.items() if (fresh := digest.fresh_plans(p, events.get(uid, NOTHING_KNOWN)))}
    active = [
        m
        for m in candidates
        if digest.is_active(
            digest.Activity(since[m.user_id], turns.get(m.user_id), facts.get(m.user_id, ()), plans.get(m.user_id, ()))
        )
    ]
    plan.idle = len(candidates) - len(active)
    if not active:
        return plan
    active_ids = [m.user_id for m in active]
    said = queries.self_log_about_users(session, active_ids, now - digest.SELF_LOG_DAYS)
    chapters, arcs = queries.narrative(session, active_ids)
    for member in active:
        uid = member.user_id
        inp = digest.DigestInput(
            user_id=uid,
            zone=member.zone,
            day=member.period.label,
            fresh_until=member.period.end,
            plans=plans.get(uid, ()),
            facts=facts.get(uid, ()),
            said=said.get(uid, ()),
            chapter=chapters.get(uid),
            arc=arcs.get(uid),
        )
        plan.requests.append(
            NewBatchItem(
                custom_id=request_id(Job.DIGEST, uid, member.period),
                kind=DigestAnswer.kind,
                variables=digest.variables(inp, now, zone_of(member.zone)),
                user_id=uid,
                context=digest.context(inp),
            )
        )
    return plan


def apply_digest(session: Session, item: ModelBatchItem, result: ModelResult[DigestAnswer]) -> None:
    """Store the answer's candidate (or nothing) in the item's transaction, at most once per user and day."""
    if item.user_id is None:
        raise ValueError(f"{item.custom_id}: a digest request names its user")
    answer = result.value
    ctx = context_of(item)
    now = utcnow()
    reading = digest.read_answer(answer.say, answer.text, answer.cites.model_dump(), ctx, now)
    if reading.discarded is not None:  # an ungrounded answer normally ends earlier, as a counted fail-safe
        log.log(
            logging.INFO if reading.discarded == digest.SAID_NOTHING else logging.WARNING,
            "digest %s: nothing stored (%s)", item.custom_id, reading.discarded,
        )  # fmt: skip
        return
    verdict = classify(reading.text, outbound=True)
    thoughts = thought_texts(session, reading.cites["thoughts"]).values()
    stale = digest.stale_reason(reading.text, thoughts, events_of(session, item.user_id, now))
    made_as = digest.candidate(item.user_id, reading, ctx, verdict, now, stale)
    candidate = replace(made_as, made_by=result.provenance)
    made = add_candidate(session, candidate, now)
    if made is not None and candidate.status == Status.SKIPPED:
        if candidate.reason == stale:  # the guard let it pass; it looks forward to an event that is over
            log.info("digest %s: kept skipped (%s)", item.custom_id, stale)
            return
        log_verdict(session, verdict, direction=DIRECTION, user_id=item.user_id, message_id=None, text=None)
        metrics.boundary_fire(DIRECTION, verdict)


register_job_planner(Job.DIGEST, plan_digest)
register_batch_handler(PURPOSE, apply_digest)

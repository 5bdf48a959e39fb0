"""Ledger tasks: ``ella.extract_facts`` for each user turn, ``ella.resolve_contested_facts`` weekly.

Extraction writes as ``Writer.USER``: whatever the model answers, the ledger accepts only user claims and
inferences from it. Only the user's own turns are read, never Ella's replies: what Ella says about herself
goes to the self-log and never becomes a fact.

The tasks load, call, store and emit; the decisions are plain Python elsewhere: which turn is worth a call and
where each extracted fact goes (``ella.ledger.extraction``), which contests to ask about and what a verdict
means (``ella.ledger.contests``), what the world clock owes (``ella.ledger.world_clock``, stored by
``models.world_clock.advance_world``).
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from ella.guard import Category, classify
from ella.ledger import contests, extraction
from ella.ledger.extraction import Action, worth_extracting
from ella.ledger.facts import NewFact
from ella.ledger.rules import FactConflict, Writer
from ella.llm.kinds import ContestedVerdict, FactExtraction
from models.ledger import WorldFact, append, current, has_facts_from, user_zone, users_with_contests
from models.review import open_fact_ids, queue_review
from models.supersession import resolve_contest, supersede
from models.world_clock import advance_world
from workers.app import app
from workers.db import autocommit_scope, session_scope
from workers.llm import get_port
from workers.logs import user_scope
from workers.reliability import ReliableTask
from workers.routing import TaskName, queue_for
from workers.settings import get_settings

log = logging.getLogger(__name__)


def record_extracted(session: Any, user_id: str, new: NewFact, now: datetime, live: list[WorldFact]) -> str:
    """Store one extracted fact where ``extraction.place`` puts it; returns what happened.

    ``live`` is the user's live facts, read once per extraction and kept up to date here (not a query per fact).
    """
    placement = extraction.place(new, live)
    if placement.action == Action.KNOWN:
        return "known"
    if placement.action == Action.SUPERSEDE and placement.replaces is not None:
        fact = supersede(session, user_id, placement.replaces, new, Writer.USER, now, extraction.SUPERSEDE_REASON)
        live[:] = [f for f in live if f.id != placement.replaces]
        live.append(fact)
        return "superseded"
    appended = append(session, user_id, new, Writer.USER, now)
    if appended is None:
        return "known"
    live.append(appended)
    return "appended"


@app.task(name=TaskName.EXTRACT_FACTS, base=ReliableTask, bind=True)
def extract_facts(self: ReliableTask, user_id: str, message_id: str, text: str, sent_at: str) -> dict[str, int]:
    """Facts about the user from one of their turns (memory-extraction tier); idempotent per message.

    Only facts about the user are stored (``extraction.admissible``): the model's answer is not trusted to
    keep to ``user.*``.

    A message the guard reads as manipulation (prompt injection) is not given to the extraction model at all:
    the trust rules would refuse what it tries to make canon, but there is no reason to let it try.
    """
    if classify(text, learned=False).category == Category.MANIPULATION:
        return {"skipped_manipulation": 1}
    if not worth_extracting(text):
        return {"skipped_no_self_reference": 1}  # small talk: no model call
    with user_scope(user_id):
        with autocommit_scope() as session:
            if has_facts_from(session, user_id, message_id):
                return {"redelivery": 1}
            zone = user_zone(session, user_id)
        at = datetime.fromisoformat(sent_at)
        today = at.astimezone(zone)
        result = get_port().call(
            FactExtraction,
            {"name": user_id, "message": text, "today": f"{today:%Y-%m-%d} ({today:%A})"},
            user_id=user_id,
        )
        if result.failsafe:
            log.warning("fact extraction failed (%s): nothing stored", result.error[:200])
            return {"failsafe": 1}
        facts = extraction.facts_from(result.value.facts, message_id, zone, get_settings().followup_window_days)
        counts: dict[str, int] = {}
        refused = len(result.value.facts) - len(facts)
        if refused:  # about Ella or her world, or Ella as a partner: what the user said, never a fact
            log.warning("fact extraction: %d facts not about the user refused", refused)
            counts["refused_not_about_user"] = refused
        now = datetime.now(zone)
        with session_scope() as session:
            live = advance_world(session, user_id, now)  # a new user's world gets its anchors on their first turn
            for new in facts:
                outcome = record_extracted(session, user_id, new, now, live)
                counts[outcome] = counts.get(outcome, 0) + 1
        log.info("facts from message %s: %s", message_id, counts)
        return counts


def resolve_user_contests(user_id: str) -> dict[str, int]:
    """Ask the contested-resolution tier about each contest of one user; undecided ones go to review."""
    with autocommit_scope() as session:
        pending, skipped = contests.open_contests(current(session, user_id), open_fact_ids(session, user_id))
    counts = {"resolved": 0, "queued": 0, "skipped": skipped}
    for contest in pending:
        result = get_port().call(ContestedVerdict, contest.variables(), user_id=user_id, context=contest.context())
        decision = contests.decide(contest, result)
        if isinstance(decision, contests.Review):
            with session_scope() as session:
                queue_review(
                    session,
                    user_id,
                    contest.subject,
                    contest.predicate,
                    contest.tier,
                    decision.fact_ids,
                    decision.reason,
                )
            counts["queued"] += 1
            continue
        try:
            with session_scope() as session:
                resolve_contest(
                    session, user_id, decision.winner_id, decision.loser_ids, Writer.RESOLVER, decision.reason
                )
        except FactConflict as exc:
            log.info("contest on %s/%s changed before it was resolved: %s", contest.subject, contest.predicate, exc)
            counts["skipped"] += 1
            continue
        counts["resolved"] += 1
    return counts


@app.task(name=TaskName.RESOLVE_CONTESTED_FACTS, base=ReliableTask, bind=True)
def resolve_contested_facts(self: ReliableTask, after: str = "") -> dict[str, Any]:
    """One page of users with contested facts (by user id, after ``after``), then the next page as a new
    task: a retry resumes at its page, and no giant chord holds every user at once."""
    settings = get_settings()
    with autocommit_scope() as session:
        page = users_with_contests(session, after, settings.contested_page_users)
    totals = {"users": len(page), "resolved": 0, "queued": 0, "skipped": 0}
    for user_id in page:
        with user_scope(user_id):
            for key, value in resolve_user_contests(user_id).items():
                totals[key] += value
    if len(page) == settings.contested_page_users:
        resolve_contested_facts.apply_async(
            kwargs={"after": page[-1]}, queue=queue_for(TaskName.RESOLVE_CONTESTED_FACTS, settings)
        )
    log.info("contested facts, page after %r: %s", after, totals)
    return totals

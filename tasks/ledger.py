"""Ledger tasks: ``ella.extract_facts`` for each user turn, ``ella.resolve_contested_facts`` weekly.

Extraction writes as ``Writer.USER``: whatever the model answers, the ledger accepts only user claims and
inferences from it. Only the user's own turns are read, never Ella's replies: what Ella says about herself
goes to the self-log and never becomes a fact.
"""

from __future__ import annotations

import logging
from datetime import date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import func, select

from ella.guard import Category, classify
from ella.ledger.brief import contested_groups
from ella.ledger.extraction import worth_extracting
from ella.ledger.rules import FactConflict, Status, Tier, Writer
from ella.llm.kinds import ExtractedFact
from models.ledger import NewFact, WorldFact, append, current, resolve_contest, supersede, user_zone, world_facts
from models.review import open_fact_ids, queue_review
from workers.app import app
from workers.db import autocommit_scope, session_scope
from workers.llm import get_port
from workers.logs import user_scope
from workers.reliability import ReliableTask
from workers.settings import get_settings

log = logging.getLogger(__name__)


def followup_window(event_day: date, zone: ZoneInfo, days: float) -> tuple[datetime, datetime]:
    """Ask about a dated event only after it happened: from the end of its local day, for ``days``."""
    after = datetime.combine(event_day + timedelta(days=1), time(0, 0), tzinfo=zone)
    return after, after + timedelta(days=days)


def fact_from(extracted: ExtractedFact, message_id: str, zone: ZoneInfo, index: int) -> NewFact:
    window = (None, None)
    if extracted.event_date is not None:
        window = followup_window(extracted.event_date, zone, get_settings().followup_window_days)
    return NewFact(
        subject=extracted.subject,
        predicate=extracted.predicate,
        object=extracted.object,
        tier=extracted.tier,
        confidence=extracted.confidence,
        note=f"extracted from message {message_id}",
        source_message_id=message_id,
        followup_after=window[0],
        followup_until=window[1],
        dedupe_key=f"extract:{message_id}:{index}"[:200],
    )


def record_extracted(session: Any, user_id: str, new: NewFact, now: datetime, live: list[WorldFact]) -> str:
    """Store one extracted fact by the rules: the same fact twice is stored once; a newer claim of the user
    supersedes their own older claim on the same subject and predicate. Returns what happened.

    ``live`` is the user's live facts, read once per extraction and kept up to date here (not a query per fact).
    """
    same = [f for f in live if f.subject == new.subject]
    if any(f.predicate == new.predicate and f.object.casefold() == new.object.casefold() for f in same):
        return "known"
    if new.tier == Tier.USER_CLAIM:
        own = [
            f
            for f in same
            if f.predicate == new.predicate and f.tier == Tier.USER_CLAIM and f.written_by == Writer.USER
        ]
        if own:
            newest = max(own, key=lambda f: (f.recorded_at, f.id))
            fact = supersede(session, user_id, newest.id, new, Writer.USER, now, reason="the user said otherwise later")
            live.remove(newest)
            live.append(fact)
            return "superseded"
    fact = append(session, user_id, new, Writer.USER, now)
    if fact is None:
        return "known"
    live.append(fact)
    return "appended"


@app.task(name="ella.extract_facts", base=ReliableTask, bind=True)
def extract_facts(self: ReliableTask, user_id: str, message_id: str, text: str, sent_at: str) -> dict[str, int]:
    """Facts about the user from one of their turns (memory-extraction tier); idempotent per message.

    A message the guard reads as manipulation (prompt injection) is not given to the extraction model at all:
    the trust rules would refuse what it tries to make canon, but there is no reason to let it try.
    """
    if classify(text, learned=False).category == Category.MANIPULATION:
        return {"skipped_manipulation": 1}
    if not worth_extracting(text):
        return {"skipped_no_self_reference": 1}  # small talk: no model call
    with user_scope(user_id):
        with autocommit_scope() as session:
            if session.scalar(
                select(func.count()).where(WorldFact.user_id == user_id, WorldFact.source_message_id == message_id)
            ):
                return {"redelivery": 1}
            zone = user_zone(session, user_id)
        at = datetime.fromisoformat(sent_at)
        today = at.astimezone(zone)
        result = get_port().call(
            "fact_extraction",
            {"name": user_id, "message": text, "today": f"{today:%Y-%m-%d} ({today:%A})"},
            user_id=user_id,
        )
        if result.failsafe:
            log.warning("fact extraction failed (%s): nothing stored", result.error[:200])
            return {"failsafe": 1}
        counts: dict[str, int] = {}
        now = datetime.now(zone)
        with session_scope() as session:
            live = world_facts(session, user_id, now)  # a new user's world gets its anchors on their first turn
            for i, extracted in enumerate(result.value.facts):
                outcome = record_extracted(session, user_id, fact_from(extracted, message_id, zone, i), now, live)
                counts[outcome] = counts.get(outcome, 0) + 1
        log.info("facts from message %s: %s", message_id, counts)
        return counts


def contested_users(after: str, limit: int) -> list[str]:
    with autocommit_scope() as session:
        return list(
            session.scalars(
                select(WorldFact.user_id)
                .where(WorldFact.status == Status.CONTESTED.value, WorldFact.user_id > after)
                .group_by(WorldFact.user_id)
                .order_by(WorldFact.user_id)
                .limit(limit)
            )
        )


def resolve_user_contests(user_id: str) -> dict[str, int]:
    """Ask the contested-resolution tier about each contest of one user; undecided ones go to review."""
    counts = {"resolved": 0, "queued": 0, "skipped": 0}
    with autocommit_scope() as session:
        groups = contested_groups(current(session, user_id))  # the contested facts, by what they dispute
        in_review = open_fact_ids(session, user_id)
    for (subject, predicate, tier), facts in groups.items():
        if any(f.id in in_review for f in facts):
            counts["skipped"] += 1
            continue
        candidates = [
            {
                "tier": f.tier,
                "object": f.object,
                "confidence": f.confidence,
                "created_at": f.recorded_at.isoformat(),
                "note": f.note,
            }  # fmt: skip
            for f in facts
        ]
        result = get_port().call(
            "contested_verdict",
            {"subject": subject, "predicate": predicate, "candidates": candidates},
            user_id=user_id,
            context={"candidate_count": len(facts)},
        )
        verdict = result.value
        if result.failsafe or verdict.winner == 0:
            # A fail-safe's "undecided" is not the model's judgement: the reason says which it was.
            reason = f"model failed: {result.error[:200]}" if result.failsafe else f"undecided: {verdict.reason}"
            with session_scope() as session:
                queue_review(session, user_id, subject, predicate, tier, [f.id for f in facts], reason)
            counts["queued"] += 1
            continue
        winner = facts[verdict.winner - 1]
        try:
            with session_scope() as session:
                losers = [f.id for f in facts if f.id != winner.id]
                resolve_contest(session, user_id, winner.id, losers, Writer.RESOLVER, verdict.reason)
        except FactConflict as exc:
            log.info("contest on %s/%s changed before it was resolved: %s", subject, predicate, exc)
            counts["skipped"] += 1
            continue
        counts["resolved"] += 1
    return counts


@app.task(name="ella.resolve_contested_facts", base=ReliableTask, bind=True)
def resolve_contested_facts(self: ReliableTask, after: str = "") -> dict[str, Any]:
    """One page of users with contested facts (by user id, after ``after``), then the next page as a new
    task: a retry resumes at its page, and no giant chord holds every user at once."""
    page = contested_users(after, get_settings().contested_page_users)
    totals = {"users": len(page), "resolved": 0, "queued": 0, "skipped": 0}
    for user_id in page:
        with user_scope(user_id):
            for key, value in resolve_user_contests(user_id).items():
                totals[key] += value
    if len(page) == get_settings().contested_page_users:
        resolve_contested_facts.apply_async(kwargs={"after": page[-1]}, queue=get_settings().queue_batch)
    log.info("contested facts, page after %r: %s", after, totals)
    return totals

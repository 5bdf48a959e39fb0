"""Making notification candidates: ``ella.make_followups`` (beat, every 15 minutes) and
``ella.make_generic_checkins`` (beat, every 6 hours). Sending them is ``ella.dispatch_notifications``'s job.

The tasks load, call, store: which facts are followed up and what a candidate holds is
``ella.notifications.followups``; who gets a generic check-in and which line is ``ella.notifications.generic``;
the queries are ``models.notifications`` (``open_followups``, ``quiet_users``, ``add_candidate``).

Both jobs go over their rows in keyset pages (``settings.notification_page``), one page per task, the next page
emitted as a new task, like the weekly contested-fact run: a retry resumes at its page. A follow-up is made at
most once per fact (its dedupe key), so a retry or a second beat asks the model again only about facts that
have no candidate yet. One user's failure (a model that refuses, a bad row) is dead-lettered with the user
named and the page goes on; a transient model or database error ends the page for a Celery retry.
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from celery.exceptions import SoftTimeLimitExceeded

from adapters import metrics
from adapters.db import autocommit_scope, session_scope
from adapters.dead_letters import record_dead_letter
from adapters.llm import get_port
from adapters.settings import get_settings
from ella import event_over, selflog
from ella.guard import Category, Verdict, classify
from ella.llm.kinds import NotificationBody
from ella.llm.types import TransientModelError
from ella.notifications import followups, generic
from ella.notifications.policy import Status
from models.boundary import log_verdict
from models.event_over import events_of
from models.ledger import WorldFact
from models.notifications import add_candidate, open_followups, quiet_users
from models.selflog import entries_about_user
from workers.app import app
from workers.logs import user_scope
from workers.reliability import TRANSIENT_ERRORS, ReliableTask
from workers.routing import TaskName, queue_for

log = logging.getLogger(__name__)

DIRECTION = "notification"


def _now(at: str) -> datetime:
    """``at`` (ISO, aware) for a replayed or simulated pass, else the current time."""
    if not at:
        return datetime.now(UTC)
    now = datetime.fromisoformat(at)
    if now.tzinfo is None:
        raise ValueError(f"naive time {at!r}: give an aware ISO time")
    return now


def _zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def store(candidate: followups.NewCandidate, verdict: Verdict, now: datetime) -> str:
    """Store one candidate (once); a skipped one's guard fire goes to the boundary log with it (one skipped for
    an event that is over, ``ella.event_over``, is counted as ``event_over``: no guard fired)."""
    with session_scope() as session:
        made = add_candidate(session, candidate, now)
        if made is None:
            return "known"
        if candidate.status == Status.SKIPPED and verdict.category == Category.OK:
            return event_over.HOLD
        if candidate.status == Status.SKIPPED:
            log_verdict(session, verdict, direction=DIRECTION, user_id=candidate.user_id, message_id=None, text=None)
            metrics.boundary_fire(DIRECTION, verdict)
            return "skipped"
    return "made"


def followups_for_user(user_id: str, facts: list[tuple[WorldFact, str]], now: datetime) -> Counter[str]:
    """Ask the model for a body per fact of one user, guard it and store the candidate."""
    counts: Counter[str] = Counter()
    with autocommit_scope() as session:
        entries = followups.grounding(entries_about_user(session, user_id, followups.self_log_since(now)))
        known = events_of(session, user_id, now)  # a body must not look forward to an event that is over
    thoughts = selflog.recent_thoughts(entries)
    port = get_port()
    for fact, zone in facts:
        if not followups.wants_followup(fact, now):
            continue  # the query asks the same; a row that does not pass the rule is never asked about
        result = port.call(
            NotificationBody,
            followups.body_variables(user_id, fact, _zone(zone), now),
            user_id=user_id,
            recent_thoughts=thoughts,
        )
        if result.failsafe:
            log.warning("follow-up body for fact %s failed (%s): no candidate", fact.id, result.error[:200])
            counts["failsafe"] += 1
            continue
        body = result.value.text.strip()
        verdict = classify(body, outbound=True)
        stale = event_over.stale_reason([body], known)
        made = followups.followup_candidate(fact, body, entries, verdict, now, stale)
        candidate = replace(made, made_by=result.provenance)
        counts[store(candidate, verdict, now)] += 1
    return counts


@app.task(name=TaskName.MAKE_FOLLOWUPS, base=ReliableTask, bind=True)
def make_followups(self: ReliableTask, after_at: str = "", after_id: int = 0, at: str = "") -> dict[str, int]:
    """One page of open follow-up windows (after the keyset ``after_at``/``after_id``), then the next page."""
    settings = get_settings()
    now = _now(at)
    after = (datetime.fromisoformat(after_at), after_id) if after_at else None
    with autocommit_scope() as session:
        page = open_followups(session, now, after, settings.notification_page)
    by_user: dict[str, list[tuple[WorldFact, str]]] = {}
    for fact, zone in page:
        by_user.setdefault(fact.user_id, []).append((fact, zone))
    totals: Counter[str] = Counter(facts=len(page), users=len(by_user))
    for user_id, facts in by_user.items():
        with user_scope(user_id):
            try:
                totals.update(followups_for_user(user_id, facts, now))
            except (TransientModelError, SoftTimeLimitExceeded, *TRANSIENT_ERRORS):
                raise  # the page is retried; the facts handled so far have their candidates and are not asked again
            except Exception as exc:  # one user's failure never stops the others
                reason = f"follow-ups for user {user_id} failed: {type(exc).__name__}: {exc}"
                log.exception("%s", reason)
                fact_ids = [fact.id for fact, _ in facts]
                record_dead_letter(self.name, self.request.id, reason, [], {"user_id": user_id, "fact_ids": fact_ids})
                totals["dead_lettered"] += 1
    if len(page) == settings.notification_page:
        last = page[-1][0]
        assert last.followup_until is not None  # the query selects only facts with a window
        make_followups.apply_async(
            kwargs={"after_at": last.followup_until.isoformat(), "after_id": last.id, "at": at},
            queue=queue_for(TaskName.MAKE_FOLLOWUPS, settings),
        )
    log.info("follow-ups at %s, page after %r/%s: %s", now.isoformat(), after_at, after_id, dict(totals))
    return dict(totals)


@app.task(name=TaskName.MAKE_GENERIC_CHECKINS, base=ReliableTask, bind=True)
def make_generic_checkins(self: ReliableTask, after: str = "", at: str = "") -> dict[str, int]:
    """One page of recently seen users (by id, after ``after``): a warm generic for each quiet one; next page."""
    settings = get_settings()
    now = _now(at)
    quiet_for = timedelta(days=settings.notification_generic_quiet_days)
    fresh_for = timedelta(hours=settings.notification_generic_fresh_h)
    with autocommit_scope() as session:
        page = quiet_users(session, now, now - generic.ACTIVE_DAYS, after, settings.notification_page)
    totals: Counter[str] = Counter(users=len(page))
    for state in page:
        if not generic.due(state, now, quiet_for):
            continue
        body = generic.pick_line(state.user_id, now)
        verdict = classify(body, outbound=True)
        totals[store(generic.checkin(state.user_id, body, verdict, now, fresh_for), verdict, now)] += 1
    if len(page) == settings.notification_page:
        make_generic_checkins.apply_async(
            kwargs={"after": page[-1].user_id, "at": at}, queue=queue_for(TaskName.MAKE_GENERIC_CHECKINS, settings)
        )
    log.info("generic check-ins at %s, page after %r: %s", now.isoformat(), after, dict(totals))
    return dict(totals)

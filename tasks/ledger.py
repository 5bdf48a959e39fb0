"""Ledger tasks: ``ella.extract_facts`` for each user turn, ``ella.resolve_contested_facts`` weekly.

Extraction writes as ``Writer.USER``: whatever the model answers, the ledger accepts only user claims and
inferences from it. Only the user's own turns are read, never Ella's replies: what Ella says about herself
goes to the self-log and never becomes a fact.

The tasks load, call, store and emit; the decisions are plain Python elsewhere: which turn is worth a call and
what each statement does to the user's live facts, shown to the model with their ids (add, update, retire an
event that happened, or nothing: ``ella.ledger.consolidation``), which contests to ask about and what a verdict
means (``ella.ledger.contests``), what the world clock owes (``ella.ledger.world_clock``, stored by
``models.world_clock.advance_world``).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from redis.exceptions import LockError

from adapters.db import autocommit_scope, session_scope
from adapters.dead_letters import record_dead_letter
from adapters.llm import get_port
from adapters.redis_conn import get_redis
from adapters.settings import get_settings
from ella.guard import Category, classify
from ella.ledger import consolidation, contests, extraction
from ella.ledger.extraction import Action, may_retire, worth_extracting
from ella.ledger.rules import USER_SUBJECT, FactConflict, Writer, about_the_user
from ella.llm.kinds import ContestedVerdict, ExtractedFact, FactExtraction
from ella.llm.types import PermanentModelError, TransientModelError
from ella.memory_pages import Changed, fact_text
from ella.provenance import Provenance
from models.forgetting import message_forgotten
from models.ledger import WorldFact, append, current, has_facts_from, retire, user_zone, users_with_contests
from models.memory import expire_plans_about
from models.memory_changes import note_changed
from models.review import open_fact_ids, queue_review
from models.supersession import resolve_contest, supersede
from models.world_clock import advance_world
from workers.app import app
from workers.logs import user_scope
from workers.reliability import TRANSIENT_ERRORS, ReliableTask
from workers.routing import TaskName, queue_for

log = logging.getLogger(__name__)


def record_extracted(
    session: Any, user_id: str, statement: consolidation.Statement, now: datetime, live: list[WorldFact]
) -> str:
    """Store one statement where ``consolidation.decide`` puts it; returns what happened.

    ``live`` is the user's live facts, read once per extraction and kept up to date here (not a query per fact).
    """
    placement = consolidation.decide(statement, live)
    new = statement.new
    if placement.action == Action.KNOWN:
        return "known"
    if placement.action == Action.RETIRE and placement.replaces is not None:
        gone = retire(
            session, user_id, placement.replaces, Writer.USER, placement.reason, now, outcome=placement.outcome
        )
        announce(session, user_id, "retired", [gone])
        for fact in live:
            if fact.id == placement.replaces and (fact.predicate == "has_upcoming" or fact.followup_after is not None):
                expire_plans_about(session, user_id, fact.object, now)  # "ask how it went" is stale
        live[:] = [f for f in live if f.id != placement.replaces]
        return "retired"
    if placement.action == Action.SUPERSEDE and placement.replaces is not None:
        reason = placement.reason or extraction.SUPERSEDE_REASON
        fact = supersede(session, user_id, placement.replaces, new, Writer.USER, now, reason)
        announce(session, user_id, "corrected", [placement.replaces, fact])
        live[:] = [f for f in live if f.id != placement.replaces]
        live.append(fact)
        return "superseded"
    appended = append(session, user_id, new, Writer.USER, now)
    if appended is None:
        return "known"
    announce(session, user_id, "added", [appended])
    live.append(appended)
    return "appended"


def announce(session: Any, user_id: str, change: str, facts: list[WorldFact | int]) -> None:
    """The ``memory_changed`` notice of what extraction did to the user's facts (``models.memory_changes``): a
    replaced fact by its id alone (its words are the old value), a new one with its words."""
    items = [
        Changed("fact", f) if isinstance(f, int) else Changed("fact", f.id, fact_text(f.subject, f.predicate, f.object))
        for f in facts
        if isinstance(f, int) or about_the_user(f.subject)
    ]
    if change == "retired":  # a retired fact is no longer listed: its id is news, its words are not
        items = [Changed(item.kind, item.id) for item in items]
    note_changed(session, user_id, change, items)


def folded_statements(
    statements: Any, shown_ids: Any, provenance: Any
) -> tuple[list[ExtractedFact], Provenance] | None:
    """The fact statements the live reply read from the turn (``Reply.facts``), validated again as the reply's
    own call validated them (the ``FactExtraction`` schema, only the ids that call showed), with the provenance of
    that call; None when they are absent or anything about them does not hold (then the turn is extracted by a
    call of its own, as before)."""
    if not isinstance(statements, list) or not isinstance(shown_ids, list):
        return None
    made_by = Provenance.from_payload(provenance)
    if made_by is None:
        return None
    try:
        read = FactExtraction.model_validate({"facts": statements}, context={"known_ids": shown_ids})
    except ValueError as exc:  # pydantic's ValidationError is a ValueError
        log.warning("the reply's fact statements do not validate (%s): extracting by a call", str(exc)[:200])
        return None
    return list(read.facts), made_by


@app.task(name=TaskName.EXTRACT_FACTS, base=ReliableTask, bind=True)
def extract_facts(
    self: ReliableTask,
    user_id: str,
    message_id: str,
    text: str,
    sent_at: str,
    statements: list[dict[str, Any]] | None = None,
    shown_ids: list[int] | None = None,
    provenance: dict[str, Any] | None = None,
) -> dict[str, int]:
    """Facts about the user from one of their turns (memory-extraction tier); idempotent per message.

    ``statements`` are the turn's fact statements the live reply already read (extraction folded into the reply
    call, ``Reply.facts``), against the user's facts ``shown_ids`` it showed, made by the call ``provenance``
    names: they are applied with no model call. Without them (a canned or fallback turn, a repeat delivery, an
    engine that did not read facts) or when they do not validate, one extraction call reads the turn, gated on
    ``worth_extracting`` (the gate saves a call; folded statements cost none, so they are applied whatever the
    turn's words). So does a turn whose reply ran before an earlier turn's fact it touches was stored, when its
    words could retire that fact (``extraction.may_retire``): the reply could not name it by id.

    Only facts about the user are stored (``extraction.admissible``): the model's answer is not trusted to
    keep to ``user.*``.

    A message the guard reads as manipulation (prompt injection) is not given to the extraction model at all:
    the trust rules would refuse what it tries to make canon, but there is no reason to let it try.
    """
    if classify(text, learned=False).category == Category.MANIPULATION:
        return {"skipped_manipulation": 1}
    folded = folded_statements(statements, shown_ids, provenance)
    if folded is None and not worth_extracting(text):
        return {"skipped_no_self_reference": 1}  # small talk: no model call
    with user_scope(user_id):
        with autocommit_scope() as session:
            if has_facts_from(session, user_id, message_id):
                return {"redelivery": 1}
            zone = user_zone(session, user_id)
            at = datetime.fromisoformat(sent_at)
            # what the request shows with their ids: the user's open dated events and what the message touches
            view = consolidation.in_view(current(session, user_id, USER_SUBJECT), text, at, zone)
        unseen = set(view.ids) - set(shown_ids or [])
        if folded is not None and unseen and may_retire(text):
            # A fact the turn touches landed after the reply read it (an earlier turn's, still on its way): the
            # reply could not retire what it was not shown, and these words could retire it, so the turn is read
            # again. Otherwise its statements stand: an add is still placed against the facts as they are now, and
            # a fact shown and gone since is safe (``consolidation.decide`` acts only on what is still live).
            log.info("message %s may retire facts its reply was not shown (%s): extracting by a call", message_id,
                     sorted(unseen))  # fmt: skip
            folded = None
        if folded is not None:
            facts, made_by = folded
        else:
            result = get_port().call(
                FactExtraction,
                {"name": user_id, "message": text, "today": view.today, "known": view.known},
                user_id=user_id,
                context={"known_ids": view.ids},
            )
            if result.failsafe:
                log.warning("fact extraction failed (%s): nothing stored", result.error[:200])
                return {"failsafe": 1}
            facts, made_by = list(result.value.facts), result.provenance
        counts: dict[str, int] = {}
        now = datetime.now(zone)
        with session_scope() as session:
            if message_forgotten(session, user_id, message_id):
                return {"forgotten": 1}  # the user asked to forget it meanwhile
            live = advance_world(session, user_id, now)  # a new user's world gets its anchors on their first turn
            said, refused = consolidation.statements(facts, message_id, zone, get_settings().followup_window_days, live)
            if refused:  # about Ella or her world, or Ella as a partner: what the user said, never a fact
                log.warning("fact extraction: %d facts not about the user refused", refused)
                counts["refused_not_about_user"] = refused
            for statement in said:
                made = replace(statement, new=replace(statement.new, made_by=made_by))  # ella.provenance
                outcome = record_extracted(session, user_id, made, now, live)
                counts[outcome] = counts.get(outcome, 0) + 1
        log.info("facts from message %s (%s): %s", message_id, "read by the reply" if folded else "extracted", counts)
        return counts


@dataclass
class UserRun:
    """One user's part of the weekly run: its counts, and why it (or one of its contests) was dead-lettered."""

    counts: dict[str, int] = field(default_factory=lambda: {"resolved": 0, "queued": 0, "skipped": 0})
    dead_letters: list[str] = field(default_factory=list)


def resolve_user_contests(user_id: str) -> UserRun:
    """Ask the contested-resolution tier about each contest of one user; undecided ones go to review.

    A refused request queues its contest for review (once: the review is keyed by its facts) and is reported
    for a dead letter only when it was queued now, so a redelivery or a second beat records nothing twice. A
    model that stays unavailable leaves this user's contests for the next run.
    """
    with autocommit_scope() as session:
        pending, skipped = contests.open_contests(current(session, user_id), open_fact_ids(session, user_id))
    run = UserRun()
    run.counts["skipped"] = skipped
    for done, contest in enumerate(pending):
        refused = False
        try:
            result = get_port().call(ContestedVerdict, contest.variables(), user_id=user_id, context=contest.context())
        except PermanentModelError as exc:
            decision: contests.Resolve | contests.Review = contests.refused(contest, str(exc))
            refused = True
        except TransientModelError as exc:
            run.counts["deferred"] = len(pending) - done
            run.dead_letters.append(f"model unavailable, contests left for the next run: {exc}"[:2000])
            return run
        else:
            decision = contests.decide(contest, result)
        if isinstance(decision, contests.Review):
            with session_scope() as session:
                review_id = queue_review(
                    session,
                    user_id,
                    contest.subject,
                    contest.predicate,
                    contest.tier,
                    decision.fact_ids,
                    decision.reason,
                )
            run.counts["queued"] += 1
            if refused and review_id is not None:
                run.dead_letters.append(f"{contest.subject}/{contest.predicate}: {decision.reason}; queued for review")
            continue
        try:
            with session_scope() as session:
                resolve_contest(
                    session, user_id, decision.winner_id, decision.loser_ids, Writer.RESOLVER, decision.reason
                )
                if about_the_user(contest.subject):  # the losers leave the user's live facts: ids only
                    decided = [decision.winner_id, *decision.loser_ids]
                    note_changed(session, user_id, "corrected", [Changed("fact", i) for i in decided])
        except FactConflict as exc:
            log.info("contest on %s/%s changed before it was resolved: %s", contest.subject, contest.predicate, exc)
            run.counts["skipped"] += 1
            continue
        run.counts["resolved"] += 1
    return run


def contests_lock_key(user_id: str) -> str:
    return f"{get_settings().redis_key_prefix}:contests:running:{user_id}"


@contextmanager
def contests_claimed(user_id: str, owner: str) -> Iterator[bool]:
    """Whether this run may work on the user's contests now (a Redis lock, released when it is done).

    Why: a second beat, or a page emitted twice, may run while the first is still on this user; it leaves the
    user to the first instead of asking the model again. A redelivery of the same task (its worker was lost)
    takes its own lock over. The lock expires with the task time limit, so a lost run never holds a user.
    """
    settings = get_settings()
    lock = get_redis().lock(
        contests_lock_key(user_id), timeout=settings.task_time_limit_s, blocking=False, thread_local=False
    )
    claimed = bool(lock.acquire(token=owner))
    if not claimed:
        lock.local.token = owner.encode()
        claimed = lock.owned()
    try:
        yield claimed
    finally:
        if claimed:
            with suppress(LockError):  # expired meanwhile: nothing to release
                lock.release()


@app.task(name=TaskName.RESOLVE_CONTESTED_FACTS, base=ReliableTask, bind=True)
def resolve_contested_facts(self: ReliableTask, after: str = "") -> dict[str, Any]:
    """One page of users with contested facts (by user id, after ``after``), then the next page as a new
    task: a retry resumes at its page, and no giant chord holds every user at once.

    Idempotent and resumable: a resolved contest is no longer contested and a queued one is skipped, so a
    redelivered page or a second beat asks only about what is still open. One user never stops the page: a
    model error or a bug for one user is dead-lettered with that user's id and the page goes on (a database or
    Redis outage is the whole page's, and retries it).
    """
    settings = get_settings()
    with autocommit_scope() as session:
        page = users_with_contests(session, after, settings.contested_page_users)
    totals = {"users": len(page), "resolved": 0, "queued": 0, "skipped": 0, "deferred": 0, "failed": 0, "busy": 0}
    owner = self.request.id or uuid.uuid4().hex
    for user_id in page:
        with user_scope(user_id), contests_claimed(user_id, owner) as claimed:
            if not claimed:
                totals["busy"] += 1  # another run is on this user right now
                continue
            try:
                run = resolve_user_contests(user_id)
            except TRANSIENT_ERRORS:
                raise
            except Exception as exc:  # one user's bug must not stop the others; the operator sees it
                log.exception("contested facts of one user failed")
                run = UserRun(dead_letters=[f"failed: {type(exc).__name__}: {exc}"[:2000]])
                totals["failed"] += 1
            for key, value in run.counts.items():
                totals[key] = totals.get(key, 0) + value
            for reason in run.dead_letters:
                record_dead_letter(self.name, self.request.id, reason, [], {"user_id": user_id, "after": after})
    if len(page) == settings.contested_page_users:
        resolve_contested_facts.apply_async(
            kwargs={"after": page[-1]}, queue=queue_for(TaskName.RESOLVE_CONTESTED_FACTS, settings)
        )
    log.info("contested facts, page after %r: %s", after, totals)
    return totals

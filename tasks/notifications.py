"""``ella.dispatch_notifications`` (beat): due candidates out to the outbox stream, exactly once each.

One pass, in this order, and why:
1. re-publish notification outbox records committed but never published (a worker died between the commit and
   the stream), found through their sent, still-fresh candidates; the stream's Lua script makes a repeat a no-op;
2. the expiry sweep: candidates past ``fresh_until`` become ``expired``;
3. keyset pages of due candidates (``status='candidate' AND not_before <= now``, the partial due index; users
   with nothing due cost nothing), each page read with its users' profiles and open conversations in one query;
   ``ella.notifications.policy.decide`` says send, wait (``not_before`` and ``reason`` set, so ``ella
   notifications why`` can tell) or end (expired, skipped; a fact superseded or retired since kills it, and so
   does a body, or a plan it cites, that looks forward to an event the user has said is over since:
   ``ella.event_over``, read against the page's users' events in one query, counted ``event_over``);
4. the page's sends in ONE transaction (``models.notifications.send``: conditional flip, the user's
   ``last_notified_at``, a conversation the notification opens, the outbox record), then, after the commit,
   each record published once, then Ella's memory of it sent (recorded in that commit, ``models.pending_effects``,
   and held until the record is published; ``ella.send_pending_effects`` sends what a kill left).

One bad candidate never stops the pass: a page that fails is retried one candidate per transaction, and a
candidate that still fails is logged, recorded as a dead letter naming it, and looked at again an hour later.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, TypeVar

from celery.exceptions import SoftTimeLimitExceeded
from sqlalchemy.orm import Session

from adapters import metrics
from adapters.db import autocommit_scope, session_scope
from adapters.dead_letters import record_dead_letter
from adapters.publishing import publish
from adapters.settings import Settings, get_settings
from ella.event_over import NOTHING_KNOWN, KnownEvents, stale_reason
from ella.notifications.policy import (
    CandidateState,
    Decision,
    Hold,
    Recipient,
    Rules,
    decide,
    reason_of,
    recipient,
)
from models.base import utcnow
from models.event_over import events_known, thought_texts
from models.notifications import (
    Due,
    Sent,
    due_candidates,
    end_candidates,
    expire_stale,
    hold_back,
    live_fact_ids,
    notified_since,
    send,
    unpublished_notifications,
)
from models.pending_effects import PendingEffects, owe
from workers import effects, events
from workers.app import app
from workers.reliability import ReliableTask
from workers.routing import TaskName

log = logging.getLogger(__name__)

T = TypeVar("T")
RETRY_FAILED_AFTER = timedelta(hours=1)
DAY = timedelta(hours=26)  # a local day is at most 25 hours long (DST): notifications since then cover it


def rules_of(settings: Settings) -> Rules:
    return Rules(min_gap=timedelta(hours=settings.notification_min_gap_h), daily_cap=settings.notification_daily_cap)


def recipient_of(due: Due, now: datetime, sent_at: Sequence[datetime] = ()) -> Recipient:
    return recipient(
        zone=due.timezone,
        active=due.active,
        do_not_disturb=due.dnd,
        notifications_on=due.notifications_enabled,
        last_notified_at=due.last_notified_at,
        now=now,
        sent_at=sent_at,
        conversation_close_due_at=due.conversation_close_due_at,
    )


@dataclass(frozen=True)
class PageContext:
    """What a page's decisions read beyond the rows (see ``page_context``)."""

    live: set[tuple[str, int]]  # (user id, fact id) of the cited facts still live
    sent: dict[str, list[datetime]]  # when each recently notified user was notified
    events: dict[str, KnownEvents] = field(default_factory=dict)  # each user's events, over or live
    thoughts: dict[int, str] = field(default_factory=dict)  # the cited plans' words


def decision_for(due: Due, user: Recipient, now: datetime, page: PageContext, rules: Rules) -> tuple[Decision, str]:
    """The decision on one candidate and the reason to store if it is held (its rule; the facts that went; the
    event it looks forward to that is over)."""
    facts = due.fact_ids
    live_ones = {fact_id for fact_id in facts if (due.user_id, fact_id) in page.live}
    cited = [page.thoughts[i] for i in due.thought_ids if i in page.thoughts]
    over = stale_reason([due.body, *cited], page.events.get(due.user_id, NOTHING_KNOWN))
    decision = decide(CandidateState(due.status, due.fresh_until), user, now, facts, live_ones, rules, over)
    return decision, reason_of(decision, facts, live_ones, over)


def page_context(dues: Sequence[Due], now: datetime) -> PageContext:
    """What a page's decisions read beyond the rows: live facts (one query), the page's users' events and the
    plans its candidates cite (a query each: a plan written before the user said its event is over is not sent
    after), and, only for users notified within the last day, when (one query, usually none)."""
    fact_ids = {fact_id for due in dues for fact_id in due.fact_ids}
    thought_ids = {node_id for due in dues for node_id in due.thought_ids}
    recent = {d.user_id for d in dues if d.last_notified_at is not None and d.last_notified_at >= now - DAY}
    with autocommit_scope() as session:
        live = live_fact_ids(session, fact_ids)
        sent = notified_since(session, recent, now - DAY)
        events = events_known(session, {d.user_id for d in dues}, now)
        thoughts = thought_texts(session, thought_ids)
    return PageContext(live, sent, events, thoughts)


def memory_source(candidate_id: int) -> str:
    return f"notification:{candidate_id}"


def owe_memory(session: Session, sent: Sent) -> PendingEffects | None:
    """The send's commit owes Ella's memory of it, sent once its record is published (never for one that went
    stale unpublished: she does not remember saying what the user never got)."""
    record = sent.record
    memory = events.memory_of_notification(
        user_id=record.user_id,
        candidate_id=sent.candidate_id,
        body=sent.body,
        sent_at=record.created_at.isoformat(),
        conversation_id=record.conversation_id,
    )
    grace = timedelta(seconds=get_settings().effects_grace_s)
    return owe(session, record.user_id, memory_source(sent.candidate_id), [memory], grace, after_outbox_id=record.id)


class Pass:
    """One dispatch pass at ``now``; counts what it did."""

    def __init__(self, now: datetime, settings: Settings, task_id: str | None) -> None:
        self.now = now
        self.settings = settings
        self.task_id = task_id
        self.rules = rules_of(settings)
        self.reply_window = timedelta(hours=settings.notification_reply_window_h)
        self.counts: Counter[str] = Counter()
        self.owed: dict[int, PendingEffects | None] = {}  # candidate id -> the memory row this pass's send wrote

    def failed(self, candidate_id: int | None, user_id: str, exc: BaseException, step: str) -> None:
        """Log, dead-letter naming the candidate, and push it back an hour (not every pass: one dead letter an
        hour at most while it keeps failing). The soft time limit is not a candidate's fault: it ends the pass
        (every page before it is committed; the next pass goes on)."""
        if isinstance(exc, SoftTimeLimitExceeded):
            raise exc
        self.counts["failed"] += 1
        log.error("notification candidate %s (%s) failed at %s: %r", candidate_id, user_id, step, exc, exc_info=exc)
        reason = f"candidate {candidate_id} failed at {step}: {type(exc).__name__}: {exc}"
        record_dead_letter(
            TaskName.DISPATCH_NOTIFICATIONS,
            self.task_id,
            reason,
            [],
            {"candidate_id": candidate_id, "user_id": user_id},
        )
        if candidate_id is not None and step != "publish":
            try:
                with session_scope() as session:
                    hold_back(session, [(candidate_id, self.now + RETRY_FAILED_AFTER, f"error: {type(exc).__name__}")])
            except Exception:  # the dead letter is written; the next pass looks again
                log.exception("could not push back candidate %s", candidate_id)

    def each_or_alone(
        self, items: Sequence[T], work: Callable[[Sequence[T]], Any], step: str, who: Callable[[T], Due]
    ) -> None:
        """``work`` on all of ``items`` in one go; if that fails, on each alone, so one bad item fails alone."""
        if not items:
            return
        if len(items) > 1:
            try:
                work(items)
                return
            except SoftTimeLimitExceeded:
                raise
            except Exception:  # isolated below, item by item
                log.warning("a page failed at %s: retrying its %d one by one", step, len(items), exc_info=True)
        for item in items:
            try:
                work([item])
            except Exception as exc:  # noqa: BLE001 - one bad candidate never stops the pass
                due = who(item)
                self.failed(due.id, due.user_id, exc, step)

    def republish(self) -> None:
        """Step 1: records committed but never published, oldest first, a page at a time."""
        page = self.settings.notification_page
        while True:
            with autocommit_scope() as session:
                rows = unpublished_notifications(session, self.now, page)
            failures = 0
            for one in rows:
                try:
                    self.deliver(one)
                    self.counts["republished"] += 1
                except Exception as exc:  # noqa: BLE001 - the next pass tries again
                    failures += 1
                    self.failed(one.candidate_id, one.record.user_id, exc, "publish")
            if len(rows) < page or failures:
                return

    def deliver(self, sent: Sent) -> None:
        """After the commit: the stream (once per record), then what the send owes: Ella's memory of it (once
        per candidate; recorded in the send's commit and held until the record is published, so a kill here
        leaves it to ``ella.send_pending_effects``)."""
        publish(sent.record)
        owed = self.owed.pop(sent.candidate_id, None)  # this pass's send: the row its commit wrote, no query
        if owed is not None:
            effects.send_rows([owed])
        else:  # a record an earlier pass committed (the re-publish step)
            effects.send_owed_by(sent.record.user_id, memory_source(sent.candidate_id))

    def expire(self) -> None:
        with session_scope() as session:
            self.counts["expired"] += expire_stale(session, self.now)

    def decide_page(self, dues: Sequence[Due]) -> tuple[list[Due], list[tuple[Due, Decision, str]]]:
        """(to send, held) for one page; a user gets at most one notification per pass."""
        page = page_context(dues, self.now)
        users: dict[str, Recipient] = {}
        sends: list[Due] = []
        held: list[tuple[Due, Decision, str]] = []
        for due in dues:
            try:
                user = users.get(due.user_id) or recipient_of(due, self.now, page.sent.get(due.user_id, ()))
                decision, reason = decision_for(due, user, self.now, page, self.rules)
            except Exception as exc:  # noqa: BLE001 - a bad profile (an unknown zone) fails alone
                self.failed(due.id, due.user_id, exc, "decide")
                continue
            if decision.send:
                sends.append(due)
                # What the next pass would see: just notified, in the conversation the notification opened.
                user = replace(
                    user,
                    last_notified_at=self.now,
                    sent_today=user.sent_today + 1,
                    conversation_live_until=self.now + self.reply_window,
                )
            else:
                held.append((due, decision, reason))
                if decision.hold is Hold.EVENT_OVER:  # ended below with the others ("ended"); named in the log
                    self.counts["event_over"] += 1
            users[due.user_id] = user
        return sends, held

    def write_holds(self, held: Sequence[tuple[Due, Decision, str]]) -> None:
        def work(items: Sequence[tuple[Due, Decision, str]]) -> None:
            waits, ends = [], []
            for due, decision, reason in items:
                if decision.final_status is not None:
                    ends.append((due.id, decision.final_status.value, reason))
                else:
                    at = min(decision.not_before or due.fresh_until, due.fresh_until)
                    waits.append((due.id, at, reason))
            with session_scope() as session:
                hold_back(session, waits)
                end_candidates(session, ends)
            self.counts["held"] += len(waits)
            self.counts["ended"] += len(ends)

        self.each_or_alone(held, work, "hold", lambda item: item[0])

    def write_sends(self, sends: Sequence[Due]) -> None:
        def work(items: Sequence[Due]) -> None:
            with session_scope() as session:
                candidates = [(d.id, d.user_id, d.kind, d.body) for d in items]
                sent = send(session, candidates, self.now, self.reply_window, self.settings.ai_disclosure)
                for one in sent:
                    self.owed[one.candidate_id] = owe_memory(session, one)
                memos = events.owe_memos(session, list(session.info.get("closed_conversations", [])))  # flushes
            effects.send_rows(memos)  # after the commit: the memos of the conversations the sends closed
            self.counts["lost_to_another_dispatcher"] += len(items) - len(sent)
            by_id = {d.id: d for d in items}
            for one in sent:
                self.counts["sent"] += 1
                try:
                    self.deliver(one)
                except Exception as exc:  # noqa: BLE001 - committed: the next pass re-publishes it
                    self.failed(one.candidate_id, by_id[one.candidate_id].user_id, exc, "publish")

        self.each_or_alone(sends, work, "send", lambda due: due)

    def run(self) -> dict[str, int]:
        self.republish()
        self.expire()
        after: tuple[datetime, int] | None = None
        page = self.settings.notification_page
        while True:
            with autocommit_scope() as session:
                dues = due_candidates(session, self.now, after, page)
            if not dues:
                break
            after = (dues[-1].not_before, dues[-1].id)
            sends, held = self.decide_page(dues)
            self.write_holds(held)
            self.write_sends(sends)
            if len(dues) < page:
                break
        counts = dict(self.counts)
        metrics.notification_pass(counts)
        if any(counts.values()):
            log.info("notification dispatch: %s", counts)
        return counts


def dispatch(now: datetime | None = None, task_id: str | None = None) -> dict[str, int]:
    """One pass at ``now`` (default: the clock); what it did, by count. Called by the task and the benchmark."""
    return Pass(now or utcnow(), get_settings(), task_id).run()


@app.task(name=TaskName.DISPATCH_NOTIFICATIONS, base=ReliableTask, bind=True)
def dispatch_notifications(self: ReliableTask) -> dict[str, int]:
    """Beat, every ``notification_dispatch_interval_s``; safe to run twice at once or to redeliver."""
    return dispatch(task_id=self.request.id)

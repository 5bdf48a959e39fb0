"""``ella.ingest_message``: one user message in, one reply out, exactly once per ``message_id``.

Order of work, and why (issue 35: 10 statements for an ordinary turn on PostgreSQL, ``bench/ingest_statements.py``):
1. validate (a malformed payload is dead-lettered, never retried);
2. the turn's opening read (``adapters.turn_context``: one statement for whether the user was erased, whether the
   message is stored, the user's row, the world version and the conversation so far); an erased user's late
   message is refused (``workers.events.refuse_forgotten``); if the message is already stored, only make sure its
   reply is published (a repeat delivery changes nothing);
3. the reply (``ella.reply``, wired in ``adapters.reply_service``; its context read as planned in
   ``adapters.turn_context``), outside any transaction (a model call may take seconds);
4. store turn + reply in one transaction under the user's lock, with the reply's model usage, its boundary
   fires, the AI disclosure and Ella's self-statements (a concurrent duplicate loses on the unique
   ``message_id`` and falls back to step 2's publish);
5. publish the recorded reply to the outbox stream once; while Redis is down the worker keeps retrying the publish
   (not the task: the reply is committed) for ``publish_retry_window_s``;
6. send what the turn owes, recorded in its commit (``models.pending_effects``): its memory (``ella.perceive``,
   which also marks the memories the reply used), its facts (``ella.extract_facts``), a conversation it closed
   (``ella.close_conversation``) and the pictures its reply named (``ella.draw_image_anchors``); then mark the row
   published and settle what was sent, in one statement. Whichever path publishes the reply (this delivery, a
   repeat, the inbox sweep), the row is sent and deleted once; ``ella.send_pending_effects`` sends what a kill or
   an outage left. A turn the guard held (``ella.memory.quarantine``) goes to memory with its hold and never to
   the ledger. The ledger gets the reply's own fact statements when its call read the turn for them (extraction
   folded into the reply: no second call).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import redis
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from adapters import inbox, metrics
from adapters.db import autocommit_scope, session_scope
from adapters.dead_letters import record_dead_letter
from adapters.embedding_cache import shared_embedder
from adapters.forgetting import forget_outside
from adapters.images import draw as draw_pictures
from adapters.images import image_reference
from adapters.llm import held_usage_rows, write_usage
from adapters.memory_cache import memory_cache
from adapters.publishing import publish, publish_stored_reply
from adapters.redis_conn import get_redis
from adapters.reply_service import answer, disclosure_policy
from adapters.settings import get_settings
from adapters.turn_context import new_user_defaults, opening_of
from ella import seen as seen_map
from ella.contract import IngestPayload, MalformedPayload, parse_ingest
from ella.guard import Category
from ella.llm.types import TransientModelError
from ella.memory.poisoning import instructs_memory
from ella.memory.quarantine import Hold, hold_for
from ella.memory.say import Ask, SayDecision
from ella.reply import ReplyOutcome, disclose
from ella.world import images
from models.base import utcnow
from models.boundary import log_verdict
from models.forgetting import FORGOTTEN_TEXT, Forgetting, Refused, correct_fact, forget_items
from models.images import show_unshown
from models.message import InboundMessage
from models.outbox import OutboxRecord
from models.pending_effects import Effect, PendingEffects, owe
from models.selflog import add_entries
from models.turn_opening import TurnOpening
from models.turns import find_message, store_exchange
from models.user import User, touch_user
from workers import effects, events
from workers.app import app
from workers.logs import user_scope
from workers.reliability import ReliableTask
from workers.routing import TaskName

log = logging.getLogger(__name__)

NOT_CARRIED_OUT = "I couldn't change that just now, it seems to have changed already. Could you tell me once more?"


def stored_message(payload: IngestPayload) -> InboundMessage | None:
    """The stored message with this payload's ``message_id``; refuses one that another user sent."""
    with autocommit_scope() as session:
        found = find_message(session, payload.message_id)
    if found is not None and found.user_id != payload.user_id:
        raise MalformedPayload(f"message_id {payload.message_id!r} was already used by another user")
    return found


def turn_hold(outcome: ReplyOutcome, text: str = "") -> str | None:
    """The hold the guard's inbound verdicts put on this turn (``ella.memory.quarantine``), or None. A message that
    tries to plant instructions in Ella's memory (``ella.memory.poisoning``) is answered, but held like a refused
    manipulation: its node and facts never reach a later prompt (a crisis turn still is never held)."""
    categories = [str(verdict.category) for direction, verdict in outcome.fires if direction == "inbound"]
    if text and instructs_memory(text):
        log.warning("a message instructs Ella's memory: answered, and held out of every later prompt")
        categories.append(Category.MANIPULATION.value)
    hold = hold_for(categories)
    return None if hold is None else hold.value


def store_turn(
    session: Session, payload: IngestPayload, outcome: ReplyOutcome, task_id: str | None, hold: str | None = None
) -> OutboxRecord:
    """The turn, its reply and everything that belongs with them, in the caller's transaction; ``hold`` is the
    guard's hold on the turn (``turn_hold``)."""
    settings = get_settings()
    say = outcome.say
    asked_to_forget = say is not None and say.ask == Ask.FORGET
    record, user, conversation = store_exchange(
        session,
        message_id=payload.message_id,
        user_id=payload.user_id,
        # a request to forget names what it forgets: its own words are not kept either
        text=FORGOTTEN_TEXT if asked_to_forget else payload.text,
        sent_at=payload.sent_at,
        external_conversation_id=payload.conversation_id,
        reply=outcome.reply,
        timeout=timedelta(seconds=settings.conversation_inactivity_timeout_s),
        user_defaults=new_user_defaults(settings),
        task_id=task_id,
        quarantine=hold,
        seen=seen_map.encode(outcome.seen) if outcome.seen else None,
    )
    session.info["external_conversation_id"] = conversation.external_id or ""  # for the publish: no query
    for direction, verdict in outcome.fires:
        log.info("boundary %s: %s/%s by %s", direction, verdict.category, verdict.route, verdict.matched)
        log_verdict(
            session,
            verdict,
            direction=direction,
            user_id=payload.user_id,
            message_id=payload.message_id,
            text=payload.text if settings.boundary_log_text else None,
        )
    given = disclose(
        record.text,
        payload.sent_at,
        disclosure_policy(settings),
        first_turn=conversation.turn_count == 1,
        ai_disclosed_at=user.ai_disclosed_at,
        is_minor=user.is_minor,
        conversation_started_at=conversation.started_at,
        break_reminded_at=user.break_reminded_at,
    )
    record.text, user.ai_disclosed_at, user.break_reminded_at = (
        given.text,
        given.ai_disclosed_at,
        given.break_reminded_at,
    )
    # a held turn's generated answer keeps no self-statements: they may repeat a planted instruction
    if outcome.self_statements and hold != Hold.MANIPULATION.value:
        add_entries(session, payload.user_id, utcnow(), outcome.self_statements, payload.message_id, outcome.made_by)
    named = named_pictures(outcome, hold)
    shown = show_unshown(session, payload.user_id, [n.entity for n in named], utcnow())  # drawn, not yet given
    if shown:
        record.images = json.dumps([image_reference(row) for row in shown], separators=(",", ":"))
    if say is not None and say.changes:
        session.flush()
        try:
            with session.begin_nested():  # a refusal undoes what the request had begun, not the turn
                session.info["forgetting"] = carry_out(session, payload, say)
        except Refused as exc:  # it changed since the answer was decided (a concurrent request, a supersession)
            log.warning("the user's memory request could not be carried out: %s", exc.code)
            record.text = NOT_CARRIED_OUT
    follow = follow_of(payload, outcome, hold)
    owed = owe(session, payload.user_id, payload.message_id, turn_effects(payload, follow, named), grace())
    memos = events.owe_memos(session, list(session.info.get("closed_conversations", [])))  # flushes
    session.info["owed_effects"] = [row for row in [owed, *memos] if row is not None]
    session.info["follow"] = follow
    return record


def grace() -> timedelta:
    return timedelta(seconds=get_settings().effects_grace_s)


def follow_of(payload: IngestPayload, outcome: ReplyOutcome, hold: str | None) -> dict[str, Any]:
    """What the turn's memory task is given besides the turn: its ``perception`` if the reply's call made one,
    and that call's ``provenance``; its ``quarantine``; under ``ledger``, what ``ella.extract_facts`` is given
    when the reply's call read the turn for facts (its ``statements``, the ids of the facts it was shown and its
    provenance). A memory request (``say``) is neither perceived nor read for facts."""
    if outcome.say is not None:
        return {"say": outcome.say.ask.value}
    made_by = outcome.made_by.columns() if outcome.made_by is not None and outcome.perception else None
    follow: dict[str, Any] = {"perception": outcome.perception, "provenance": made_by, "quarantine": hold}
    if outcome.memory_ids:  # the memories the reply used: their last access is marked with the turn's memory
        follow["accessed"] = {"ids": list(outcome.memory_ids), "at": datetime.now(UTC).isoformat()}
    if outcome.facts is not None and outcome.made_by is not None:  # the reply read the turn for facts
        read = {"statements": outcome.facts, "shown_ids": outcome.facts_shown, "provenance": outcome.made_by.columns()}
        follow["ledger"] = read
    return follow


def turn_effects(payload: IngestPayload, follow: dict[str, Any], named: list[images.Named]) -> list[Effect]:
    """What the committed turn owes under its message id: its memory and its facts (neither for a memory request;
    no facts from a turn the guard held) and the pictures its reply named. (The memo of a conversation it closed
    is owed under that conversation: forgetting this message must not take the memo with it.)"""
    owed: list[Effect] = []
    if named:  # Ella's own words named her door, her cat...: a first reference draws its picture
        prompts = {n.entity: n.prompt for n in named if n.prompt}
        owed.append(events.pictures_of(user_id=payload.user_id, entities=[n.entity for n in named], prompts=prompts))
    if "say" in follow:
        return owed
    turn: dict[str, Any] = {"user_id": payload.user_id, "message_id": payload.message_id, "text": payload.text}
    sent_at = payload.sent_at.isoformat()
    memory = {key: follow[key] for key in ("perception", "provenance", "quarantine")}
    if "accessed" in follow:
        memory["accessed"] = follow["accessed"]
    owed.append(events.memory_of_turn(**turn, sent_at=sent_at, **memory))
    if not follow.get("quarantine"):  # a held turn's words never reach extraction (ella.memory.quarantine)
        owed.append(events.facts_of_turn(**turn, sent_at=sent_at, **(follow.get("ledger") or {})))
    return owed


def carry_out(session: Session, payload: IngestPayload, say: SayDecision) -> Forgetting | None:
    """What the user asked in conversation, in the turn's transaction (``models.forgetting``: the code the
    gateway's requests and the operator's commands run too)."""
    embedder = shared_embedder()
    why = "the user asked in conversation"
    if say.correct is not None:
        fact_id, value = say.correct
        correct_fact(session, payload.user_id, fact_id, value, actor="user", reason="corrected by the user in "
                     "conversation", source_message_id=payload.message_id, request_id=payload.message_id)  # fmt: skip
        return None
    return forget_items(session, payload.user_id, nodes=say.forget_nodes, facts=say.forget_facts,
                        messages=say.forget_messages, embedder=embedder, actor="user", reason=why,
                        request_id=payload.message_id)  # fmt: skip


def wait_until(deadline: float) -> float:
    return max(0.0, deadline - time.monotonic())


def hold_in_inbox(payload: IngestPayload) -> None:
    """Tell the inbox sweep this message is being answered, so a slow model call is not re-sent meanwhile."""
    try:
        inbox.hold(get_redis(), payload.user_id, payload.message_id, get_settings().task_time_limit_s)
    except redis.RedisError as exc:  # only an optimisation: at worst the sweep re-sends and ingest dedups
        log.warning("could not hold message %s in the inbox: %s", payload.message_id, exc)


def ingest(
    payload: IngestPayload,
    task_id: str | None,
    final_attempt: bool = True,
    publish_by: float = 0.0,
    send: Callable[[list[PendingEffects]], list[int]] | None = None,
    opening: TurnOpening | None = None,
) -> tuple[str | None, dict[str, Any]]:
    """(the reply's stream id, what the turn owes: ``follow_of``'s description, and under ``owed`` the ids of
    the ``pending_effects`` rows its commit wrote, and under ``owed_rows`` the rows themselves).

    ``send``: sends the rows' effects and names the rows it sent (the task's: ``workers.effects.emit_rows``); it
    runs after the reply is on the stream, and the rows it sent are settled with the publish mark. Without it
    the caller sends ``owed_rows`` (``workers.effects.send_rows``).

    A repeat delivery of a stored turn publishes its reply if the stream lacks it and owes what its first
    delivery left unsent (``owed_by`` the message: nothing once it was sent).
    ``publish_by``: until when (``time.monotonic()``) a publish keeps retrying while Redis is unreachable.
    ``opening``: the message's opening read when the caller made it (the task does, to check the tombstone in it).
    """
    if opening is None:
        opening = opening_of(payload)  # the one read before the reply (``adapters.turn_context``)
    if opening.stored_by is not None:
        if opening.stored_by != payload.user_id:
            raise MalformedPayload(f"message_id {payload.message_id!r} was already used by another user")
        log.info("repeat delivery of message %s: publishing only", payload.message_id)
        return publish_stored_reply(payload.user_id, payload.message_id, wait_until(publish_by)), {"owed_by": True}
    hold_in_inbox(payload)
    outcome = answer(payload, final_attempt, opening=opening)
    if outcome.dead_letter_reason:
        reason, kwargs = outcome.dead_letter_reason, payload.model_dump(mode="json")
        record_dead_letter(TaskName.INGEST_MESSAGE, task_id, reason, [], kwargs)
    usage = held_usage_rows()
    hold = turn_hold(outcome, payload.text)
    draw_named_pictures(payload, outcome, hold, user_known=opening.known)
    try:
        with session_scope() as session:
            record = store_turn(session, payload, outcome, task_id, hold)
            write_usage(list(usage), session)  # the reply's model calls, in the same commit
            owed_rows = list(session.info.get("owed_effects", []))
            follow = {**session.info.get("follow", {}), "owed": [row.id for row in owed_rows], "owed_rows": owed_rows}
            forgetting = session.info.get("forgetting")
            external_id = session.info.get("external_conversation_id")
    except IntegrityError:
        found = stored_message(payload)
        if found is None:
            raise  # not a duplicate: a real integrity problem, let it fail loudly
        log.info("message %s was stored by a concurrent delivery", payload.message_id)
        # held usage rows are written when the task ends
        return publish_stored_reply(payload.user_id, payload.message_id, wait_until(publish_by)), {"owed_by": True}
    usage.clear()  # committed with the turn
    if "accessed" in follow:  # this process's cached recency moves now; the database's with the memory task
        memory_cache().touch(payload.user_id, outcome.memory_ids, datetime.fromisoformat(follow["accessed"]["at"]))
    metrics.turn(outcome.reply, outcome.fires)
    if forgetting is not None:
        forget_outside(payload.user_id, forgetting)
    # the turn's effects (``send``: the task's is ``workers.effects.emit_rows``) go once the reply is on the
    # stream, and are settled with the row's publish mark: one statement on PostgreSQL
    # (``models.pending_effects.mark_published``); without ``send`` the caller sends ``owed_rows``
    then = None if send is None else (lambda: send(owed_rows))
    return publish(record, wait_until(publish_by), external_id, then=then), follow


def named_pictures(outcome: ReplyOutcome, hold: str | None) -> list[images.Named]:
    """The pictures the reply's own statements name (``ella.world.images.pictured``): her door or cat, or a place
    or thing of her world she names ("the loch"). None for a turn held for manipulation: its statements are not
    kept (they may repeat a planted instruction) and are not drawn either."""
    if hold == Hold.MANIPULATION.value:
        return []
    return images.pictured(outcome.self_statements or [])


def draw_named_pictures(
    payload: IngestPayload, outcome: ReplyOutcome, hold: str | None = None, user_known: bool = False
) -> None:
    """Draw the pictures this reply names for the first time before the turn is stored, so the reply itself
    carries their references (``store_turn``'s ``show_unshown``), not the next reply that names them (issue 36:
    they used to be drawn by ``ella.draw_image_anchors`` after the commit, one reply late). A picture is drawn
    once ever (``adapters.images.get_or_create``), so this costs one indexed lookup per named entity after that.
    Outside any transaction: a render may take seconds. A brand-new user's row is made first when the reply's
    context did not make it (it does today: ``read_world``'s prepare), so their very first reply carries its
    picture too (``user_known``: the opening read saw the row, so no lookup). A failure never
    costs the user the reply: the turn still owes ``ella.draw_image_anchors``, which draws it, and a later reply
    naming it carries it."""
    named = named_pictures(outcome, hold)
    if not named:
        return
    try:
        if not user_known:  # the opening read saw no row: make sure of it (the context's load made it already)
            with session_scope() as session:
                if session.get(User, payload.user_id) is None:
                    touch_user(session, payload.user_id, payload.sent_at, new_user_defaults(get_settings()))
        draw_pictures(payload.user_id, named)
    except Exception as exc:  # noqa: BLE001  (any failure: the owed task draws it; the reply goes out regardless)
        log.warning("pictures of %s not drawn before the reply: %s", [n.entity for n in named], type(exc).__name__)


def release_from_inbox(kwargs: dict[str, Any], exc: BaseException) -> None:
    """A delivery that failed lets go of its message, so the inbox sweep may re-send it once PostgreSQL or Redis
    is back instead of waiting for this task's retry countdown; a message waiting out a model error's retry
    stays held (re-sending it would only call a failing model again)."""
    if isinstance(exc, TransientModelError):
        return
    try:
        inbox.release(get_redis(), str(kwargs.get("user_id")), str(kwargs.get("message_id")))
    except redis.RedisError:
        pass  # the hold expires after the task's time limit


class IngestTask(ReliableTask):
    def model_retries(self) -> int:
        """A user is waiting: fewer retries than background work before the fallback reply."""
        return get_settings().llm_live_max_retries


@app.task(name=TaskName.INGEST_MESSAGE, base=IngestTask, bind=True)
def ingest_message(self: IngestTask, *args: Any, **kwargs: Any) -> str | None:
    """Gateway contract: kwargs ``{message_id, user_id, text, sent_at, conversation_id?}``."""
    started = time.monotonic()
    settings = get_settings()
    try:
        payload = parse_ingest(args, kwargs, settings.max_message_chars)
        # the opening read also says whether the user was erased: an erased user's late message is refused here,
        # before anything else, as ``events.refuse_if_forgotten`` would (without a statement of its own)
        opening = opening_of(payload, events.tombstone_of(payload.user_id))
        if opening.forgotten:
            events.refuse_forgotten(self, payload.user_id, payload.message_id)
        with user_scope(payload.user_id):
            final = (self.request.retries or 0) >= self.model_retries()
            # wait for Redis no longer than the soft time limit allows (less a margin to finish the task)
            publish_by = min(
                time.monotonic() + settings.publish_retry_window_s, started + settings.task_soft_time_limit_s - 2
            )
            stream_id, follow = ingest(
                payload, self.request.id, final, publish_by, send=effects.emit_rows, opening=opening
            )
            metrics.reply_latency(started)
    except MalformedPayload:
        # dead-lettered: nothing to re-send (another user's entry under the same message_id stays)
        inbox.forget(get_redis(), kwargs.get("user_id"), kwargs.get("message_id"))
        raise
    except Exception as exc:
        release_from_inbox(kwargs, exc)
        raise
    if follow.get("owed_by"):  # a repeat: whatever its first delivery left unsent
        effects.send_owed_by(payload.user_id, payload.message_id)
    inbox.forget(get_redis(), payload.user_id, payload.message_id)
    return stream_id

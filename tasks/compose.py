"""How Ella's reply is composed: guarded in, generated from her context (or hand-written), guarded out.

The reply's context is the seed's: the world brief (ledger rows, canon first), Ella's recent first-person
statements (the self-log, framed as hers and not as facts), retrieved memories and the conversation. Nothing
here writes the turn: ``tasks.ingest`` stores what this returns in one transaction.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select

from ella.contract import IngestPayload
from ella.guard import Category, Route, Verdict, classify
from ella.guard.replies import DEFAULT_CRISIS_RESOURCES, SAFE_FALLBACK, canned_reply
from ella.ledger.brief import world_brief
from ella.llm.kinds import Reply as ReplyOutput
from ella.llm.types import PermanentModelError, TransientModelError
from ella.selflog import recent_thoughts
from models.ledger import world_facts
from models.memory import newest_thoughts, rank_nodes, user_nodes
from models.selflog import recent_entries
from models.turns import Reply, open_conversation_history
from models.user import User, touch_user
from tasks.memory import embedder
from workers.db import autocommit_scope, session_scope
from workers.dead_letters import record_dead_letter
from workers.llm import get_port
from workers.settings import Settings, get_settings

log = logging.getLogger(__name__)


def user_defaults(settings: Settings) -> dict[str, Any]:
    dnd = settings.window_minutes(settings.default_do_not_disturb)
    active = settings.window_minutes(settings.default_active_hours)
    return {
        "timezone": settings.default_timezone,
        "dnd_start_minute": dnd[0],
        "dnd_end_minute": dnd[1],
        "active_start_minute": active[0],
        "active_end_minute": active[1],
        "is_minor": False,
        "importance_trigger_curr": settings.importance_trigger_max,
        "importance_trigger_max": settings.importance_trigger_max,
    }


MEMORIES_IN_REPLY = 8


@dataclass(frozen=True)
class Composed:
    """A reply, the memories it drew on (their last access is set with the turn), the turn's perception and
    the reply's self-statements from the same call (None and empty when the reply is a fallback: a fail-safe
    is never a memory, nor something Ella said about herself)."""

    reply: Reply
    memory_ids: list[int]
    perception: dict[str, Any] | None
    self_statements: list[dict[str, Any]] = field(default_factory=list)
    fires: list[tuple[str, Verdict]] = field(default_factory=list)  # (direction, verdict) for the boundary log


@dataclass(frozen=True)
class ReplyContext:
    history: list[tuple[str, str]] = field(default_factory=list)
    nodes: list[Any] = field(default_factory=list)
    world_brief: str = ""
    recent_thoughts: str = ""


def reply_context(payload: IngestPayload, now: datetime) -> ReplyContext:
    """What the reply model is shown of this user: history, memory nodes, world brief, recent thoughts."""
    settings = get_settings()
    user_id = payload.user_id
    with session_scope() as session:  # a write transaction: a new world is anchored, the clock may tick
        touch_user(session, user_id, payload.sent_at, user_defaults(settings))
        brief = world_brief(world_facts(session, user_id, now), settings.world_brief_max_tokens)
    with autocommit_scope() as session:
        return ReplyContext(
            history=open_conversation_history(session, user_id),
            nodes=user_nodes(session, user_id),
            world_brief=brief,
            recent_thoughts=recent_thoughts(recent_entries(session, user_id, settings.selflog_in_reply)),
        )


def user_locale(user_id: str) -> str:
    with autocommit_scope() as session:
        return session.scalar(select(User.locale).where(User.id == user_id)) or "en_US"


def compose_reply(payload: IngestPayload, task_id: str | None, final_attempt: bool) -> Composed:
    """Ella's reply: guarded in, generated (or hand-written), guarded out.

    The inbound guard routes a boundary message to a hand-written reply with no model call. A generated reply
    that fires the outbound guard is replaced by a safe fallback (route ``fallback``; its perception and
    self-statements are dropped: the call that drifted is not trusted for memory either).
    """
    settings = get_settings()
    if settings.guard_enabled:
        inbound = classify(payload.text)
        if inbound.route != Route.GENERATE:
            resources = {**DEFAULT_CRISIS_RESOURCES, **settings.crisis_resources}
            text = canned_reply(
                inbound.route, inbound.category, payload.message_id, user_locale(payload.user_id), resources
            )
            category = "check_in" if inbound.route == Route.CHECK_IN else str(inbound.category)
            return Composed(Reply(text=text, route="canned", category=category), [], None, fires=[("inbound", inbound)])
    composed = generate_reply(payload, task_id, final_attempt)
    if settings.guard_enabled and composed.reply.route == "generated":
        outbound = classify(composed.reply.text, learned=False)  # the rules judge Ella's own words
        if outbound.category != Category.OK:
            log.warning("outbound drift: the generated reply fired %s (%s); the safe fallback was sent",
                        outbound.category, outbound.matched)  # fmt: skip
            fallback = Reply(text=SAFE_FALLBACK, route="fallback", category=str(outbound.category))
            return Composed(fallback, composed.memory_ids, None, fires=[("outbound", outbound)])
    return composed


def generate_reply(payload: IngestPayload, task_id: str | None, final_attempt: bool) -> Composed:
    """Ella's reply through the model port; the fallback text when the model fails for good.

    A transient model error propagates (the task retries) unless this is the last attempt. A fail-safe or a
    fallback goes out with route ``fallback``, so nothing downstream takes it for something Ella thought.
    """
    port = get_port()
    now = datetime.now(UTC)
    # The offline engine reads no context: skip the loading on its hot path.
    context = reply_context(payload, now) if port.provider.reads_context else ReplyContext()
    nodes = context.nodes
    memories = (
        rank_nodes(
            nodes,
            embedder().embed([payload.text])[0],
            payload.text,
            MEMORIES_IN_REPLY,
            now,
            get_settings().retrieval_weights,
        )
        if nodes
        else []
    )
    thoughts = newest_thoughts(nodes, 3, now)
    memory_ids = [node.id for node in memories]
    variables = {
        "name": payload.user_id,
        "message": payload.text,
        "memories": [node.description for node in memories],
        "reflections": " ".join(thoughts) or "(none yet)",
    }
    try:
        result = port.call(
            "reply",
            variables,
            user_id=payload.user_id,
            history=context.history,
            world_brief=context.world_brief,
            recent_thoughts=context.recent_thoughts,
        )
    except PermanentModelError as exc:
        reason = f"model refused the live reply (not retried; the fallback was sent): {exc}"
    except TransientModelError as exc:
        if not final_attempt:
            raise
        reason = f"model unavailable for the live reply after retries (the fallback was sent): {exc}"
    else:
        if result.failsafe:
            return Composed(Reply(text=result.value.reply, route="fallback"), memory_ids, None)
        value = result.value
        statements = [item.model_dump() for item in value.self_statements]
        return Composed(Reply(text=value.reply), memory_ids, value.perception.model_dump(), statements)
    record_dead_letter("ella.ingest_message", task_id, reason, [], payload.model_dump(mode="json"))
    return Composed(Reply(text=ReplyOutput.failsafe({}).reply, route="fallback"), memory_ids, None)

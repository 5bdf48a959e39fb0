"""``ella.perceive`` and ``ella.reflect``: the memory stream's tasks (the rules are in ``ella.memory``).

Each task loads what the rule needs, calls it, stores what it returns and emits the next event:
- perceive: ``ella.memory.perceive`` makes the node; the insert and the trigger drain share one transaction;
  when the trigger runs out, ``ella.reflect`` is emitted after the commit;
- reflect: ``ella.memory.reflection`` asks the model with no lock held on the database; one transaction then
  stores the thoughts and resets the counter, only if no other run reset it meanwhile.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from redis.lock import Lock
from sqlalchemy import select

from adapters.db import session_scope
from adapters.embedding_cache import shared_embedder
from adapters.llm import get_port
from adapters.redis_conn import get_redis
from adapters.settings import get_settings
from ella.memory.perceive import (
    DRAINS_TRIGGER,
    REPEAT_WINDOW,
    given_perception,
    held_description,
    is_repeat,
    node_type_of,
)
from ella.memory.perceive import perceive as perceive_observation
from ella.memory.quarantine import Hold, excluded
from ella.memory.reflection import FOCAL_INPUT
from ella.memory.reflection import reflect as reflect_on
from ella.provenance import Provenance
from models.forgetting import message_forgotten
from models.memory import (
    MemoryNode,
    drain_importance,
    insert_node,
    mark_accessed,
    recent_descriptions,
    recent_nodes,
    user_nodes,
)
from models.message import InboundMessage
from models.user import User
from workers import events
from workers.app import app
from workers.logs import user_scope
from workers.reliability import ReliableTask
from workers.routing import TaskName

log = logging.getLogger(__name__)


@app.task(name=TaskName.PERCEIVE, base=ReliableTask, bind=True)
def perceive(
    self: ReliableTask,
    user_id: str,
    description: str,
    node_type: str = "event",
    created_at: str | None = None,
    source_message_id: str | None = None,
    conversation_id: int | None = None,
    perception: dict[str, Any] | None = None,
    provenance: dict[str, Any] | None = None,
    quarantine: str | None = None,
    accessed: dict[str, Any] | None = None,
) -> int | None:
    """Store one observation (idempotent per source message); return the node id, or None if not stored.

    ``accessed``: the memories the turn's reply used (``{"ids": [...], "at": iso time}``), marked as used here,
    in this task's transaction, not on the reply's hot path (``tasks.ingest``); a mark never moves back, so a
    redelivery changes nothing.
    ``perception`` (poignancy and triple) comes with a user turn from the live reply's own call, and
    ``provenance`` says which call that was (``ella.provenance``); without it, or if it does not validate, one
    perception call makes it. ``quarantine``: the guard held the turn (``ella.memory.quarantine``): scored by
    rule with no call, and a manipulation turn drains no trigger.
    """
    kind = node_type_of(node_type)
    hold = Hold(quarantine).value if quarantine else None
    description = held_description(hold, user_id, description)
    dedupe_key = f"perceive:{source_message_id or self.request.id}"
    with user_scope(user_id):
        with session_scope() as session:
            if accessed and accessed.get("ids"):
                at = datetime.fromisoformat(str(accessed["at"]))
                mark_accessed(session, [int(i) for i in accessed["ids"]], at, user_id=user_id)
            if conversation_id is None and source_message_id:
                conversation_id = session.scalar(
                    select(InboundMessage.conversation_id).where(InboundMessage.message_id == source_message_id)
                )
            if is_repeat(description, recent_descriptions(session, user_id, kind, REPEAT_WINDOW)):
                log.info("a repeat of a recent observation: not stored")
                return None
            if (
                session.scalar(
                    select(MemoryNode.id).where(MemoryNode.user_id == user_id, MemoryNode.dedupe_key == dedupe_key)
                )
                is not None
            ):
                return None  # a redelivery: stored before, and no model call to repeat
        draft = perceive_observation(
            get_port(),
            shared_embedder(),
            user_id=user_id,
            description=description,
            node_type=kind,
            at=datetime.fromisoformat(created_at) if created_at else datetime.now().astimezone(),
            dedupe_key=dedupe_key,
            given=given_perception(perception),
            given_by=Provenance.from_payload(provenance),
            source_message_id=source_message_id,
            conversation_id=conversation_id,
            quarantine=hold,
        )
        if draft is None:
            return None  # a fail-safe never becomes a memory (an event is stored unrated instead)
        remaining = None
        with session_scope() as session:
            if message_forgotten(session, user_id, source_message_id):
                log.info("the message was forgotten at the user's request meanwhile: not stored")
                return None
            node_id = insert_node(session, draft.columns())
            if node_id is not None and DRAINS_TRIGGER[kind] and not excluded(draft.quarantine):
                remaining = drain_importance(session, user_id, draft.poignancy)
                log.info("perceived node %s (poignancy %s); trigger now %s", node_id, draft.poignancy, remaining)
        if remaining is not None and remaining <= 0:
            events.trigger_ran_out(user_id)  # after the commit
        return node_id


def reflection_lock(user_id: str) -> Lock:
    """One reflection per user at a time, across workers."""
    settings = get_settings()
    return get_redis().lock(
        f"{settings.redis_key_prefix}:reflect:{user_id}", timeout=settings.task_time_limit_s, blocking=False
    )


@app.task(name=TaskName.REFLECT, base=ReliableTask, bind=True)
def reflect(self: ReliableTask, user_id: str) -> int:
    """Reflect when the user's trigger has run out; the number of thoughts stored.

    Never two at once per user (a Redis lock), and the final transaction re-checks the counter under the
    user's row lock: a redelivered or concurrent reflection that finds it already reset stores nothing.
    Model calls happen before that transaction, so no lock is held while Claude thinks.
    """
    lock = reflection_lock(user_id)
    if not lock.acquire():
        log.info("a reflection for %s is already running", user_id)
        return 0
    try:
        with user_scope(user_id):
            return _reflect(user_id, self.request.id or "direct")
    finally:
        lock.release()


def _reflect(user_id: str, run_id: str) -> int:
    now = datetime.now().astimezone()
    with session_scope() as session:
        user = session.get(User, user_id)
        if user is None or user.importance_trigger_curr > 0:
            return 0
        recent = [n.description for n in recent_nodes(session, user_id, FOCAL_INPUT)]
        nodes = user_nodes(session, user_id, ("event", "thought"))  # loaded once for every focal point
    reflection = reflect_on(
        get_port(),
        shared_embedder(),
        user_id=user_id,
        recent_newest_first=recent,
        nodes=nodes,
        now=now,
        weights=get_settings().retrieval_weights,
        run_id=run_id,
    )
    if reflection is None:
        return 0
    with session_scope() as session:
        user = session.scalars(select(User).where(User.id == user_id).with_for_update()).one()
        if user.importance_trigger_curr > 0:
            return 0  # another run reflected and reset the counter meanwhile
        stored = [node_id for d in reflection.thoughts if (node_id := insert_node(session, d.columns())) is not None]
        mark_accessed(session, sorted(reflection.accessed), now, user_id)
        user.importance_trigger_curr = user.importance_trigger_max
    log.info("reflected: %d thoughts; trigger reset", len(stored))
    return len(stored)

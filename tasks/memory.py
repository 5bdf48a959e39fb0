"""``ella.perceive``: an observation becomes a memory node with its triple, embedding and poignancy.

Which nodes drain the reflection trigger, and why: events (what the user says and does) and chats count, as in
Generative Agents' perceive step, because they are new information about the user. Thoughts do not: a
reflection's own thoughts counting towards the next reflection would let Ella reflect on her reflections
without hearing anything new.
"""

from __future__ import annotations

import json
import logging
import re
from datetime import datetime, timedelta
from typing import Any

import numpy as np
from sqlalchemy import select

from ella.embeddings import HashingEmbedder
from ella.llm.kinds import Perception
from ella.memory.retrieval import tokenize
from models.memory import MemoryNode, drain_importance, insert_node, recent_descriptions
from models.message import InboundMessage
from workers.app import app
from workers.db import session_scope
from workers.embedding_cache import CachedEmbedder
from workers.llm import get_port
from workers.logs import user_scope
from workers.reliability import ReliableTask
from workers.settings import get_settings

log = logging.getLogger(__name__)

DRAINS_TRIGGER = {"event": True, "chat": True, "thought": False}
REPEAT_WINDOW = 5  # a repeat of one of the last few observations is not stored again
IDLE = re.compile(r"\bis idle\b|^\s*(idle|\.\.\.|…)?\s*$", re.IGNORECASE)
_embedder: CachedEmbedder | None = None


def embedder() -> CachedEmbedder:
    global _embedder
    if _embedder is None:
        _embedder = CachedEmbedder(HashingEmbedder())
    return _embedder


def given_perception(perception: dict[str, Any] | None) -> Perception | None:
    """A perception that came with the task, if it validates (a payload is never trusted blindly)."""
    if not perception:
        return None
    try:
        return Perception.model_validate(perception)
    except ValueError:
        log.warning("a perception that came with the task did not validate: a model call makes it")
        return None


def keywords(*parts: str) -> list[str]:
    """The triple's terms as retrieval's BM25 sees them (stemmed, stop words dropped)."""
    return sorted(set(tokenize(" ".join(parts))))[:20]


@app.task(name="ella.perceive", base=ReliableTask, bind=True)
def perceive(
    self: ReliableTask,
    user_id: str,
    description: str,
    node_type: str = "event",
    created_at: str | None = None,
    source_message_id: str | None = None,
    conversation_id: int | None = None,
    perception: dict[str, Any] | None = None,
) -> int | None:
    """Store one observation (idempotent per source message); return the node id, or None if not stored.

    ``perception`` (poignancy and triple) comes with a user turn from the live reply's own call; without it,
    or if it does not validate, one perception call makes it.
    """
    if node_type not in DRAINS_TRIGGER:
        raise ValueError(f"unknown node type {node_type!r}")
    with user_scope(user_id):
        at = datetime.fromisoformat(created_at) if created_at else datetime.now().astimezone()
        with session_scope() as session:
            if conversation_id is None and source_message_id:
                conversation_id = session.scalar(
                    select(InboundMessage.conversation_id).where(InboundMessage.message_id == source_message_id)
                )
            if description in recent_descriptions(session, user_id, node_type, REPEAT_WINDOW):
                log.info("a repeat of a recent observation: not stored")
                return None
        dedupe_key = f"perceive:{source_message_id or self.request.id}"
        with session_scope() as session:
            if session.scalar(select(MemoryNode.id).where(MemoryNode.dedupe_key == dedupe_key)) is not None:
                return None  # a redelivery: stored before, and no model call to repeat
        given = given_perception(perception)
        if IDLE.search(description):
            # The reference's rule: an idle observation is as mundane as it gets; no model call for it.
            score, triple = 1, (user_id, "is", "idle")
        elif given is not None:
            score, triple = given.score, (given.subject, given.predicate, given.object)
        else:
            result = get_port().call("perception", {"name": user_id, "event": description}, user_id=user_id)
            if result.failsafe:
                log.warning("perception failed (%s): the observation is not stored", result.error[:200])
                return None  # a fail-safe never becomes a memory
            value = result.value
            score, triple = value.score, (value.subject, value.predicate, value.object)
        vector = np.asarray(embedder().embed([description])[0], dtype=np.float32)
        values: dict[str, Any] = {
            "user_id": user_id,
            "node_type": node_type,
            "created_at": at,
            "last_accessed_at": at,
            "subject": triple[0][:200],
            "predicate": triple[1][:120],
            "object": triple[2][:400],
            "description": description,
            "embedding": vector.tobytes(),
            "embedding_model": embedder().model_id,
            "poignancy": score,
            "keywords": json.dumps(keywords(*triple)),
            "depth": 0,
            "evidence": "[]",
            "source_message_id": source_message_id,
            "conversation_id": conversation_id,
            "expires_at": None if node_type != "thought" else at + timedelta(days=30),
            "dedupe_key": dedupe_key,
        }
        remaining = None
        with session_scope() as session:
            node_id = insert_node(session, values)
            if node_id is not None and DRAINS_TRIGGER[node_type]:
                remaining = drain_importance(session, user_id, score)
                log.info("perceived node %s (poignancy %s); trigger now %s", node_id, score, remaining)
        if remaining is not None and remaining <= 0:
            reflect.apply_async(kwargs={"user_id": user_id})  # after the commit; the task dedupes itself
        return node_id


THOUGHT_TTL = timedelta(days=30)
FOCAL_POINTS = 3
FOCAL_INPUT = 100  # the paper's 100 most recent events and thoughts (the reference took importance_ele_n)
RETRIEVE_PER_FOCAL = 30
INSIGHTS_PER_FOCAL = 5


def thought_row(
    user_id: str,
    description: str,
    evidence: list[Any],
    depth: int,
    at: datetime,
    dedupe_key: str,
    conversation_id: int | None = None,
    perception: dict[str, Any] | None = None,
) -> dict[str, Any] | None:
    """A thought node's columns; triple and poignancy as given, else from one perception call (None on a
    fail-safe)."""
    value = given_perception(perception)
    if value is None:
        result = get_port().call("perception", {"name": user_id, "event": description}, user_id=user_id)
        if result.failsafe:
            log.warning("perception of a thought failed (%s): not stored", result.error[:200])
            return None
        value = result.value
    vector = np.asarray(embedder().embed([description])[0], dtype=np.float32)
    return {
        "user_id": user_id,
        "node_type": "thought",
        "created_at": at,
        "last_accessed_at": at,
        "expires_at": at + THOUGHT_TTL,
        "subject": value.subject[:200],
        "predicate": value.predicate[:120],
        "object": value.object[:400],
        "description": description,
        "embedding": vector.tobytes(),
        "embedding_model": embedder().model_id,
        "poignancy": value.score,
        "keywords": json.dumps(keywords(value.subject, value.predicate, value.object)),
        "depth": depth,
        "evidence": json.dumps(evidence),
        "conversation_id": conversation_id,
        "dedupe_key": dedupe_key,
    }


def reflection_lock(user_id: str) -> Any:
    from workers.redis_conn import get_redis
    from workers.settings import get_settings

    settings = get_settings()
    return get_redis().lock(
        f"{settings.redis_key_prefix}:reflect:{user_id}", timeout=settings.task_time_limit_s, blocking=False
    )


@app.task(name="ella.reflect", base=ReliableTask, bind=True)
def reflect(self: ReliableTask, user_id: str) -> int:
    """Focal points -> retrieval -> insights with evidence -> thoughts, committed with the counter reset.

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
    from models.memory import mark_accessed, rank_nodes, recent_nodes, user_nodes
    from models.user import User

    now = datetime.now().astimezone()
    with session_scope() as session:
        user = session.get(User, user_id)
        if user is None or user.importance_trigger_curr > 0:
            return 0
        recent = [n.description for n in recent_nodes(session, user_id, FOCAL_INPUT)]
        nodes = user_nodes(session, user_id, ("event", "thought"))  # loaded once for every focal point
    if not recent:
        return 0
    port = get_port()
    focal = port.call("focal_points", {"name": user_id, "statements": recent[::-1], "n": FOCAL_POINTS}, user_id=user_id)
    if focal.failsafe:
        log.warning("focal points failed (%s): no reflection this time", focal.error[:200])
        return 0
    questions = focal.value.questions[:FOCAL_POINTS]
    vectors = embedder().embed(questions)  # one batch
    rows: list[dict[str, Any]] = []
    accessed: set[int] = set()
    for f_index, (question, vector) in enumerate(zip(questions, vectors, strict=True)):
        found = rank_nodes(nodes, vector, question, RETRIEVE_PER_FOCAL, now, get_settings().retrieval_weights)
        for node in found:  # as if read back after a touch: the next focal point sees these as just accessed
            node.last_accessed_at = now
        accessed.update(node.id for node in found)
        statements = [(n.id, n.description, n.depth) for n in found]
        if not statements:
            continue
        result = port.call(
            "insights",
            {"name": user_id, "focal_point": question, "statements": [text for _, text, _ in statements]},
            user_id=user_id,
            context={"statement_count": len(statements)},
        )
        if result.failsafe:
            log.warning("insights failed for %r (%s): skipped", question, result.error[:200])
            continue
        for i_index, insight in enumerate(result.value.insights[:INSIGHTS_PER_FOCAL]):
            cited = [statements[number - 1] for number in insight.evidence]  # 1-based, checked by the schema
            row = thought_row(
                user_id,
                insight.text,
                [node_id for node_id, _, _ in cited],
                1 + max(depth for _, _, depth in cited),
                now,
                f"reflect:{run_id}:{f_index}:{i_index}",
                perception=insight.perception.model_dump(),  # asked for with the insight: no extra call
            )
            if row is not None:
                rows.append(row)
    with session_scope() as session:
        user = session.scalars(select(User).where(User.id == user_id).with_for_update()).one()
        if user.importance_trigger_curr > 0:
            return 0  # another run reflected and reset the counter meanwhile
        stored = [node_id for row in rows if (node_id := insert_node(session, row)) is not None]
        mark_accessed(session, sorted(accessed), now)
        user.importance_trigger_curr = user.importance_trigger_max
    log.info("reflected: %d thoughts; trigger reset", len(stored))
    return len(stored)


@app.task(name="ella.close_conversation", base=ReliableTask, bind=True)
def close_conversation(self: ReliableTask, conversation_id: int) -> int:
    """A closed conversation becomes a chat node plus a memo thought and a planning thought citing it."""
    from models.conversation import Conversation
    from models.memory import MemoryNode
    from models.turns import conversation_transcript

    with session_scope() as session:
        conv = session.get(Conversation, conversation_id)
        if conv is None or conv.closed_at is None:
            return 0
        user_id, closed_at = conv.user_id, conv.closed_at
        done = session.scalar(select(MemoryNode.id).where(MemoryNode.dedupe_key == f"memo:{conversation_id}"))
        transcript = conversation_transcript(session, conversation_id, user_id)
        turn_poignancy = session.scalars(
            select(MemoryNode.poignancy).where(MemoryNode.conversation_id == conversation_id)
        ).all()
    if done is not None or not transcript:
        return 0
    with user_scope(user_id):
        port = get_port()
        memo = port.call("memo", {"name": user_id, "transcript": transcript}, user_id=user_id)
        plan = port.call("planning_thought", {"name": user_id, "transcript": transcript}, user_id=user_id)
        summary = f"Ella and {user_id} talked: " + " / ".join(transcript)[:600]
        vector = np.asarray(embedder().embed([summary])[0], dtype=np.float32)
        chat = {
            "user_id": user_id,
            "node_type": "chat",
            "created_at": closed_at,
            "last_accessed_at": closed_at,
            "subject": "Ella",
            "predicate": "chatted with",
            "object": user_id,
            "description": summary,
            "embedding": vector.tobytes(),
            "embedding_model": embedder().model_id,
            # The turns were already perceived (and drained the trigger): the chat node adds no drain.
            "poignancy": max(turn_poignancy, default=1),
            "keywords": "[]",
            "depth": 0,
            "evidence": json.dumps(transcript),
            "conversation_id": conversation_id,
            "dedupe_key": f"chat:{conversation_id}",
        }
        with session_scope() as session:
            chat_id = insert_node(session, chat) or session.scalar(
                select(MemoryNode.id).where(MemoryNode.dedupe_key == f"chat:{conversation_id}")
            )
        thoughts = []
        if not memo.failsafe:
            thoughts.append(
                thought_row(
                    user_id,
                    f"Ella {memo.value.memo}",
                    [chat_id],
                    1,
                    closed_at,
                    f"memo:{conversation_id}",
                    conversation_id,
                    perception=memo.value.perception.model_dump(),  # asked for with it: no extra call
                )
            )
        if not plan.failsafe:
            thoughts.append(
                thought_row(
                    user_id,
                    f"For Ella's planning: {plan.value.plan}",
                    [chat_id],
                    1,
                    closed_at,
                    f"plan:{conversation_id}",
                    conversation_id,
                    perception=plan.value.perception.model_dump(),  # asked for with it: no extra call
                )
            )
        with session_scope() as session:
            stored = [node_id for row in thoughts if row and (node_id := insert_node(session, row)) is not None]
        return len(stored)

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

from ella.embeddings import HashingEmbedder
from models.memory import drain_importance, insert_node, recent_descriptions
from workers.app import app
from workers.db import session_scope
from workers.embedding_cache import CachedEmbedder
from workers.llm import get_port
from workers.logs import user_scope
from workers.reliability import ReliableTask

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


def keywords(*parts: str) -> list[str]:
    return sorted({w.lower() for part in parts for w in re.findall(r"[A-Za-z][\w'-]{2,}", part)})[:20]


@app.task(name="ella.perceive", base=ReliableTask, bind=True)
def perceive(
    self: ReliableTask,
    user_id: str,
    description: str,
    node_type: str = "event",
    created_at: str | None = None,
    source_message_id: str | None = None,
    conversation_id: int | None = None,
) -> int | None:
    """Store one observation (idempotent per source message); return the node id, or None if not stored."""
    if node_type not in DRAINS_TRIGGER:
        raise ValueError(f"unknown node type {node_type!r}")
    with user_scope(user_id):
        at = datetime.fromisoformat(created_at) if created_at else datetime.now().astimezone()
        with session_scope() as session:
            if description in recent_descriptions(session, user_id, node_type, REPEAT_WINDOW):
                log.info("a repeat of a recent observation: not stored")
                return None
        if IDLE.search(description):
            # The reference's rule: an idle observation is as mundane as it gets; no model call for it.
            score, triple = 1, (user_id, "is", "idle")
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
            "dedupe_key": f"perceive:{source_message_id or self.request.id}",
        }
        with session_scope() as session:
            node_id = insert_node(session, values)
            if node_id is not None and DRAINS_TRIGGER[node_type]:
                remaining = drain_importance(session, user_id, score)
                log.info("perceived node %s (poignancy %s); trigger now %s", node_id, score, remaining)
        return node_id

"""A forget's part outside the database: the outbox stream's entries, the embedding cache, this process's
retrieval cache. Run after the transaction that forgot (``models.forgetting``) commits.

Why after and not before: until the commit nothing is forgotten, and a rolled-back forget must not have deleted
the user's stream entries. What it cannot reach: the gateway's own copy of an entry it already read (the stream
is a delivery channel; the gateway keeps its history), and other worker processes' in-memory embedding LRU
(bounded, aging out); their retrieval caches rebuild the user's index because the user's ``memory_epoch`` moved.
A Redis that is down leaves entries behind: they are logged with their count, never their words, and the next
forget of the user or an erasure removes them (stream entries are also trimmed by ``MAXLEN``).
"""

from __future__ import annotations

import logging

import redis

from adapters.embedding_cache import shared_embedder
from adapters.memory_cache import memory_cache
from adapters.outbox_stream import delete_entries
from adapters.redis_conn import get_redis
from adapters.settings import get_settings
from models.forgetting import Forgetting

log = logging.getLogger(__name__)


def forget_outside(user_id: str, done: Forgetting) -> dict[str, int]:
    """Remove what ``done`` names from the stores outside the database; counts per store."""
    memory_cache().drop(user_id)
    counts = {"stream": 0, "embeddings": 0}
    try:
        if done.stream_ids:
            stream = get_settings().outbox_stream
            counts["stream"] = delete_entries(get_redis(), stream, sorted(done.stream_ids))
        counts["embeddings"] = shared_embedder().forget(done.texts)
    except redis.RedisError as exc:
        log.warning("a forget could not reach Redis (%d stream entries, %d cached texts left): %s",
                    len(done.stream_ids), len(done.texts), type(exc).__name__)  # fmt: skip
    return counts

"""A two-level cache in front of any embedder: an in-process LRU, then Redis shared by all workers.

Why: memories and queries are embedded again and again (every retrieval re-reads the same memories, every
worker child starts cold), and a sentence model costs milliseconds per text. A cached vector is exactly the
vector the model would give, so the cache never changes results; and it is only a cache, so when Redis is
down the texts are embedded again and the caller never sees the outage.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable, Sequence

import numpy as np
import redis

from adapters.settings import get_settings
from ella.embeddings import Embedder, make_embedder

log = logging.getLogger(__name__)

DEFAULT_TTL_S = 30 * 24 * 3600
REDIS_RETRY_AFTER_S = 10.0  # after a Redis error, skip Redis this long instead of waiting on it every call


def binary_client(client: redis.Redis) -> redis.Redis:
    """A client on the same server that returns raw bytes: vectors are float32 bytes, not UTF-8 text.

    The process-wide client (``adapters.redis_conn.get_redis``) decodes responses; this one shares its
    connection settings (host or unix socket, password, db, timeouts) with decoding turned off.
    """
    pool = client.connection_pool
    if not pool.connection_kwargs.get("decode_responses"):
        return client
    kwargs = {**pool.connection_kwargs, "decode_responses": False}
    return redis.Redis(connection_pool=redis.ConnectionPool(connection_class=pool.connection_class, **kwargs))


class CachedEmbedder:
    """An ``Embedder`` that asks its inner embedder only for texts that neither cache level holds.

    Per call: look each distinct text up in the local LRU, fetch the rest with one ``MGET``, embed what is
    still missing with ONE batched ``embed`` call, and write those back with one pipelined ``SET … EX``.
    The counters count distinct texts per call: ``hits_local`` + ``hits_redis`` + ``computed`` is the number
    of distinct texts ever asked for (a text twice in one batch counts once).
    """

    def __init__(
        self,
        embedder: Embedder,
        redis_client: redis.Redis | None = None,
        ttl_s: int = DEFAULT_TTL_S,
        local_size: int = 4096,
        key_prefix: str | None = None,
    ) -> None:
        if redis_client is None:
            from adapters.redis_conn import get_redis

            redis_client = get_redis()
        self.inner = embedder
        self.model_id = embedder.model_id
        self.dim = embedder.dim
        self.ttl_s = int(ttl_s)
        self.local_size = int(local_size)
        prefix = key_prefix if key_prefix is not None else get_settings().redis_key_prefix
        self._key_base = f"{prefix}:emb:{self.model_id}:"
        self._redis = binary_client(redis_client)
        self._local: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self._redis_skip_until = 0.0
        self.hits_local = 0
        self.hits_redis = 0
        self.computed = 0

    def __repr__(self) -> str:
        return f"CachedEmbedder({self.inner!r})"

    def key(self, text: str) -> str:
        """The Redis key of ``text``'s vector: prefix, model id and the SHA-256 of the UTF-8 text."""
        return self._key_base + _digest(text)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts, not one str")
        digests = [_digest(t) for t in texts]
        found: dict[str, np.ndarray] = {}
        wanted: dict[str, str] = {}  # digest -> text, distinct, in first-seen order
        with self._lock:
            for digest, text in zip(digests, texts, strict=True):
                if digest in found or digest in wanted:
                    continue
                vector = self._local.get(digest)
                if vector is None:
                    wanted[digest] = text
                else:
                    self._local.move_to_end(digest)
                    found[digest] = vector
                    self.hits_local += 1
        if wanted:
            from_redis = self._read_redis(list(wanted))
            with self._lock:
                self.hits_redis += len(from_redis)
            found.update(from_redis)
            missing = [d for d in wanted if d not in from_redis]
            if missing:
                computed = self._compute([wanted[d] for d in missing])
                fresh = dict(zip(missing, computed, strict=True))
                with self._lock:
                    self.computed += len(fresh)
                found.update(fresh)
                self._write_redis(fresh)
            self._remember({d: found[d] for d in wanted})
        if not digests:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([found[d] for d in digests]).astype(np.float32, copy=False)

    def forget(self, texts: Iterable[str]) -> int:
        """Drop the vectors of ``texts`` from this process and from Redis (a forgotten memory's words: a hashed
        n-gram vector gives them back). Other processes' in-memory copies age out of their LRU; Redis is the
        shared level. Entries removed from Redis."""
        digests = {_digest(t) for t in texts}
        with self._lock:
            for digest in digests:
                self._local.pop(digest, None)
        if not digests:
            return 0
        return int(self._redis.delete(*(self._key_base + d for d in digests)))

    def _compute(self, texts: list[str]) -> list[np.ndarray]:
        vectors = np.asarray(self.inner.embed(texts), dtype=np.float32)
        if vectors.shape != (len(texts), self.dim):
            raise ValueError(f"{self.inner!r} returned shape {vectors.shape}, expected ({len(texts)}, {self.dim})")
        return [_frozen(v) for v in vectors]

    def _remember(self, vectors: dict[str, np.ndarray]) -> None:
        if self.local_size <= 0:
            return
        with self._lock:
            for digest, vector in vectors.items():
                self._local[digest] = vector
                self._local.move_to_end(digest)
            while len(self._local) > self.local_size:
                self._local.popitem(last=False)

    def _redis_usable(self) -> bool:
        return time.monotonic() >= self._redis_skip_until

    def _redis_failed(self, what: str, exc: redis.RedisError) -> None:
        self._redis_skip_until = time.monotonic() + REDIS_RETRY_AFTER_S
        log.warning(
            "embedding cache: Redis %s failed (%s: %s); embedding without it for %.0fs",
            what,
            type(exc).__name__,
            exc,
            REDIS_RETRY_AFTER_S,
        )

    def _read_redis(self, digests: list[str]) -> dict[str, np.ndarray]:
        if not self._redis_usable():
            return {}
        try:
            values = self._redis.mget([self._key_base + d for d in digests])
        except redis.RedisError as exc:
            self._redis_failed("read", exc)
            return {}
        size = self.dim * 4
        return {
            d: _frozen(np.frombuffer(v, dtype="<f4"))
            for d, v in zip(digests, values, strict=True)
            if isinstance(v, bytes) and len(v) == size  # anything else (another dim, damage) is a miss
        }

    def _write_redis(self, vectors: dict[str, np.ndarray]) -> None:
        if not self._redis_usable():
            return
        try:
            pipe = self._redis.pipeline(transaction=False)
            for digest, vector in vectors.items():
                pipe.set(self._key_base + digest, vector.astype("<f4").tobytes(), ex=self.ttl_s)
            pipe.execute()
        except redis.RedisError as exc:
            self._redis_failed("write", exc)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _frozen(vector: np.ndarray) -> np.ndarray:
    """A read-only float32 copy: cached vectors are shared between calls and must not be changed in place."""
    out = np.array(vector, dtype=np.float32)
    out.setflags(write=False)
    return out


_shared: tuple[int, CachedEmbedder] | None = None
_shared_lock = threading.Lock()


def shared_embedder() -> CachedEmbedder:
    """This process's embedder (``ELLA_EMBEDDER``: hashing by default) behind both cache levels, made on first use.

    Per process, like the model port: a forked worker child makes its own rather than sharing its parent's
    Redis connections.
    """
    global _shared
    with _shared_lock:
        if _shared is None or _shared[0] != os.getpid():
            _shared = (os.getpid(), CachedEmbedder(make_embedder(get_settings().embedder)))
        return _shared[1]


def share_with_the_guard() -> None:
    """Hand this process's cached embedder to ``ella.sentence`` when it is the same encoder, so the vector the
    guard and the readers compute for a message is the one its memory node stores (one encoder pass a message).
    With another memory embedder (``ELLA_EMBEDDER=hashing`` in tests) the guard keeps the plain encoder."""
    from ella import sentence

    if get_settings().embedder.strip().lower() == "multilingual":
        sentence.use(shared_embedder)
    else:
        sentence.reset()

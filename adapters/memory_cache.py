"""The per-process cache of users' memory streams that retrieval ranks: up to date with one indexed query.

Why: without it every reply loaded all of a user's nodes as ORM objects and rebuilt the matrix and the BM25
index from them: seconds at 100,000 memories. The stream is append-only (only the last access changes, and
only erasure deletes all of a user's nodes at once; a forget of one memory raises the user's ``memory_epoch``,
and a moved epoch rebuilds the index), so a cached index is brought up to date instead of rebuilt: per call,
one query for the user's newest node id (the cache key), the nodes accessed since the newest
access seen (a minute of overlap, for touches committed late by another worker) and the nodes after the cached
newest one. A newest id below the cached one (the user was erased, the ids went back)
drops the entry and rebuilds it. An index holding vectors of another model (an embedder change, re-embedded in the
background by ``ella.reembed_memories``) is rebuilt after ``FOREIGN_TTL_S``, so it picks up the new vectors.

Other workers' touches (the last access of the memories their replies used) only move recency, a soft signal
that decays over hours, and since migration 0023 ``last_accessed_at`` is in no index (touches are HOT updates), so
reading them scans the user's rows of their partition. They are read at most every ``memory_touch_refresh_s``
(300 s) per user; in between, a warm check is an index range for the new nodes, and this process's own touches
move its cached recency at once (``touch``).

Memory is bounded: least recently used users are dropped until the cached memories fit ``memory_cache_rows``
(about 2.9 KB per memory with the 512-dimension hashing embedder, traced at 100,000; the rows are kept without
their vectors). Per process: a forked worker child starts empty.
"""

from __future__ import annotations

import logging
import math
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from adapters.settings import get_settings
from ella.embeddings import Embedder
from ella.memory.retrieval import NodeIndex, NodeRow
from models.memory import current_epoch, node_rows, stream_changes

log = logging.getLogger(__name__)

TOUCH_OVERLAP = timedelta(minutes=1)
FOREIGN_TTL_S = 300.0


class MemoryCache:
    """user id -> :class:`NodeIndex`, least recently used first out, bounded by the memories held."""

    def __init__(
        self, max_rows: int, touch_refresh_s: float = 0.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.max_rows = max_rows
        self.touch_refresh_s = touch_refresh_s
        self._clock = clock
        self._entries: OrderedDict[str, tuple[NodeIndex, float]] = OrderedDict()  # index, built at (monotonic)
        self._touches_read: dict[str, float] = {}  # user id -> when other workers' touches were last read
        self._lock = threading.Lock()
        self.hits = 0
        self.builds = 0

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def rows(self) -> int:
        return sum(index.__len__() for index, _ in self._entries.values())

    def index_of(self, user_id: str) -> NodeIndex | None:
        """The cached index of ``user_id`` as it is (not brought up to date), or None."""
        with self._lock:
            entry = self._entries.get(user_id)
        return None if entry is None else entry[0]

    def drop(self, user_id: str) -> None:
        with self._lock:
            self._entries.pop(user_id, None)
            self._touches_read.pop(user_id, None)

    def touch(self, user_id: str, node_ids: Sequence[int], at: datetime) -> None:
        """This process's reply used these memories: its cached recency moves now (the database's marks come with
        the turn's memory task, and other processes read them within ``touch_refresh_s``)."""
        index = self.index_of(user_id)
        if index is not None and node_ids:
            index.touch([(node_id, at) for node_id in node_ids], read=False)

    def index(self, session: Session, user_id: str, embedder: Embedder) -> NodeIndex:
        """The user's stream, up to date with the database as ``session`` sees it."""
        with self._lock:
            entry = self._entries.get(user_id)
            if entry is not None:
                self._entries.move_to_end(user_id)
        index, built_at = (None, 0.0) if entry is None else entry
        if index is not None and (
            index.model_id != embedder.model_id or (index.foreign and time.monotonic() - built_at > FOREIGN_TTL_S)
        ):
            index = None
        newest: int | None = None
        touched: list[tuple[int, datetime]] = []
        new_rows: list[NodeRow] = []
        epoch = 0
        if index is not None:
            since = None if index.accessed_mark is None else index.accessed_mark - TOUCH_OVERLAP
            now = self._clock()
            if now - self._touches_read.get(user_id, -math.inf) < self.touch_refresh_s:
                since = None  # other workers' touches were read recently: the new nodes only (an index range)
            elif since is not None:
                self._touches_read[user_id] = now
            newest, touched, epoch, new_rows = stream_changes(session, user_id, since, index.newest_id)
            # no nodes and none cached (a new user before their first memory): nothing to rebuild; an erased
            # user's cached nodes (no nodes now, ids gone back) are dropped, and so is a stream a forget of one
            # memory changed in the middle (its epoch moved)
            if (
                (newest is None and len(index) > 0)
                or (newest is not None and newest < index.newest_id)
                or (newest is not None and epoch != index.epoch)
            ):
                index = None
        if index is None:
            index = NodeIndex(embedder.model_id, embedder.dim)
            index.epoch = current_epoch(session, user_id) if newest is None else epoch
            index.extend(node_rows(session, user_id))
            built_at = time.monotonic()
            self._touches_read[user_id] = self._clock()
            self.builds += 1
            log.debug("memory cache: built %s's stream (%d memories)", user_id, len(index))
        else:
            self.hits += 1
            if new_rows:
                index.extend(new_rows)
            index.touch(touched)
        if self.max_rows > 0:
            with self._lock:
                self._entries[user_id] = (index, built_at)
                self._entries.move_to_end(user_id)
                held = self.rows
                while held > self.max_rows and len(self._entries) > 1:
                    gone, (dropped, _) = self._entries.popitem(last=False)
                    self._touches_read.pop(gone, None)
                    held -= len(dropped)
        return index


_shared: tuple[int, MemoryCache] | None = None
_shared_lock = threading.Lock()


def memory_cache() -> MemoryCache:
    """This process's cache, made on first use (a forked child makes its own)."""
    global _shared
    with _shared_lock:
        if _shared is None or _shared[0] != os.getpid():
            settings = get_settings()
            _shared = (os.getpid(), MemoryCache(settings.memory_cache_rows, settings.memory_touch_refresh_s))
        return _shared[1]


def user_memory(session: Session, user_id: str, embedder: Embedder) -> NodeIndex:
    """The user's memory stream for retrieval, from this process's cache (``rank_memories`` takes it)."""
    return memory_cache().index(session, user_id, embedder)

"""The lazy world's Redis watermark cache: each world subject's value and when it was ticked, per user.

Why Redis and not the seed's in-process ``LazyWorld``: replies are made by several worker processes, so a
watermark in one process's memory would tick the same subject once per process, and be lost on every restart.
Here one Redis hash per user (``{prefix}:world:{user_id}``, a field per subject, ``ella.world.lazy.Entry`` as
JSON) is shared by all of them:

- a read whose every subject is fresh is one HGETALL and touches no database;
- a read that finds a subject stale takes the user's single-flight lock (a Redis lock); the loser waits and
  reads again, so concurrent workers tick once. The winner runs the world clock (``advance_world``: a new
  world's anchors, the day's weather, the cat's birthday), re-derives each stale subject's watermark from its
  ledger fact (``valid_from`` is when it was ticked), ticks only what is still stale, writes the ledger (the
  source of truth) and then the cache;
- a ledger write to a world subject, by anyone, drops that subject's field after the transaction commits (a
  session event, in ``adapters.world_invalidation``: ``models`` must not know about Redis) and bumps the hash's
  generation, so the next read rebuilds it from the ledger, and a tick that read the ledger before that write
  does not cache its older values over it (its write is a Lua script that checks the generation it saw);
- a lost cache (a flush, an eviction, the hash's week-long expiry) is rebuilt from the ledger the same way:
  nothing is lost, and a value whose fact is still fresh is not ticked again;
- a lost invalidation (Redis unreachable at the write, or the writer killed between its commit and the HDEL)
  cannot leave an old value warm: every committed write to a world subject, ticks included, bumps the user's
  ``world_versions`` row in its own transaction (``models.world_clock``), the hash records the version its
  values were computed from (field ``_ver``), and a read serves the hash only when that is the database's
  version now (one primary-key lookup, the only statement of a warm read); otherwise it rebuilds every subject
  from the ledger under the lock, as for a lost cache.

Redis down: the read falls back to the ledger without a cache (ticks are keyed by their period in the ledger,
so two workers that tick without the lock still write one fact).
"""

from __future__ import annotations

import logging
import threading
import weakref
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import redis
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from adapters.world_invalidation import (
    CACHE_TTL_S,
    COMMITTED,
    GENERATION,
    TICKING,
    cache_key,
    drop_subjects,
    use_cache,
)
from ella.ledger.facts import NewFact
from ella.ledger.rules import LedgerError, Writer
from ella.world import tickers as world
from ella.world.lazy import Entry, fresh_until, is_fresh, stale_subjects
from models.erasure import Traces, register_store
from models.ledger import WorldFact, append, current, user_zone
from models.supersession import supersede
from models.world_clock import advance_world, version_in, world_version

log = logging.getLogger(__name__)

LOCK_TIMEOUT_S = 30.0  # a tick holding the lock longer than this has died; the lock frees itself
WAIT_S = 20.0  # how long a loser waits for the winner's tick before ticking without the lock
TICK_REASON = "lazy world tick"
VERSION = "_ver"  # a field of the hash: the user's world version (``world_versions``) its values were read at

# Cache a tick's entries only while the hash's generation is the one seen before the ledger was read: an
# invalidation in between (a ledger write committed after that read) must not be overwritten by older values.
# ARGV: generation, TTL, world version, n, the n subjects it looked at (dropped first: one the ledger no longer
# has, a retired mood, must not stay behind under the new version), then subject/entry pairs.
STORE_IF_UNCHANGED = """
if (redis.call('HGET', KEYS[1], '_gen') or '0') ~= ARGV[1] then return 0 end
local n = tonumber(ARGV[4])
if n > 0 then redis.call('HDEL', KEYS[1], unpack(ARGV, 5, 4 + n)) end
for i = 5 + n, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('HSET', KEYS[1], '_ver', ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[2])
return 1
"""


def lock_key(user_id: str, prefix: str | None = None) -> str:
    return f"{cache_key(user_id, prefix)}:lock"


@dataclass(frozen=True)
class WorldRead:
    """What a read returns: each subject's entry; ``warm`` when the first look found them all fresh (no database
    was touched); ``ticked`` the subjects this read wrote to the ledger; ``rebuilt`` those it took from the
    ledger without a tick."""

    user_id: str
    entries: dict[str, Entry]
    warm: bool
    ticked: tuple[str, ...] = ()
    rebuilt: tuple[str, ...] = ()

    def value(self, subject: str) -> Any:
        entry = self.entries.get(subject)
        return entry.value if entry is not None else None

    def lines(self) -> str:
        """One line per subject, for a prompt of the proactive jobs (the reply's brief takes the ledger's facts)."""
        return "\n".join(f"- [{e.tier}] {s}: {e.text}" for s, e in sorted(self.entries.items()))


SessionScope = Callable[[], AbstractContextManager[Session]]
Prepare = Callable[[Session], object]  # what a tick's transaction does first (``LazyWorldCache.read``)
VersionOf = Callable[[str], int]  # the user's world version in the database now (``LazyWorldCache.read``)


def _default_scope() -> AbstractContextManager[Session]:
    from adapters.db import session_scope

    return session_scope()


_autocommit: weakref.WeakKeyDictionary[Engine, Engine] = weakref.WeakKeyDictionary()


def _database_version(user_id: str) -> int:
    """One primary-key lookup, on an autocommit connection and in Core: no BEGIN/ROLLBACK round trips, no write
    lock (SQLite), no ORM session (which cost several times the lookup itself on a warm read)."""
    from adapters.db import get_engine

    engine = get_engine()
    autocommit = _autocommit.get(engine)
    if autocommit is None:
        autocommit = _autocommit.setdefault(engine, engine.execution_options(isolation_level="AUTOCOMMIT"))
    with autocommit.connect() as conn:
        return version_in(conn, user_id)


@dataclass
class LazyWorldCache:
    """The watermark cache over one Redis client and one database (``scope`` opens a write transaction)."""

    client: redis.Redis | None = None
    prefix: str | None = None
    scope: SessionScope = _default_scope
    version_of: VersionOf = _database_version
    lock_timeout_s: float = LOCK_TIMEOUT_S
    wait_s: float = WAIT_S
    ticks: int = 0
    _count_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def _redis(self) -> redis.Redis:
        if self.client is None:
            from adapters.redis_conn import get_redis

            self.client = get_redis()
        return self.client

    def cached(self, user_id: str) -> dict[str, Entry]:
        """The entries in Redis now, fresh or not (one HGETALL)."""
        return self._snapshot(user_id)[0]

    def _snapshot(self, user_id: str) -> tuple[dict[str, Entry], str, int | None]:
        """The entries, the hash's invalidation generation and the world version its values were read at (None:
        unknown, a hash written before versions or by nobody), in one HGETALL."""
        found: dict[Any, Any] = self._redis().hgetall(cache_key(user_id, self.prefix))  # type: ignore[assignment]
        raw = {_text(k): _text(v) for k, v in found.items()}
        subjects = world.world_subjects()
        entries = {s: Entry.decode(s, v) for s, v in raw.items() if s in subjects}
        version = raw.get(VERSION)
        return (
            {s: e for s, e in entries.items() if e is not None},
            raw.get(GENERATION, "0"),
            int(version) if version is not None and version.isdigit() else None,
        )

    def read(
        self,
        user_id: str,
        now: datetime | None = None,
        tone: str | None = None,
        prepare: Prepare | None = None,
        version: int | None = None,
    ) -> WorldRead:
        """Every world subject of the user at ``now``: from the cache when fresh, else ticked once.

        ``prepare``: run in the tick's transaction before the tick, and only when there is one (the reply makes
        sure of the user's row there, which a tick's facts refer to: a warm read writes nothing at all).
        ``version``: the user's world version as the caller just read it (the turn's opening read,
        ``adapters.turn_context``), so a warm read makes no query of its own; the check under the lock always
        reads the database."""
        now = now or datetime.now(UTC)
        subjects = [t.subject for t in world.tickers()]
        try:
            entries, generation, seen = self._snapshot(user_id)
        except redis.RedisError as exc:
            log.warning("world cache unavailable (%s): reading the ledger", exc)
            return self._from_ledger(user_id, now, tone, subjects, {}, None, None, prepare)
        stale = stale_subjects(subjects, entries, now)
        if not stale:
            if seen is not None and seen == (self.version_of(user_id) if version is None else version):
                return WorldRead(user_id, entries, warm=True)
            stale = subjects  # a write the hash did not hear of (its invalidation was lost): rebuild it all
        try:
            lock = self._redis().lock(lock_key(user_id, self.prefix), timeout=self.lock_timeout_s,
                                      blocking_timeout=self.wait_s)  # fmt: skip
            acquired = lock.acquire()
        except redis.RedisError as exc:
            log.warning("world lock unavailable (%s): ticking without it", exc)
            return self._from_ledger(user_id, now, tone, stale, entries, None, None, prepare)
        if not acquired:
            log.warning("world lock of %s held past %.0f s: ticking without it", user_id, self.wait_s)
            return self._from_ledger(user_id, now, tone, stale, entries, generation, seen, prepare)
        try:
            entries, generation, seen = self._snapshot(user_id)  # the winner before us may have ticked everything
            stale = stale_subjects(subjects, entries, now)
            if not stale and seen is not None and seen == self.version_of(user_id):
                return WorldRead(user_id, entries, warm=False)
            return self._from_ledger(user_id, now, tone, stale, entries, generation, seen, prepare)
        finally:
            try:
                lock.release()
            except redis.RedisError:
                log.warning("world lock of %s expired before its tick ended", user_id)

    def _from_ledger(
        self,
        user_id: str,
        now: datetime,
        tone: str | None,
        stale: list[str],
        entries: dict[str, Entry],
        generation: str | None,
        seen: int | None,
        prepare: Prepare | None = None,
    ) -> WorldRead:
        """Tick or rebuild ``stale`` from the ledger, then cache them unless the hash was invalidated meanwhile
        (``generation`` is the one seen before the ledger was read; None: Redis is down, cache nothing).

        The database's world version is read first in the transaction, before any fact: a write committed after
        it is then either seen by this read or counted past it, never cached under it. When it is not ``seen``
        (the version of the hash's other values) every subject is rebuilt, since those values may predate it.
        The values are cached under the version this transaction committed, and only when no other write
        committed in between (its own bump then gives exactly one more)."""
        subjects = [t.subject for t in world.tickers()]
        with self.scope() as session:
            if prepare is not None:
                prepare(session)
            session.info[TICKING] = True  # its own writes are what it caches: they invalidate nothing
            before = world_version(session, user_id)
            if before != seen:
                stale, entries = subjects, {}
            fresh, ticked, rebuilt = refresh(session, user_id, now, tone, stale)
        with self._count_lock:
            self.ticks += len(ticked)
        after = session.info.get(COMMITTED, {}).get(user_id)
        version = before if after is None else after if after == before + 1 else None
        if generation is not None and version is not None and (fresh or before != seen):
            pairs = [x for s, e in fresh.items() for x in (s, e.encode())]
            try:
                self._redis().eval(STORE_IF_UNCHANGED, 1, cache_key(user_id, self.prefix), generation, CACHE_TTL_S,
                                   version, len(stale), *stale, *pairs)  # fmt: skip
            except redis.RedisError as exc:
                log.warning("world cache not written (%s)", exc)
        return WorldRead(user_id, {**entries, **fresh}, warm=False, ticked=tuple(ticked), rebuilt=tuple(rebuilt))

    def invalidate(self, user_id: str, subjects: set[str] | frozenset[str]) -> int:
        """Drop these subjects' cached values (the next read takes them from the ledger)."""
        return drop_subjects(self._redis(), cache_key(user_id, self.prefix), subjects)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def refresh(
    session: Session, user_id: str, now: datetime, tone: str | None, subjects: list[str]
) -> tuple[dict[str, Entry], list[str], list[str]]:
    """Catch the world clock up, then each subject: from its ledger fact while that is fresh (a rebuild), else
    ticked and written. Returns the entries, the subjects written now, the subjects rebuilt."""
    live = advance_world(session, user_id, now)  # a new world's anchors, the day's weather, the cat's birthday
    zone = user_zone(session, user_id)
    view = world.WorldView(user_id, zone, live, tone)
    entries: dict[str, Entry] = {}
    ticked: list[str] = []
    rebuilt: list[str] = []
    for subject in subjects:
        ticker = world.ticker_for(subject)
        fact = view.live(subject)
        if fact is not None:
            until = fresh_until(ticker.staleness, fact.valid_from, zone)
            if is_fresh(until, now):
                entries[subject] = Entry(subject, ticker.value_of(fact), fact.object, fact.tier, fact.valid_from, until)
                written_now = abs((fact.recorded_at - now).total_seconds()) < 1  # the clock wrote it in this read
                (ticked if written_now else rebuilt).append(subject)
                continue
        prev = world.Previous(ticker.value_of(fact), fact.valid_from) if fact is not None else None
        tick = ticker.tick(prev, now, view)
        new = world.new_fact(ticker, tick, user_id, now, zone)
        stored = _write(session, user_id, fact, new, now)
        if stored is None:  # another writer recorded this period's fact first: take theirs
            stored = next(iter(current(session, user_id, subject)), None)
            if stored is None:
                continue
        until = fresh_until(ticker.staleness, stored.valid_from, zone)
        entries[subject] = Entry(subject, ticker.value_of(stored), stored.object, stored.tier, stored.valid_from, until)
        ticked.append(subject)
    return entries, ticked, rebuilt


def _write(session: Session, user_id: str, old: Any, new: NewFact, now: datetime) -> WorldFact | None:
    """Supersede the subject's live fact with the tick's (append when there is none, or the tick may not replace
    it); None when the period's fact was recorded before. In a savepoint, so a refusal undoes only itself."""
    if old is not None:
        try:
            with session.begin_nested():
                return supersede(session, user_id, old.id, new, Writer.WORLD_TICK, now, reason=TICK_REASON)
        except LedgerError:
            pass
    with session.begin_nested():
        return append(session, user_id, new, Writer.WORLD_TICK, now)


_cache: LazyWorldCache | None = None
_cache_lock = threading.Lock()


def get_world_cache() -> LazyWorldCache:
    global _cache
    with _cache_lock:
        if _cache is None:
            _cache = LazyWorldCache()
        return _cache


def read_world(
    user_id: str,
    now: datetime | None = None,
    tone: str | None = None,
    prepare: Prepare | None = None,
    version: int | None = None,
) -> WorldRead:
    """The lazy world of one user, as the reply and the proactive jobs read it: fresh subjects from Redis with
    no database, stale ones ticked once (``tone``: ``ella.world.tickers.tone_of`` of the recent messages;
    ``prepare`` and ``version``: see ``LazyWorldCache.read``)."""
    return get_world_cache().read(user_id, now, tone, prepare, version)


# A ledger write to a world subject drops its cached value after the commit: the session hooks that see the write
# are ``adapters.world_invalidation``'s (installed by ``adapters.db`` with its first session); the drop goes
# through this process's cache, whichever it is now.
use_cache(lambda user_id, subjects: get_world_cache().invalidate(user_id, subjects))


# --- erasure -----------------------------------------------------------------------------------------------


@register_store("redis:world_cache")
def erase_world_cache(traces: Traces) -> int:
    """The user's cached world and its single-flight lock."""
    from adapters.redis_conn import get_redis

    return int(get_redis().delete(cache_key(traces.user_id), lock_key(traces.user_id)))

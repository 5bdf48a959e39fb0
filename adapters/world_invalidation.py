"""The lazy world's invalidation: a ledger write to a world subject, by anyone, moves the user's world version
in its own transaction and drops the subject's cached value after the commit (``adapters.world_cache``).

Why apart from the cache: the hooks are session events, installed wherever a session is made (a CLI process, a
script), not only where the world is read, so ``adapters.db`` installs them when it makes its first session. The
cache reads and ticks through ``adapters.db``; the database module must not import the cache back, so what both
need sits here, below both: the hash's key and generation, the session's bookkeeping, and the drop itself.

- every INSERT (``append``, a supersession in steps or PostgreSQL's one statement) or ORM change (``retire``, an
  operator's edit) of a world fact is noted in the session;
- at the outermost commit each noted user's ``world_versions`` row is bumped in that transaction
  (``models.world_clock``), so a cached value read at an older version is known to be old even if Redis never
  hears of the write;
- after the commit the subjects' fields are dropped and the hash's generation bumped, through the process's
  cache (``use_cache``: ``adapters.world_cache`` names its own; until then the default Redis and key prefix);
  Redis down: a warning, and the version does the rest. A tick's own writes (``TICKING``) drop nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Any

import redis
from sqlalchemy import event
from sqlalchemy.orm import ORMExecuteState, Session

from ella.world import tickers as world
from models.ledger import WorldFact
from models.world_clock import bump_world_version

log = logging.getLogger("adapters.world_cache")  # the world cache's warnings, under its name as before

CACHE_TTL_S = 7 * 24 * 3600  # an idle user's hash goes; the next read rebuilds it from the ledger
GENERATION = "_gen"  # a field of the hash, bumped by every invalidation
TICKING = "ella.world_cache.ticking"  # session.info: a tick's transaction (its writes are what it caches)
COMMITTED = "ella.world_cache.committed"  # session.info: user -> the world version its commit wrote
_PENDING = "ella.world_cache.pending"
_BUMPED = "ella.world_cache.bumped"  # user -> the world version this transaction's commit writes


def _prefix() -> str:
    from adapters.settings import get_settings

    return get_settings().redis_key_prefix


def cache_key(user_id: str, prefix: str | None = None) -> str:
    return f"{prefix if prefix is not None else _prefix()}:world:{user_id}"


def drop_subjects(client: redis.Redis, key: str, subjects: set[str] | frozenset[str]) -> int:
    """Drop these subjects' cached values from the hash ``key`` (the next read takes them from the ledger)."""
    if not subjects:
        return 0
    pipe = client.pipeline()
    pipe.hdel(key, *sorted(subjects))
    pipe.hincrby(key, GENERATION, 1)  # a tick that read the ledger before this write will not cache it
    pipe.expire(key, CACHE_TTL_S)
    return int(pipe.execute()[0])


Invalidate = Callable[[str, set[str]], int]  # (user, subjects) -> fields dropped


def _default_invalidate(user_id: str, subjects: set[str]) -> int:
    from adapters.redis_conn import get_redis

    return drop_subjects(get_redis(), cache_key(user_id), subjects)


_invalidate: Invalidate = _default_invalidate


def use_cache(invalidate: Invalidate) -> None:
    """What drops a user's subjects after a commit: the process's cache (``adapters.world_cache`` at import)."""
    global _invalidate
    _invalidate = invalidate


def _pending(session: Session) -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = session.info.setdefault(_PENDING, set())
    return found


def _rows(parameters: Any) -> Iterator[dict[str, Any]]:
    if isinstance(parameters, dict):
        yield parameters
    elif isinstance(parameters, list | tuple):
        yield from (p for p in parameters if isinstance(p, dict))


@event.listens_for(Session, "do_orm_execute")
def _note_statement(state: ORMExecuteState) -> None:
    """An INSERT of a world fact (``append``, a supersession in steps or PostgreSQL's one statement) names its
    user and subject in its parameters."""
    mapper = state.bind_mapper
    if mapper is None or mapper.class_ is not WorldFact or state.parameters is None:
        return
    subjects = world.world_subjects()
    for row in _rows(state.parameters):
        user, subject = row.get("user_id", row.get("uid")), row.get("subject", row.get("new_subject"))
        if isinstance(user, str) and subject in subjects:
            _pending(state.session).add((user, subject))


@event.listens_for(Session, "after_flush")
def _note_flush(session: Session, _context: Any) -> None:
    """A fact changed through the ORM (``retire``, an operator's edit)."""
    subjects = world.world_subjects()
    for obj in (*session.new, *session.dirty):
        if isinstance(obj, WorldFact) and obj.subject in subjects:
            _pending(session).add((obj.user_id, obj.subject))


@event.listens_for(Session, "before_commit")
def _bump_versions(session: Session) -> None:
    """Every world subject this transaction wrote moves its user's world version, in the same commit: what a
    cache read at an older version holds is then known to be old, whether or not Redis hears of the write.
    Flushed first, so an ORM change still pending (a retirement) is noted too. Only at the outermost commit
    (a savepoint's release fires this too): the bump is the transaction's last statement, so the row lock it
    takes is never held while waiting on another lock (the world's advisory lock, the user's row)."""
    if session.in_nested_transaction():
        return
    session.flush()
    pending: set[tuple[str, str]] = session.info.get(_PENDING, set())
    bumped: dict[str, int] = session.info.setdefault(_BUMPED, {})
    for user in sorted({user for user, _subject in pending} - set(bumped)):  # one order: no deadlock between two
        bumped[user] = bump_world_version(session, user)


@event.listens_for(Session, "after_commit")
def _invalidate_after_commit(session: Session) -> None:
    session.info[COMMITTED] = session.info.pop(_BUMPED, {})
    pending: set[tuple[str, str]] = session.info.pop(_PENDING, set())
    if session.info.get(TICKING):
        return
    by_user: dict[str, set[str]] = {}
    for user, subject in pending:
        by_user.setdefault(user, set()).add(subject)
    for user, subjects in by_user.items():
        try:
            _invalidate(user, subjects)
        except redis.RedisError as exc:  # the hash's version is now behind the database's: no read serves it
            log.warning("world cache of %s not invalidated (%s)", user, exc)


@event.listens_for(Session, "after_rollback")
def _forget_pending(session: Session) -> None:
    session.info.pop(_PENDING, None)
    session.info.pop(_BUMPED, None)

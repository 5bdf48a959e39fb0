"""A world fact written while Redis is unreachable is never served warm with its old value once Redis is back.

Why its own Redis: the write's after-commit invalidation must really fail (the server is down, not mocked), and
the cached hash must really survive the outage (AOF, as compose runs it), which is the state the outside fault
run found: the old mood served "warm" for up to its 4 h staleness.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from adapters.db import session_scope
from ella.ledger.rules import Writer
from ella.world import tickers as world
from ella.world.tickers import MOOD_SUBJECT
from models import User
from models.forgetting import retire_fact
from models.ledger import NewFact, current
from models.supersession import supersede
from tests.test_broker_faults import OwnRedis, free_port

T0 = datetime(2026, 12, 1, 9, 30, tzinfo=UTC)
SUBJECTS = [t.subject for t in world.tickers()]


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[OwnRedis]:
    """A redis-server of this test's own (AOF on), as ``tests/test_broker_faults.py`` starts it."""
    server = OwnRedis(free_port(), tmp_path)
    server.start()
    yield server
    if server._answers():
        server.stop()


@pytest.fixture
def cache_on_own_redis(migrated_db: str, own_redis: OwnRedis, monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    """The process's world cache (the one the after-commit invalidation talks to) on a Redis the test stops."""
    import adapters.world_cache as world_cache

    cache = world_cache.LazyWorldCache(client=own_redis.client(), prefix=f"lost-{uuid.uuid4().hex[:6]}")
    monkeypatch.setattr(world_cache, "_cache", cache)
    yield cache


def make_user() -> str:
    user = f"lost-{uuid.uuid4().hex[:8]}"
    with session_scope() as s:
        s.add(User(id=user, timezone="Europe/London"))
    return user


def test_a_mood_corrected_while_redis_was_down_is_served_new_once_redis_is_back(cache_on_own_redis, own_redis, caplog):
    cache = cache_on_own_redis
    user = make_user()
    old = cache.read(user, T0).value(MOOD_SUBJECT)
    assert cache.read(user, T0 + timedelta(minutes=1)).warm

    own_redis.stop()
    with caplog.at_level(logging.WARNING, logger="adapters.world_cache"), session_scope() as s:
        (mood,) = current(s, user, MOOD_SUBJECT)
        new = NewFact(MOOD_SUBJECT, "mood", "cross with the gulls", "canon")
        supersede(s, user, mood.id, new, Writer.OPERATOR, T0 + timedelta(minutes=2))
    assert any("not invalidated" in r.getMessage() for r in caplog.records)  # the invalidation was lost
    own_redis.start()
    assert cache.cached(user)[MOOD_SUBJECT].value == old != "cross with the gulls"  # the old value survived

    read = cache.read(user, T0 + timedelta(minutes=3))
    assert read.value(MOOD_SUBJECT) == "cross with the gulls" and not read.warm and read.ticked == ()
    again = cache.read(user, T0 + timedelta(minutes=4))  # cached again, at the database's version
    assert again.warm and again.value(MOOD_SUBJECT) == "cross with the gulls"


def test_a_mood_retired_while_redis_was_down_is_not_served_once_redis_is_back(cache_on_own_redis, own_redis):
    """The retirement changes the fact through the ORM (a flush, no INSERT of a world fact): counted too."""
    cache = cache_on_own_redis
    user = make_user()
    cache.read(user, T0)
    own_redis.stop()
    with session_scope() as s:
        (mood,) = current(s, user, MOOD_SUBJECT)
        retire_fact(s, user, mood.id, actor="operator:test", reason="the test retires it")
    own_redis.start()
    assert MOOD_SUBJECT in cache.cached(user)

    # The ledger has no live mood now (and this period's tick was spent by the retired one): none is served.
    assert MOOD_SUBJECT not in cache.read(user, T0 + timedelta(minutes=3)).entries
    assert MOOD_SUBJECT not in cache.cached(user)
    assert MOOD_SUBJECT not in cache.read(user, T0 + timedelta(minutes=4)).entries


def test_a_mood_an_operator_corrects_from_the_cli_while_redis_is_down_is_served_new(cache_on_own_redis, own_redis,
                                                                                     migrated_db):  # fmt: skip
    """The write in another process (``ella ledger correct``, as ``make chaos`` does it): that process never read
    the world, and the session hooks that move the version lived in ``adapters.world_cache``, which it never
    imported, so its write neither bumped the version nor invalidated: the old mood stayed warm."""
    import os
    import subprocess
    import sys

    cache = cache_on_own_redis
    user = make_user()
    cache.read(user, T0)
    with session_scope() as s:
        (mood,) = current(s, user, MOOD_SUBJECT)
        fact_id = mood.id
    own_redis.stop()
    ella = Path(sys.executable).parent / "ella"
    env = {**os.environ, "ELLA_DATABASE_URL": migrated_db, "ELLA_REDIS_URL": own_redis.url}
    done = subprocess.run([str(ella), "ledger", "correct", user, str(fact_id), "cross with the gulls", "--reason",
                           "the test corrects it"], env=env, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    own_redis.start()
    read = cache.read(user, T0 + timedelta(minutes=3))
    assert read.value(MOOD_SUBJECT) == "cross with the gulls" and not read.warm

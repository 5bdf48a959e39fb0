"""The per-process retrieval cache (adapters/memory_cache.py): up to date with the database without rebuilding.

Each test changes the stored stream the way the product does (a new node, a touch by another worker, an
erasure, a change of embedder) and checks that the cached index ranks what a fresh load of the rows would.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
from sqlalchemy import delete, update

from adapters.db import session_scope
from adapters.memory_cache import MemoryCache
from ella.embeddings import HashingEmbedder
from ella.memory.retrieval import NodeIndex, rank_memories
from models import MemoryNode, User
from models.memory import mark_accessed, node_rows

EMBEDDER = HashingEmbedder()
T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def add_nodes(user_id: str, texts: list[str], *, start: datetime = T0, model: str | None = None) -> list[int]:
    vectors = EMBEDDER.embed(texts)
    with session_scope() as s:
        if s.get(User, user_id) is None:
            s.add(User(id=user_id))
            s.flush()
        rows = [
            MemoryNode(
                user_id=user_id,
                node_type="event",
                created_at=start + timedelta(minutes=i),
                last_accessed_at=start + timedelta(minutes=i),
                subject=user_id,
                predicate="said",
                object=text[:40],
                description=text,
                embedding=vector.tobytes(),
                embedding_model=model or EMBEDDER.model_id,
                poignancy=5,
            )
            for i, (text, vector) in enumerate(zip(texts, vectors, strict=True))
        ]
        s.add_all(rows)
        s.flush()
        return [r.id for r in rows]


def ranked(index: NodeIndex, query: str, now: datetime, k: int = 3) -> list[int]:
    return [n.id for n in rank_memories(index, EMBEDDER.embed([query])[0], query, k, now)]


def fresh(user_id: str, query: str, now: datetime, k: int = 3) -> list[int]:
    """What a retrieval over freshly loaded rows returns (no cache)."""
    with session_scope() as s:
        rows = node_rows(s, user_id)
    return [n.id for n in rank_memories(rows, EMBEDDER.embed([query])[0], query, k, now, model_id=EMBEDDER.model_id)]


def test_a_new_node_is_found_by_the_next_retrieval_without_a_rebuild(migrated_db) -> None:
    cache = MemoryCache(max_rows=1000)
    add_nodes("u1", ["I walked the dog by the river", "my sister Maya visited", "work was long today"])
    with session_scope() as s:
        cache.index(s, "u1", EMBEDDER)
    (pottery,) = add_nodes("u1", ["I signed up for a pottery class"], start=T0 + timedelta(hours=1))
    now = T0 + timedelta(hours=2)
    with session_scope() as s:
        index = cache.index(s, "u1", EMBEDDER)
    assert (cache.builds, cache.hits) == (1, 1)
    assert len(index) == 4 and index.newest_id == pottery
    assert ranked(index, "pottery class", now)[0] == pottery
    assert ranked(index, "pottery class", now) == fresh("u1", "pottery class", now)


def test_a_touch_by_another_worker_reaches_the_cached_recency(migrated_db) -> None:
    cache = MemoryCache(max_rows=1000)
    ids = add_nodes("u2", ["Sam walked the dog by the river"] * 4)  # equal but for recency
    now = T0 + timedelta(days=3)
    with session_scope() as s:
        assert ranked(cache.index(s, "u2", EMBEDDER), "dog walk", now, 1) == [ids[-1]]  # the newest
    with session_scope() as s:  # another worker retrieved the oldest one just now
        mark_accessed(s, [ids[0]], now - timedelta(minutes=5))
    with session_scope() as s:
        index = cache.index(s, "u2", EMBEDDER)
    assert cache.builds == 1
    assert ranked(index, "dog walk", now, 4) == fresh("u2", "dog walk", now, 4)
    assert ranked(index, "dog walk", now, 1) == [ids[0]]


def test_other_workers_touches_are_read_once_per_refresh_while_new_nodes_come_every_time(migrated_db) -> None:
    """Since touches are in no index (migration 0023), reading them scans the user's partition: a cache reads them
    at most every ``touch_refresh_s``, and in between only the new nodes (an index range)."""
    clock = [1000.0]
    cache = MemoryCache(max_rows=1000, touch_refresh_s=300, clock=lambda: clock[0])
    ids = add_nodes("u2", ["Sam walked the dog by the river"] * 4)
    now = T0 + timedelta(days=3)
    with session_scope() as s:
        assert ranked(cache.index(s, "u2", EMBEDDER), "dog walk", now, 1) == [ids[-1]]
    with session_scope() as s:  # another worker retrieved the oldest one just now
        mark_accessed(s, [ids[0]], now - timedelta(minutes=5))
    newer = add_nodes("u2", ["Sam fed the cat"], start=T0 + timedelta(days=1))
    with session_scope() as s:
        index = cache.index(s, "u2", EMBEDDER)
    assert len(index) == 5 and ranked(index, "dog walk", now, 1) == [ids[-1]]  # the touch is not read yet
    cache.touch("u2", [ids[1]], now - timedelta(minutes=1))  # this process's own reply: at once
    assert ranked(index, "dog walk", now, 1) == [ids[1]]
    with session_scope() as s:  # and the turn's memory task marks it in the database
        mark_accessed(s, [ids[1]], now - timedelta(minutes=1))
    clock[0] += 301
    with session_scope() as s:
        index = cache.index(s, "u2", EMBEDDER)
    assert cache.builds == 1 and newer[0] in {row.id for row in index}
    assert ranked(index, "dog walk", now, 4) == fresh("u2", "dog walk", now, 4)


def test_an_erased_stream_is_dropped_and_a_new_one_rebuilt(migrated_db) -> None:
    cache = MemoryCache(max_rows=1000)
    add_nodes("u3", ["the old flat had a red door", "the cat is called Miso"])
    with session_scope() as s:
        assert len(cache.index(s, "u3", EMBEDDER)) == 2
    with session_scope() as s:
        s.execute(delete(MemoryNode).where(MemoryNode.user_id == "u3"))
    with session_scope() as s:
        assert len(cache.index(s, "u3", EMBEDDER)) == 0
    assert cache.builds == 2


def test_a_user_without_memories_is_not_rebuilt_on_every_reply_and_their_first_memory_is_found(migrated_db) -> None:
    """A new user's first replies (the offline engine reads the context too): one query each, no rebuild."""
    cache = MemoryCache(max_rows=1000)
    with session_scope() as s:
        s.add(User(id="u6"))
    for _ in range(3):
        with session_scope() as s:
            assert len(cache.index(s, "u6", EMBEDDER)) == 0
    assert (cache.builds, cache.hits) == (1, 2)
    (first,) = add_nodes("u6", ["I have a job interview on Thursday"])
    with session_scope() as s:
        index = cache.index(s, "u6", EMBEDDER)
    assert (cache.builds, len(index), index.newest_id) == (1, 1, first)


def test_vectors_of_another_model_are_never_compared_and_a_change_of_embedder_rebuilds(migrated_db) -> None:
    cache = MemoryCache(max_rows=1000)
    ids = add_nodes("u4", ["blue whales sing", "a quiet evening"], model="some-other-model-512")
    with session_scope() as s:
        index = cache.index(s, "u4", EMBEDDER)
    assert index.foreign == 2
    np.testing.assert_array_equal(index.cosine(EMBEDDER.embed(["blue whales sing"])[0]), [0.0, 0.0])
    with session_scope() as s:  # re-embedded into this model
        s.execute(update(MemoryNode).where(MemoryNode.id.in_(ids)).values(embedding_model=EMBEDDER.model_id))

    other = HashingEmbedder()
    other.model_id = "hashing-ngram-v2-512"
    with session_scope() as s:
        assert cache.index(s, "u4", other).foreign == 2  # another model: a new index, its own comparisons
    assert cache.builds == 2


def test_the_cache_holds_at_most_its_rows_dropping_the_least_recently_used_user(migrated_db) -> None:
    cache = MemoryCache(max_rows=5)
    for user in ("a", "b", "c"):
        add_nodes(user, [f"{user} note {i}" for i in range(2)])
    with session_scope() as s:
        for user in ("a", "b", "a", "c"):
            cache.index(s, user, EMBEDDER)
    assert cache.rows <= 5 and len(cache) == 2
    with session_scope() as s:
        cache.index(s, "a", EMBEDDER)  # still cached: used after b
    assert cache.builds == 3


def test_stream_changes_reads_the_newest_id_the_touches_since_and_the_new_nodes_in_one_query(migrated_db) -> None:
    from models.memory import stream_changes

    ids = add_nodes("u9", ["one", "two", "three", "four"])
    with session_scope() as s:
        mark_accessed(s, [ids[1]], T0 + timedelta(days=1))
    with session_scope() as s:
        assert stream_changes(s, "u9", None) == (ids[-1], [], 0, [])
        newest, touched, _, _ = stream_changes(s, "u9", T0 + timedelta(hours=1))
        assert newest == ids[-1] and touched == [(ids[1], T0 + timedelta(days=1))]  # the newest is not touched
        newest, touched, _, _ = stream_changes(s, "u9", T0 + timedelta(minutes=3))  # the newest was accessed then
        assert newest == ids[-1] and sorted(i for i, _ in touched) == [ids[1], ids[3]]
        # the nodes after a cached newest one come whole, ids ascending, in the same statement
        _, _, _, new_rows = stream_changes(s, "u9", T0 + timedelta(days=2), ids[1])
        assert [r.id for r in new_rows] == ids[2:] and [r.description for r in new_rows] == ["three", "four"]
        assert stream_changes(s, "u9", None, ids[-1]).new_rows == []
        assert stream_changes(s, "nobody", T0) == (None, [], 0, [])


def test_a_cold_load_reads_the_same_rows_in_postgresqls_binary_protocol(migrated_db) -> None:
    """``node_rows`` asks for binary results (``BINARY_RESULTS``): on psycopg its cursor reads binary, and the
    rows, vectors, times (in UTC) and NULLs included, equal those of the same statement read as text."""
    from sqlalchemy import event, select

    from adapters.db import get_engine
    from models.memory import _ROW_COLUMNS, _node_rows, shown_to_model

    ids = add_nodes("u-bin", ["I walked the dog by the river", "my sister Maya visited?"])
    with session_scope() as s:
        s.get(MemoryNode, ids[1]).expires_at = T0 + timedelta(days=9)
    formats: list[str] = []

    def seen(conn, cursor, statement, parameters, context, executemany) -> None:
        formats.append(getattr(getattr(cursor, "format", None), "name", "no format"))

    engine = get_engine()
    event.listen(engine, "after_cursor_execute", seen)
    try:
        with session_scope() as s:
            loaded = node_rows(s, "u-bin")
            as_text = s.execute(
                select(*_ROW_COLUMNS, MemoryNode.embedding_format)
                .where(MemoryNode.user_id == "u-bin", shown_to_model())
                .order_by(MemoryNode.id)
            ).all()
    finally:
        event.remove(engine, "after_cursor_execute", seen)
    assert formats[-2:] == (["BINARY", "TEXT"] if engine.dialect.driver == "psycopg" else ["no format"] * 2)
    assert loaded == _node_rows(as_text) and len(loaded) == 2
    assert loaded[1].expires_at == T0 + timedelta(days=9) and loaded[0].expires_at is None
    assert loaded[0].created_at.utcoffset() == timedelta(0)

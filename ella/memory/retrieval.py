"""Generative Agents retrieval (Park et al. 2023), vectorised and with the reference's mistakes fixed.

A memory's score is ``w_recency * recency + w_relevance * relevance + w_importance * importance``, each term
min-max normalised over the memories that can be returned, as in the paper. Where the reference code goes wrong
(see /work/shared/DESIGN.md, "Rules learned from the anchors"), this module does otherwise:

- recency: the reference ranks nodes by access order and gives rank ``i`` the weight ``decay ** i`` with the
  order inverted, so the *least* recently accessed node scores highest. Here recency is ``decay ** hours``
  since the last access: the newest memory is the most recent, and a week of silence counts as a week.
- relevance: the reference scores cosine similarity alone, in a Python loop over every node. Here it is a
  fusion of embedding cosine and BM25 (stemmed terms), both normalised, because the default embedder is
  lexical hashing and exact rare words (names, places, "pottery") are what questions hinge on; and a memory
  also takes some relevance from its neighbours in the same conversation, since a reply ("yes, last week!")
  is about what it answers. A memory that says more (longer, up to a few sentences) gets more of its
  relevance, and one that ends with a question a little less: the fact is in what answers it. All of it is
  numpy over arrays, a few milliseconds for 10,000 memories.
- expired memories (a planning thought past its expiry) are never returned, whatever their score.

The database-backed memory is ranked by :func:`rank_memories` over the nodes a task loaded;
:class:`MemoryStore` is the in-memory stream the LoCoMo evaluation and the benchmark use.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from sys import intern
from typing import Protocol, TypeVar, cast, overload

import numpy as np

from ella.embeddings import Embedder
from ella.lexicon import STOP_WORDS, stem, tokenize  # re-exported: BM25 terms are retrieval's

__all__ = [
    "DEFAULT_WEIGHTS",
    "STOP_WORDS",
    "BM25Index",
    "MemoryStore",
    "SEMANTIC_WEIGHTS",
    "RetrievalWeights",
    "context_relevance",
    "default_weights",
    "ends_with_question",
    "informativeness",
    "newest_thoughts",
    "normalize",
    "rank_memories",
    "recency",
    "score_memories",
    "stem",
    "tokenize",
    "top_k",
]

# --- the three signals ----------------------------------------------------------------------------------


def normalize(x: np.ndarray) -> np.ndarray:
    """Min-max scale ``x`` to [0, 1] (float64), so signals with different units can be added.

    Zero-range guard: when every value is equal (one memory, or a query no memory shares a word with) the
    signal says nothing, and every entry becomes 0.5 — the midpoint the reference's ``normalize_dict_floats``
    gives for a zero range — rather than a division by zero. It is constant, so it does not change the order.
    """
    x = np.asarray(x, dtype=np.float64)
    if x.size == 0:
        return x.copy()
    low, high = float(x.min()), float(x.max())
    if not high > low:  # also catches NaN bounds
        return np.full(x.shape, 0.5)
    return (x - low) / (high - low)


def recency(hours_since_access: np.ndarray, decay: float) -> np.ndarray:
    """``decay ** hours`` since each memory was last accessed (created or retrieved): the newest scores 1.

    An access in the future (clock skew between workers) counts as now, so no memory scores above 1.
    """
    hours = np.maximum(np.asarray(hours_since_access, dtype=np.float64), 0.0)
    return np.power(decay, hours)


# --- BM25 -----------------------------------------------------------------------------------------------


class _Postings:
    """One term's posting list: document ids and term frequencies in arrays that grow by doubling, so
    appending a document is amortised O(1) and scoring reads contiguous arrays."""

    __slots__ = ("docs", "size", "tfs")

    def __init__(self) -> None:
        self.docs = np.empty(4, dtype=np.int64)
        self.tfs = np.empty(4, dtype=np.float64)
        self.size = 0

    def extend(self, docs: Sequence[int] | np.ndarray, tfs: Sequence[int] | np.ndarray) -> None:
        """Append many documents at once (ids ascending, above every id held)."""
        size = self.size + len(docs)
        if size > self.docs.size:
            capacity = max(size, 2 * self.docs.size)
            self.docs = np.resize(self.docs, capacity)
            self.tfs = np.resize(self.tfs, capacity)
        self.docs[self.size : size] = docs
        self.tfs[self.size : size] = tfs
        self.size = size

    def append(self, doc: int, tf: int) -> None:
        if self.size == self.docs.size:
            self.docs = np.resize(self.docs, 2 * self.size)
            self.tfs = np.resize(self.tfs, 2 * self.size)
        self.docs[self.size] = doc
        self.tfs[self.size] = tf
        self.size += 1


class BM25Index:
    """Okapi BM25 over token lists, with Lucene's always-positive idf ``log(1 + (N - df + 0.5) / (df + 0.5))``.

    Documents get ids 0, 1, 2... in the order they are added, the same order as the rows of the embedding
    matrix they are scored beside. Adding a document touches only its own terms' posting lists.

    Length normalisation ``b`` is 0.3, not the usual 0.75: a memory is one turn or one thought, and a long
    one is long because it holds facts, not because it rambles, so a term in it should not count much less.
    LoCoMo dev recall@10 with the default weights, hashing: 0.735 at b = 0.75, 0.743 at 0.3 (0.723 and 0.729
    without the length part of relevance, ``RetrievalWeights.length``); semantic profile 0.774 and 0.783.
    From 0 to 0.5, and with k1 from 1.2 to 1.5, the figures were equal within 0.006.
    """

    def __init__(self, docs: Iterable[Sequence[str]] = (), *, k1: float = 1.5, b: float = 0.3) -> None:
        self.k1 = k1
        self.b = b
        self._postings: dict[str, _Postings] = {}
        self._lengths = np.zeros(16, dtype=np.float64)
        self._n = 0
        self._total_length = 0
        self._length_norm: np.ndarray | None = None  # k1 * (1 - b + b * dl / avgdl), cached until the next add
        self._doc_terms: list[tuple[str, ...]] = []  # each document's distinct terms: what a second hop reads
        for tokens in docs:
            self.add(tokens)

    def __len__(self) -> int:
        return self._n

    def add(self, tokens: Sequence[str]) -> int:
        """Index one document; returns its id."""
        doc = self._n
        counts = Counter(tokens)
        for term, tf in counts.items():
            postings = self._postings.get(term)
            if postings is None:
                postings = self._postings[term] = _Postings()
            postings.append(doc, tf)
        self._doc_terms.append(tuple(counts))
        if doc == self._lengths.size:
            self._lengths = np.resize(self._lengths, 2 * doc)
        self._lengths[doc] = len(tokens)
        self._total_length += len(tokens)
        self._n += 1
        self._length_norm = None
        return doc

    def extend(self, docs: Sequence[Sequence[str]]) -> None:
        """Index many documents (ids in order), as :meth:`add` each would, in a fraction of the time.

        Why: building a 100,000-memory index one document at a time spent seconds in per-term appends. Here
        each token becomes a term number, the (term, document) pairs are counted by one sort, and each term's
        posting list grows once, with its documents ascending as :meth:`add` leaves them.
        """
        first = self._n
        vocabulary: dict[str, int] = {}
        numbers: list[int] = []
        lengths: list[int] = []
        for tokens in docs:
            numbers.extend([vocabulary.setdefault(token, len(vocabulary)) for token in tokens])
            lengths.append(len(tokens))
            self._doc_terms.append(tuple(dict.fromkeys(tokens)))  # distinct, in order of first use, as Counter's
        count = len(lengths)
        if numbers:
            doc_of = np.repeat(np.arange(count, dtype=np.int64), lengths)
            pairs, tfs = np.unique(np.asarray(numbers, dtype=np.int64) * count + doc_of, return_counts=True)
            term_of, doc_ids = np.divmod(pairs, count)  # sorted by term, then document
            cuts = (np.flatnonzero(np.diff(term_of)) + 1).tolist()
            terms = list(vocabulary)
            doc_ids += first
            for lo, hi in zip([0, *cuts], [*cuts, pairs.size], strict=True):
                term = terms[int(term_of[lo])]
                postings = self._postings.get(term)
                if postings is None:
                    postings = self._postings[term] = _Postings()
                postings.extend(doc_ids[lo:hi], tfs[lo:hi])
        if first + count > self._lengths.size:
            self._lengths = np.resize(self._lengths, max(first + count, 2 * self._lengths.size))
        self._lengths[first : first + count] = lengths
        self._total_length += sum(lengths)
        self._n += count
        self._length_norm = None

    def idf(self, term: str) -> float:
        """The term's inverse document frequency (0 for a term no document has)."""
        postings = self._postings.get(term)
        if postings is None:
            return 0.0
        return math.log(1.0 + (self._n - postings.size + 0.5) / (postings.size + 0.5))

    def terms(self, doc: int) -> tuple[str, ...]:
        """The distinct terms of document ``doc``."""
        return self._doc_terms[doc]

    @property
    def lengths(self) -> np.ndarray:
        """Each document's number of terms (a view: do not write to it)."""
        return self._lengths[: self._n]

    def scores(self, query_tokens: Sequence[str] | Mapping[str, float]) -> np.ndarray:
        """BM25 score of every document for the query, shape ``(n,)``; 0 for a document sharing no term.

        Only the query terms' posting lists are read: one vectorised formula per term, then a single
        ``bincount`` adds the contributions per document. A term repeated in the query counts that many times;
        a mapping gives each term its weight instead (a second hop's expanded query).
        """
        n = self._n
        if self._length_norm is None and n:
            average = self._total_length / n or 1.0
            self._length_norm = self.k1 * (1.0 - self.b + self.b * self._lengths[:n] / average)
        length_norm = self._length_norm
        if length_norm is None:  # no documents, so no postings either
            return np.zeros(n)
        docs_parts: list[np.ndarray] = []
        weight_parts: list[np.ndarray] = []
        query = query_tokens if isinstance(query_tokens, Mapping) else Counter(query_tokens)
        for term, query_tf in query.items():
            postings = self._postings.get(term)
            if postings is None:
                continue
            docs, tfs = postings.docs[: postings.size], postings.tfs[: postings.size]
            idf = math.log(1.0 + (n - postings.size + 0.5) / (postings.size + 0.5))
            docs_parts.append(docs)
            weight_parts.append(query_tf * idf * tfs * (self.k1 + 1.0) / (tfs + length_norm[docs]))
        if not docs_parts:
            return np.zeros(n)
        return np.bincount(np.concatenate(docs_parts), weights=np.concatenate(weight_parts), minlength=n)


# --- the weighted sum -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RetrievalWeights:
    """How the signals are mixed. Tuned on the LoCoMo dev split (5 conversations, ``ella eval locomo``) with
    the default hashing embedder; each field says what it costs or buys there.

    Only ratios between the three ``w_`` weights matter: each signal is scaled to [0, 1] first. On LoCoMo
    every memory's last access is its session's date and "now" is the last session, so recency can only pull
    the last sessions up, and poignancy says nothing about what a question asks: neither was tuned to the
    benchmark; both keep moderate weights that cost it little or nothing (see each field), because in the
    product they carry what the benchmark lacks — what was just said, and what mattered. LoCoMo dev recall@10 over
    categories 1-4 with these defaults: 0.743 (0.713 before the length and asking parts and BM25's b = 0.3;
    plain BM25: 0.626). The semantic embedder has its own profile, :data:`SEMANTIC_WEIGHTS` (0.783).
    """

    w_relevance: float = 3.0
    """The reference's weight for relevance (its ``gw = [0.5, 3, 2]``): what the query is about dominates."""
    w_recency: float = 0.5
    """The reference's recency weight. With ``decay`` below, at equal relevance this morning's memory beats
    last week's, but a clearly relevant old memory still wins. Near neutral on LoCoMo (recall@10 0.743,
    0.739 without it, 0.735 at 1.0, where it pulls the last session up for every question)."""
    w_importance: float = 1.0
    """Half the reference's 2: poignancy (1..10) is a coarse rating from a model or the offline rules, so it
    breaks near-ties towards what mattered (an interview over a sandwich) without outranking relevance.
    At equal poignancy it changes nothing; with the offline rules' ratings it costs LoCoMo recall@10 0.006
    (at 2.0 it would cost 0.09)."""
    decay: float = 0.99
    """Recency decay per hour since last access: half-life about 69 hours (three days). The paper's 0.995 was
    per step of a sandbox clock; a companion's user comes back after hours or days, so we decay per real hour."""
    fuse: float = 0.3
    """Share of embedding cosine in relevance, the rest BM25. With the hashing embedder BM25 is much the
    stronger (LoCoMo recall@10 0.63 alone, cosine 0.33), but cosine's character n-grams still add 0.013
    (0.730 at 0); 0.2 to 0.4 give 0.734 to 0.743. The semantic embedder's profile takes 0.5."""
    context: float = 0.7
    """Weight of the relevance of the memories around a memory in its conversation (see
    :func:`context_relevance`): a reply ("yes, last week!") is about what it answers. The largest single gain
    on LoCoMo (recall@10 0.642 without it, 0.743 with); 0.5 to 0.7 are equal within 0.006; 0 turns it off."""
    context_steps: int = 2
    """How many memories to each side the context reaches (LoCoMo: 2 to 5 are equal within 0.005)."""
    context_decay: float = 0.7
    """Each step further away counts this much less than the one before."""
    length: float = 1.0
    """How much a memory's length lifts its relevance (see :func:`informativeness`): relevance is multiplied
    by ``1 + length * informativeness``, so at equal match a memory that says something ("I researched
    adoption agencies last week") outranks a short one that only names the topic or the person ("Nate: take
    care!"), which cosine and BM25 both favour. LoCoMo dev recall@10 0.729 -> 0.743 with hashing (multi-hop
    0.406 -> 0.434), 0.762 -> 0.783 with the semantic profile (multi-hop 0.435 -> 0.477); 0.5 to 2.0 give
    0.738-0.743 and 0.779-0.783; 0 turns it off. It multiplies after the context part and is not normalised again, so
    it also gives relevance up to twice its weight beside recency and importance."""
    length_terms: int = 25
    """The length (in BM25 terms, function words dropped) from which a memory counts as fully informative;
    a LoCoMo turn has 13 at the median, 30 at the 95th percentile (15 to 40 are equal within 0.009)."""
    asking: float = 0.15
    """How much less relevance a memory that ends with a question keeps (see :func:`ends_with_question`):
    relevance is multiplied by ``1 - asking``. Why: "That bowl is awesome! What gave you the idea?" names the
    topic but asks; the fact is in the answer, which the context part already lifts. LoCoMo dev recall@10
    0.733 -> 0.743 with hashing (multi-hop 0.404 -> 0.434), 0.774 -> 0.783 with the semantic profile
    (multi-hop 0.470 -> 0.477); 0.1 and 0.2 give 0.738-0.740 and 0.780, 0.3 0.739 and 0.773; 0 turns it off."""
    hop: float = 0.0
    """Weight of the second hop's relevance (see :func:`_second_hop`) added to the first's; 0 turns it off. Off
    because it costs on LoCoMo dev: recall@10 0.713 -> 0.711 at 0.5 and 0.705 at 1.0 with hashing (multi-hop
    0.376 -> 0.366), 0.743 -> 0.717 at 0.3 with the semantic embedder; with today's length and asking parts,
    0.743 -> 0.736 at 0.3 and 0.732 at 0.5 (hashing), 0.783 -> 0.769 at 0.3 and 0.5 (semantic profile). It
    pulls in what the first hits are about, and LoCoMo's multi-hop evidence is mostly about something else the
    question also asks. Giving the second hop's best 3 to 5 places of the top 10 instead of reweighting every
    memory was measured too: multi-hop 0.477 -> 0.487-0.490 (semantic) but all categories 0.777-0.779."""
    hop_seeds: int = 5
    """How many of the first hop's most relevant memories seed the second."""
    hop_terms: int = 10
    """How many salient terms of the seeds the second hop searches for."""
    hop_fuse: float = 0.3
    """Share of embedding cosine in the second hop's relevance, the rest BM25 over the seeds' terms."""


DEFAULT_WEIGHTS = RetrievalWeights()

SEMANTIC_WEIGHTS = RetrievalWeights(fuse=0.5, context=0.5)
"""The profile for the semantic embedder: its cosine carries meaning, not only spelling, so it takes half of
relevance (LoCoMo dev recall@10 0.762 at the hashing profile's 0.3, 0.775 at 0.4, 0.783 at 0.5, 0.779 at
0.6, 0.765 at 0.7), and the context of neighbouring turns, which it needs less, a little less weight (0.3:
0.759, 0.5: 0.783, 0.7: 0.777)."""


MULTILINGUAL_WEIGHTS = RetrievalWeights(fuse=0.6)
"""The profile for the multilingual encoder (the default embedder): LoCoMo dev recall@10 0.748 at fuse 0.3, 0.765
at 0.5, 0.774 at 0.6, 0.755 at 0.7 (the hashing embedder at its profile: 0.743)."""


def default_weights(embedder: str) -> RetrievalWeights:
    """The weight profile for an embedder named as in configuration (``ELLA_EMBEDDER``) or by its model id."""
    key = embedder.strip().lower()
    if key == "multilingual" or key.startswith("use-multilingual"):
        return MULTILINGUAL_WEIGHTS
    return SEMANTIC_WEIGHTS if key == "semantic" or key.startswith("all-minilm") else DEFAULT_WEIGHTS


_TRAILING_ASIDE = re.compile(r"\s*(?:\[[^\[\]]*\]|\([^()]*\))\s*$")


def ends_with_question(text: str) -> bool:
    """Whether the memory's last sentence is a question; a trailing aside in brackets or parentheses (a shared
    photo's caption) is not the last sentence."""
    if "?" not in text and "\uff1f" not in text:  # most memories: no regex (a 50,000-memory cold load spent 0.17 s)
        return False
    return _TRAILING_ASIDE.sub("", text).rstrip().endswith(("?", "\uff1f"))


def informativeness(lengths: np.ndarray, full: int) -> np.ndarray:
    """``log(1 + terms) / log(1 + full)``, at most 1: how much a memory of that many terms can say.

    Why a fixed curve and not a min-max over the stream: one very long memory would then shrink every other
    memory's value; a log saturating at ``full`` terms separates "take care!" (1 term) from a sentence with
    facts and stops rewarding length beyond a few sentences.
    """
    if full <= 0:
        return np.ones(lengths.shape)
    return np.minimum(1.0, np.log1p(np.asarray(lengths, dtype=np.float64)) / math.log1p(full))


def context_relevance(relevance: np.ndarray, previous: np.ndarray, steps: int, decay: float) -> np.ndarray:
    """For each memory, ``sum over d = 1..steps of decay**(d-1) * max(relevance d before, relevance d after)``
    within its conversation; 0 beyond either end.

    ``previous[i]`` is the row of the memory just before row ``i`` in the same conversation, or -1. The
    following memory is derived from it, and each step is a gather of ``n`` values, so no sort is needed and
    rows may be in any order. The ``n``-th slot of the padded arrays is the sentinel that -1 points at.
    """
    n = relevance.size
    previous = np.asarray(previous, dtype=np.int64)
    following = np.full(n + 1, -1, dtype=np.int64)
    has_previous = previous >= 0
    following[previous[has_previous]] = np.flatnonzero(has_previous)
    previous_padded = np.append(previous, -1)
    padded = np.append(relevance, 0.0)
    before, after = previous, following[:n]
    total = np.zeros(n)
    for step in range(steps):
        total += decay**step * np.maximum(padded[before], padded[after])
        before, after = previous_padded[before], following[after]
    return total


def score_memories(
    query_vec: np.ndarray,
    query_tokens: Sequence[str],
    matrix: np.ndarray,
    bm25: BM25Index | None,
    hours_since_access: np.ndarray,
    poignancy: np.ndarray,
    expired: np.ndarray | None = None,
    weights: RetrievalWeights = DEFAULT_WEIGHTS,
    previous: np.ndarray | None = None,
    *,
    cosine: np.ndarray | None = None,
    asks: np.ndarray | None = None,
) -> np.ndarray:
    """Retrieval score of each of the ``n`` memories for one query, shape ``(n,)``; higher is better.

    ``matrix`` holds the memories' unit embeddings ``(n, dim)``, in the same row order as ``bm25``'s documents,
    ``hours_since_access``, ``poignancy``, ``expired`` and ``previous``. ``query_vec`` is the query's unit
    embedding from the same embedder and ``query_tokens`` its :func:`tokenize` terms. With ``bm25=None``,
    relevance is cosine alone; with ``previous=None`` (see :func:`context_relevance`), it has no context part.
    ``cosine``, when given, is each memory's cosine with the query, computed by the caller (a
    :class:`NodeIndex` shortlists it at scale) instead of ``matrix @ query_vec``.

    Relevance is ``fuse * norm(cosine) + (1 - fuse) * norm(bm25)``; with context, ``norm(relevance +
    context * context_relevance)``; then times ``1 + length * informativeness`` (with ``bm25``) and, for a
    memory whose ``asks`` is true (:func:`ends_with_question`), times ``1 - asking``. Expired memories score
    ``-inf``: they are left out of every normalisation and give no context, so they neither come back nor shift
    the others. Each score depends on the memories' values, not on the order of the rows.
    """
    n = matrix.shape[0]
    if bm25 is not None and len(bm25) != n:
        raise ValueError(f"BM25 index has {len(bm25)} documents for {n} embedding rows")
    live = None if expired is None or not np.any(expired) else ~np.asarray(expired, dtype=bool)
    if live is not None and not live.any():
        return np.full(n, -np.inf)

    def norm(x: np.ndarray) -> np.ndarray:
        return normalize(x) if live is None else normalize(x[live])

    def relevance_of(
        vec: np.ndarray, terms: Sequence[str] | Mapping[str, float], fuse: float, cos: np.ndarray | None = None
    ) -> np.ndarray:
        relevance = norm(matrix @ np.asarray(vec, dtype=matrix.dtype) if cos is None else cos)
        if bm25 is not None and fuse < 1.0 and terms:
            relevance = fuse * relevance + (1.0 - fuse) * norm(bm25.scores(terms))
        if previous is not None and weights.context and weights.context_steps > 0:
            full = relevance if live is None else np.zeros(n)
            if live is not None:
                full[live] = relevance
            around = context_relevance(full, previous, weights.context_steps, weights.context_decay)
            relevance = normalize(relevance + weights.context * (around if live is None else around[live]))
        return relevance

    relevance = relevance_of(query_vec, query_tokens, weights.fuse, cosine)
    if weights.length and bm25 is not None:
        lengths = bm25.lengths if live is None else bm25.lengths[live]
        relevance = relevance * (1.0 + weights.length * informativeness(lengths, weights.length_terms))
    if weights.asking and asks is not None:
        relevance = relevance * np.where(asks if live is None else asks[live], 1.0 - weights.asking, 1.0)
    if weights.hop and weights.hop_seeds > 0:
        hop = _second_hop(relevance, live, matrix, bm25, query_tokens, weights, relevance_of)
        relevance = normalize(relevance + weights.hop * hop)
    total = weights.w_relevance * relevance
    if weights.w_recency:
        total += weights.w_recency * norm(recency(hours_since_access, weights.decay))
    if weights.w_importance:
        total += weights.w_importance * norm(np.asarray(poignancy, dtype=np.float64))
    if live is None:
        return total
    scores = np.full(n, -np.inf)
    scores[live] = total
    return scores


def _second_hop(
    relevance: np.ndarray,
    live: np.ndarray | None,
    matrix: np.ndarray,
    bm25: BM25Index | None,
    query_tokens: Sequence[str],
    weights: RetrievalWeights,
    relevance_of: Callable[[np.ndarray, Mapping[str, float], float], np.ndarray],
) -> np.ndarray:
    """Relevance to what the first hop found: a query built from the ``hop_seeds`` most relevant memories.

    Its vector is the mean of the seeds' embeddings; its terms are the seeds' ``hop_terms`` most salient
    terms that the question did not use (a term's weight: the sum over the seeds that hold it of idf times
    the seed's first-hop relevance), each weighted relative to the strongest. Over live memories, like
    ``relevance``.
    """
    rows = np.flatnonzero(live) if live is not None else np.arange(relevance.size)
    best_rows = top_k(relevance, weights.hop_seeds)
    seeds, seed_weight = rows[best_rows], relevance[best_rows]
    vector = (matrix[seeds].astype(np.float64) * seed_weight[:, None]).sum(axis=0)
    length = float(np.linalg.norm(vector))
    if length > 0:
        vector /= length
    terms: dict[str, float] = {}
    if bm25 is not None:
        asked = set(query_tokens)
        salience: Counter[str] = Counter()
        for seed, w in zip(seeds.tolist(), seed_weight.tolist(), strict=True):
            for term in bm25.terms(seed):
                if term not in asked:
                    salience[term] += w * bm25.idf(term)
        best = salience.most_common(weights.hop_terms)
        if best and best[0][1] > 0:
            terms = {term: value / best[0][1] for term, value in best}
    return relevance_of(vector, terms, weights.hop_fuse)


def top_k(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` highest scores, best first (ties: lower index first); ``-inf`` is never returned.

    ``argpartition`` picks the winners in linear time and only those ``k`` are sorted.
    """
    scores = np.asarray(scores)
    k = max(0, min(int(k), scores.size))
    if k == 0:
        return np.zeros(0, dtype=np.int64)
    if k < scores.size:
        candidates = np.argpartition(-scores, k - 1)[:k]
        kth = scores[candidates].min()
        if np.count_nonzero(scores >= kth) > k:  # ties straddle the cut: keep the lowest indices among them
            above = np.flatnonzero(scores > kth)
            candidates = np.concatenate([above, np.flatnonzero(scores == kth)[: k - above.size]])
    else:
        candidates = np.arange(scores.size)
    candidates = candidates[scores[candidates] > -np.inf]
    return candidates[np.lexsort((candidates, -scores[candidates]))].astype(np.int64)


# --- the in-memory stream -------------------------------------------------------------------------------


def _seconds(moment: datetime) -> float:
    """POSIX seconds of ``moment``; a naive datetime is taken as UTC (never as the host's local time)."""
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()


class MemoryStore:
    """A memory stream held in arrays that grow by doubling: texts, ids, times, poignancy, embeddings, BM25.

    Retrieval is :func:`score_memories` over all rows, then :func:`top_k`; the returned memories' last access
    becomes ``now`` (as in the paper: being recalled keeps a memory fresh) unless ``touch=False``. Memories
    added with the same ``episode`` (a conversation) are chained in the order they are added, which is what
    the context part of relevance reads.
    """

    def __init__(self, embedder: Embedder, weights: RetrievalWeights = DEFAULT_WEIGHTS) -> None:
        self.embedder = embedder
        self.weights = weights
        self.bm25 = BM25Index()
        self._ids: list[Hashable] = []
        self._texts: list[str] = []
        self._index: dict[Hashable, int] = {}
        self._episode_tail: dict[Hashable, int] = {}
        self._matrix = np.zeros((16, embedder.dim), dtype=np.float32)
        self._last_accessed = np.zeros(16)  # POSIX seconds
        self._expires = np.full(16, np.inf)
        self._poignancy = np.zeros(16)
        self._previous = np.full(16, -1, dtype=np.int64)
        self._asks = np.zeros(16, dtype=bool)

    def __len__(self) -> int:
        return len(self._ids)

    def add(
        self,
        text: str,
        *,
        created: datetime,
        poignancy: float = 5.0,
        memory_id: Hashable | None = None,
        expires: datetime | None = None,
        episode: Hashable | None = None,
    ) -> Hashable:
        """Add one memory (last accessed = created); returns its id (default: its position)."""
        return self.add_many(
            [text],
            created=[created],
            poignancy=[poignancy],
            memory_ids=None if memory_id is None else [memory_id],
            expires=[expires],
            episodes=[episode],
        )[0]

    def add_many(
        self,
        texts: Sequence[str],
        *,
        created: Sequence[datetime],
        poignancy: Sequence[float] | None = None,
        memory_ids: Sequence[Hashable] | None = None,
        expires: Sequence[datetime | None] | None = None,
        episodes: Sequence[Hashable | None] | None = None,
    ) -> list[Hashable]:
        """Add memories in one batch (one embedding call); ids must be new and unique. Default poignancy: 5."""
        count = len(texts)
        start = len(self._ids)
        ids: list[Hashable] = list(range(start, start + count)) if memory_ids is None else list(memory_ids)
        expires = [None] * count if expires is None else list(expires)
        episodes = [None] * count if episodes is None else list(episodes)
        if not len(created) == len(ids) == len(expires) == len(episodes) == count:
            raise ValueError("every per-memory argument must have one entry per text")
        if len(set(ids)) != count or any(i in self._index for i in ids):
            raise ValueError("memory ids must be unique")
        self._reserve(start + count)
        rows = slice(start, start + count)
        if count:
            self._matrix[rows] = self.embedder.embed(list(texts))
        self._last_accessed[rows] = [_seconds(c) for c in created]
        self._expires[rows] = [np.inf if e is None else _seconds(e) for e in expires]
        self._poignancy[rows] = 5.0 if poignancy is None else poignancy
        self._previous[rows] = -1
        self._asks[rows] = [ends_with_question(text) for text in texts]
        for row, (memory_id, text, episode) in enumerate(zip(ids, texts, episodes, strict=True), start):
            self._index[memory_id] = row
            self._ids.append(memory_id)
            self._texts.append(text)
            self.bm25.add(tokenize(text))
            if episode is not None:
                self._previous[row] = self._episode_tail.get(episode, -1)
                self._episode_tail[episode] = row
        return ids

    def retrieve(self, query: str, k: int, now: datetime, *, touch: bool = True) -> list[Hashable]:
        """Ids of the ``k`` best memories for ``query`` at ``now``, best first; expired ones never."""
        n = len(self._ids)
        if n == 0 or k <= 0:
            return []
        t = _seconds(now)
        scores = score_memories(
            self.embedder.embed([query])[0],
            tokenize(query),
            self._matrix[:n],
            self.bm25,
            (t - self._last_accessed[:n]) / 3600.0,
            self._poignancy[:n],
            self._expires[:n] <= t,
            self.weights,
            self._previous[:n],
            asks=self._asks[:n],
        )
        best = top_k(scores, k)
        if touch:
            self._last_accessed[best] = t
        return [self._ids[i] for i in best]

    def text(self, memory_id: Hashable) -> str:
        return self._texts[self._index[memory_id]]

    def last_accessed(self, memory_id: Hashable) -> datetime:
        return datetime.fromtimestamp(float(self._last_accessed[self._index[memory_id]]), UTC)

    def _reserve(self, size: int) -> None:
        capacity = self._poignancy.size
        if size <= capacity:
            return
        while capacity < size:
            capacity *= 2
        matrix = np.zeros((capacity, self._matrix.shape[1]), dtype=np.float32)
        matrix[: len(self._ids)] = self._matrix[: len(self._ids)]
        self._matrix = matrix
        # np.resize fills the new tail with repeats; add_many overwrites every row it takes.
        self._last_accessed = np.resize(self._last_accessed, capacity)
        self._expires = np.resize(self._expires, capacity)
        self._poignancy = np.resize(self._poignancy, capacity)
        self._previous = np.resize(self._previous, capacity)
        self._asks = np.resize(self._asks, capacity)


# --- the stored stream ----------------------------------------------------------------------------------


class Retrievable(Protocol):
    """What retrieval reads of a stored memory node (``models.memory.MemoryNode`` has it all)."""

    id: int
    node_type: str
    description: str
    embedding: bytes
    embedding_model: str
    created_at: datetime
    last_accessed_at: datetime
    expires_at: datetime | None
    poignancy: int
    depth: int
    conversation_id: int | None


R = TypeVar("R", bound=Retrievable)


def comparable_matrix(embeddings: Sequence[bytes], models: Sequence[str], model_id: str | None, dim: int) -> np.ndarray:
    """The stored vectors as an ``(n, dim)`` float32 matrix in which a vector of another model is a zero row.

    Why: vectors of two embedders live in different spaces (a change of embedder re-embeds the stream in the
    background, ``ella.reembed_memories``), so a query may only be compared with vectors of its own model; a
    zero row has cosine 0 with every query, and the memory is still found by its words (BM25), recency and
    importance. With ``model_id=None`` only the dimension is checked. The matrix is read-only: a view of the
    blobs joined once (at 100,000 memories a copy of it would cost more time than the join).
    """
    size = dim * 4
    zero = bytes(size)
    blobs = [
        blob if len(blob) == size and (model_id is None or model == model_id) else zero
        for blob, model in zip(embeddings, models, strict=True)
    ]
    return np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), dim)


def rank_memories(
    nodes: Sequence[R],
    query_vec: np.ndarray,
    query: str,
    k: int,
    now: datetime,
    weights: RetrievalWeights = DEFAULT_WEIGHTS,
    model_id: str | None = None,
) -> list[R]:
    """The ``k`` best of ``nodes`` (in (conversation, created) order) for ``query``; expired ones never.

    ``nodes`` may be a :class:`NodeIndex` (the per-process cache of a user's stream): it ranks with its own
    arrays instead of rebuilding them from every node. Only vectors of ``model_id`` (the query embedder's) are
    compared with the query (see :func:`comparable_matrix`).
    """
    if not nodes:
        return []
    if isinstance(nodes, NodeIndex):
        return cast(list[R], nodes.rank(query_vec, query, k, now, weights))
    query_vec = np.asarray(query_vec, dtype=np.float32)
    matrix = comparable_matrix(
        [n.embedding for n in nodes], [getattr(n, "embedding_model", "") for n in nodes], model_id, query_vec.size
    )
    hours = np.array([(now - n.last_accessed_at).total_seconds() / 3600 for n in nodes], dtype=np.float64)
    poignancy = np.array([n.poignancy for n in nodes], dtype=np.float64)
    expired = np.array([n.expires_at is not None and n.expires_at <= now for n in nodes])
    previous = np.array(
        [
            i - 1 if i and nodes[i - 1].conversation_id == n.conversation_id and n.conversation_id is not None else -1
            for i, n in enumerate(nodes)
        ]
    )
    bm25 = BM25Index(tokenize(n.description) for n in nodes)
    asks = np.array([ends_with_question(n.description) for n in nodes], dtype=bool)
    scores = score_memories(
        query_vec, tokenize(query), matrix, bm25, hours, poignancy, expired, weights, previous, asks=asks
    )
    return [nodes[i] for i in top_k(scores, k)]


def newest_thoughts(nodes: Sequence[Retrievable], n: int, now: datetime) -> list[str]:
    """The ``n`` newest unexpired thoughts among ``nodes``, newest first."""
    return [x.description for x in newest_thought_nodes(nodes, n, now)]


def newest_thought_nodes(nodes: Sequence[Retrievable], n: int, now: datetime) -> list[Retrievable]:
    """The nodes ``newest_thoughts`` reads (a reply records their ids: ``ella.seen``)."""
    if isinstance(nodes, NodeIndex):
        return list(nodes.newest_thought_nodes(n, now))
    live = [x for x in nodes if x.node_type == "thought" and (x.expires_at is None or x.expires_at > now)]
    return sorted(live, key=lambda x: (x.created_at, x.id), reverse=True)[:n]


# --- the cached stream ----------------------------------------------------------------------------------


@dataclass(slots=True)
class NodeRow:
    """One stored node as retrieval reads it (the columns ``models.memory.node_rows`` selects), in this order."""

    id: int
    node_type: str
    description: str
    embedding: bytes
    embedding_model: str
    created_at: datetime
    last_accessed_at: datetime
    expires_at: datetime | None
    poignancy: int
    depth: int
    conversation_id: int | None


EXACT_LIMIT = 20_000
"""Above this many memories, cosine is computed in two stages (see :meth:`NodeIndex.cosine`)."""
COARSE_DIM = 64
SHORTLIST = 1_000


def _largest(values: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` largest ``values``, in no order (which of equal values at the cut is arbitrary).

    Why not ``argpartition`` over everything: at 100,000 values it costs more than the product that made them.
    A strided sample's high quantile is a threshold that about ``2 k`` values pass; one comparison over all
    values and a partition of those few give the same set. When fewer than ``k`` pass (a stream sorted against
    the stride), the whole array is partitioned.
    """
    n = values.size
    if k >= n:
        return np.arange(n)
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    if n >= 32 * k:
        step = n // (16 * k)  # a sample of at least 16 k values, the largest 2 k of whose shares set the threshold
        sample = values[::step]
        cut = sample.size - max(2, (2 * k * sample.size) // n)
        threshold = np.partition(sample, cut)[cut]
        passed = np.flatnonzero(values >= threshold)
        if passed.size >= k:
            return passed[np.argpartition(values[passed], passed.size - k)[passed.size - k :]]
    return np.argpartition(values, n - k)[n - k :]


def _rows_of(live_rows: np.ndarray | None, positions: np.ndarray) -> np.ndarray:
    """Rows of the stream for positions among its live rows (``None``: every row is live)."""
    return positions if live_rows is None else live_rows[positions]


class NodeIndex(Sequence[NodeRow]):
    """A user's stored stream held as retrieval's arrays, so a retrieval does not rebuild them from the rows.

    Why: building the matrix, the BM25 index and the per-node arrays from 100,000 rows costs seconds; ranking
    prebuilt arrays costs milliseconds. The stream is append-only (rows are never edited except their last
    access, and only erasure deletes, all at once), so the index grows with :meth:`extend` and takes new last
    accesses with :meth:`touch`; ``adapters.memory_cache`` keeps one per user and brings it up to date.

    Order: rows are kept in the order they are added (ids ascending); the conversation context chains each
    node to the previous one of its conversation, as ``rank_memories``' (conversation, created) order does
    when nodes arrive in creation order. Above :data:`EXACT_LIMIT` memories the cosine is two-stage.
    """

    def __init__(self, model_id: str, dim: int) -> None:
        self.model_id = model_id
        self.dim = dim
        self._rows: list[NodeRow] = []
        self._row_of: dict[int, int] = {}
        self._tail: dict[int, int] = {}  # conversation -> its newest row
        self.bm25 = BM25Index()
        self._matrix = np.zeros((16, dim), dtype=np.float32)
        self._coarse: np.ndarray | None = None  # (capacity, COARSE_DIM), kept only above EXACT_LIMIT
        self._projection = np.random.default_rng(0).standard_normal((dim, COARSE_DIM)).astype(np.float32)
        self._accessed = np.zeros(16)  # POSIX seconds
        self._expires = np.full(16, np.inf)
        self._poignancy = np.zeros(16)
        self._previous = np.full(16, -1, dtype=np.int64)
        self._asks = np.zeros(16, dtype=bool)  # the memory ends with a question (see ends_with_question)
        self.foreign = 0  # rows whose vector is of another model (a zero row until re-embedded)
        self._linked = False  # some memory follows another of its conversation (the context part can be > 0)
        self._live_key: tuple[int, int] | None = None  # (rows, expired rows) that _live was computed for
        self._live = np.zeros(0, dtype=np.int64)
        self._importance_key: tuple[int, int | None] | None = None
        self._importance_values: np.ndarray | None = None
        self._informative_key: tuple[int, int] | None = None
        self._informative_values: np.ndarray | None = None
        self.newest_id = 0
        self.epoch = 0  # the user's memory_epoch this index was built at (adapters.memory_cache)
        self.accessed_mark: datetime | None = None  # the newest last access seen

    def __len__(self) -> int:
        return len(self._rows)

    @overload
    def __getitem__(self, i: int) -> NodeRow: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[NodeRow]: ...
    def __getitem__(self, i: int | slice) -> NodeRow | Sequence[NodeRow]:
        return self._rows[i]

    @property
    def nbytes(self) -> int:
        """About what the index holds in memory: the matrices (4 bytes per dimension per memory) and about 600
        bytes per memory for its row, its text, its BM25 postings and its place in the dictionaries (traced at
        100,000 synthetic memories: 289 MB in all, of which 234 MB matrices)."""
        return int(self._matrix.nbytes + (0 if self._coarse is None else self._coarse.nbytes)) + 600 * len(self)

    def extend(self, rows: Sequence[NodeRow]) -> None:
        """Append nodes newer than every node held (ids ascending)."""
        if not rows:
            return
        start, count = len(self._rows), len(rows)
        self._reserve(start + count)
        span = slice(start, start + count)
        block = comparable_matrix(
            [r.embedding for r in rows], [r.embedding_model for r in rows], self.model_id, self.dim
        )
        self.foreign += int(np.count_nonzero(~block.any(axis=1)))
        self._matrix[span] = block
        if self._coarse is not None:
            self._coarse[span] = block @ self._projection
        self._accessed[span] = [_seconds(r.last_accessed_at) for r in rows]
        self._expires[span] = [np.inf if r.expires_at is None else _seconds(r.expires_at) for r in rows]
        self._poignancy[span] = [r.poignancy for r in rows]
        self._asks[span] = [ends_with_question(r.description) for r in rows]
        self.bm25.extend([tokenize(r.description) for r in rows])
        # The index keeps its own rows without the vector (it is in the matrix): 2 KB less per memory.
        self._rows.extend(
            NodeRow(r.id, intern(r.node_type), r.description, b"", intern(r.embedding_model), r.created_at,
                    r.last_accessed_at, r.expires_at, r.poignancy, r.depth, r.conversation_id)
            for r in rows
        )  # fmt: skip
        self._row_of.update((r.id, row) for row, r in enumerate(rows, start))
        previous = self._previous
        tail = self._tail
        for row, node in enumerate(rows, start):
            conversation = node.conversation_id
            if conversation is None:
                previous[row] = -1
            else:
                previous[row] = tail.get(conversation, -1)
                tail[conversation] = row
        self._linked = self._linked or bool(np.any(previous[start : start + count] >= 0))
        self.newest_id = max(self.newest_id, max(r.id for r in rows))
        newest_access = max(r.last_accessed_at for r in rows)
        if self.accessed_mark is None or newest_access > self.accessed_mark:
            self.accessed_mark = newest_access
        if self._coarse is None and len(self._rows) > EXACT_LIMIT:
            self._coarse = np.zeros((self._matrix.shape[0], COARSE_DIM), dtype=np.float32)
            self._coarse[: len(self._rows)] = self._matrix[: len(self._rows)] @ self._projection

    def touch(self, accessed: Sequence[tuple[int, datetime]], *, read: bool = True) -> None:
        """Take new last accesses ``(node id, when)``; ids not held are ignored. ``read=False``: touches this process
        made itself, not read from the database, which leave ``accessed_mark`` (what the next read starts from)."""
        for node_id, when in accessed:
            row = self._row_of.get(node_id)
            if row is not None:
                self._accessed[row] = max(self._accessed[row], _seconds(when))
                self._rows[row].last_accessed_at = when
            if read and (self.accessed_mark is None or when > self.accessed_mark):
                self.accessed_mark = when

    def cosine(self, query_vec: np.ndarray, lexical: np.ndarray | None = None) -> np.ndarray:
        """Cosine of every memory with the query: exact up to :data:`EXACT_LIMIT` memories; above, exact for a
        shortlist and the shortlist's lowest value for the rest.

        Why: at 100,000 memories the matrix-vector product alone reads 150-200 MB and takes 12-20 ms here. The
        shortlist is the :data:`SHORTLIST` best by a fixed random projection to :data:`COARSE_DIM` dimensions
        (a 25 MB product) and as many of the best by ``lexical`` (the query's BM25 scores: those may well be
        returned). The rest, ranked by the projection below 1% of the stream, score as the least similar: an
        estimate would do worse, as the min-max normalisation would take the lowest of 100,000 noisy estimates.
        ``bench/retrieval.py --store`` measures how much of the top 30 is the exact ranking's. Both shortlists
        are picked without a selection over the whole stream (see :func:`_largest`); the lexical one keeps
        :func:`top_k`'s tie order, as BM25 scores tie often.
        """
        n = len(self._rows)
        q = np.asarray(query_vec, dtype=np.float32)
        if self._coarse is None:
            return np.asarray(self._matrix[:n] @ q, dtype=np.float64)
        approx = self._coarse[:n] @ (q @ self._projection)
        chosen = np.zeros(n, dtype=bool)
        chosen[_largest(approx, SHORTLIST)] = True
        if lexical is not None:
            positive = np.flatnonzero(lexical > 0)
            if positive.size > SHORTLIST:
                positive = positive[top_k(lexical[positive], SHORTLIST)]
            chosen[positive] = True
        shortlist = np.flatnonzero(chosen)  # ascending, as np.union1d gave it
        exact = self._matrix[shortlist] @ q
        out = np.full(n, float(exact.min()) if exact.size else 0.0)
        out[shortlist] = exact
        return out

    def rank(
        self, query_vec: np.ndarray, query: str, k: int, now: datetime, weights: RetrievalWeights = DEFAULT_WEIGHTS
    ) -> list[NodeRow]:
        """The ``k`` best nodes for ``query`` at ``now``, best first; expired ones never.

        The ranking is :func:`score_memories` then :func:`top_k` (with this index's cosine); without a second
        hop it is computed by :meth:`_best`, which gives the same rows in the same order for less work.
        """
        n = len(self._rows)
        if n == 0 or k <= 0:
            return []
        t = _seconds(now)
        tokens = tokenize(query)
        lexical = self.bm25.scores(tokens)
        cosine = self.cosine(query_vec, lexical if self._coarse is not None else None)
        if weights.hop or weights.w_recency < 0 or weights.w_importance < 0:
            scores = score_memories(
                np.asarray(query_vec, dtype=np.float32),
                tokens,
                self._matrix[:n],
                self.bm25,
                (t - self._accessed[:n]) / 3600.0,
                self._poignancy[:n],
                self._expires[:n] <= t,
                weights,
                self._previous[:n],
                cosine=cosine,
                asks=self._asks[:n],
            )
            best = top_k(scores, k)
        else:
            best = self._best(cosine, lexical if tokens else None, t, k, weights)
        return [self._rows[i] for i in best]

    def _best(
        self, cosine: np.ndarray, lexical: np.ndarray | None, t: float, k: int, weights: RetrievalWeights
    ) -> np.ndarray:
        """``top_k(score_memories(...), k)`` for this index's rows at POSIX time ``t``, without a second hop.

        Why not call :func:`score_memories`: at 100,000 memories it spends most of its time on what does not
        change between calls or cannot change the winners. Here the live rows and the normalised importance
        are kept until a row is added or expires, and recency (``decay ** hours``, the costliest formula) is
        computed only for the rows that can still reach the top ``k``: a row's score is its relevance and
        importance part plus ``w_recency`` times a recency in [0, 1], so a row whose part plus ``w_recency`` is
        below the ``k``-th best part cannot be among the ``k`` best. The normalisation's ends come from the
        newest and oldest accesses (``decay ** hours`` is monotone in the hours). Every value is computed by
        the same operations in the same order as :func:`score_memories`, so scores and ties are the same;
        ``tests/test_retrieval_fast.py`` compares the two on random streams.
        """
        n = len(self._rows)
        live_rows = self._live_rows(t)
        if live_rows is not None and live_rows.size == 0:
            return np.zeros(0, dtype=np.int64)

        def live(x: np.ndarray) -> np.ndarray:
            return x if live_rows is None else x[live_rows]

        relevance = normalize(live(cosine))
        if lexical is not None and weights.fuse < 1.0:
            relevance = weights.fuse * relevance + (1.0 - weights.fuse) * normalize(live(lexical))
        if weights.context and weights.context_steps > 0:
            if self._linked:
                full = relevance
                if live_rows is not None:
                    full = np.zeros(n)
                    full[live_rows] = relevance
                around = context_relevance(full, self._previous[:n], weights.context_steps, weights.context_decay)
                relevance = normalize(relevance + weights.context * live(around))
            else:  # no memory has a neighbour in its conversation: the context part is 0 everywhere
                relevance = normalize(relevance)
        if weights.length:
            relevance = relevance * (1.0 + weights.length * live(self._informative(weights.length_terms)))
        if weights.asking:
            relevance = relevance * np.where(live(self._asks[:n]), 1.0 - weights.asking, 1.0)
        total = weights.w_relevance * relevance
        hours = (t - live(self._accessed[:n])) / 3600.0
        importance = self._importance(live_rows) if weights.w_importance else None
        if not weights.w_recency:
            if importance is not None:
                total += weights.w_importance * importance
            return _rows_of(live_rows, top_k(total, k))
        ends = recency(np.array([hours.min(), hours.max()]), weights.decay)
        low, high = float(ends.min()), float(ends.max())
        if not high > low:  # every access at the same hour: recency says nothing (normalize's 0.5)
            total += weights.w_recency * np.full(total.shape, 0.5)
            if importance is not None:
                total += weights.w_importance * importance
            return _rows_of(live_rows, top_k(total, k))
        part = total if importance is None else total + weights.w_importance * importance
        floor = float(part[_largest(part, k)].min())  # the k-th best score is at least this
        slack = 1e-9 * (1.0 + abs(floor) + weights.w_recency)  # rounding between the bound and the sum
        candidates = np.flatnonzero(part >= floor - weights.w_recency - slack)
        scores = total[candidates]
        scores += weights.w_recency * ((recency(hours[candidates], weights.decay) - low) / (high - low))
        if importance is not None:
            scores += weights.w_importance * importance[candidates]
        return _rows_of(live_rows, candidates[top_k(scores, k)])

    def _live_rows(self, t: float) -> np.ndarray | None:
        """The rows not expired at ``t`` (ascending), or None when none is; kept while their count holds.

        The expired rows are those whose expiry is at or before ``t``: for the same rows, their count tells
        which they are, so it is the cache key with the number of rows.
        """
        n = len(self._rows)
        expired = self._expires[:n] <= t
        key = (n, int(np.count_nonzero(expired)))
        if key[1] == 0:
            return None
        if self._live_key != key:
            self._live_key, self._live = key, np.flatnonzero(~expired)
        return self._live

    def _informative(self, full: int) -> np.ndarray:
        """:func:`informativeness` of every row, kept and extended by the rows added since (lengths never
        change, and the value is per row): a retrieval right after a new memory, the usual case in a chat,
        computes it for that memory alone, not again for 100,000."""
        n = len(self._rows)
        values, key = self._informative_values, self._informative_key
        if values is None or key is None or key[1] != full or key[0] > n:
            values = informativeness(self.bm25.lengths, full)
        elif key[0] < n:
            values = np.concatenate([values, informativeness(self.bm25.lengths[key[0] :], full)])
        self._informative_key, self._informative_values = (n, full), values
        return values

    def _importance(self, live_rows: np.ndarray | None) -> np.ndarray:
        """Poignancy min-max normalised over the live rows, as :func:`score_memories` does; kept with them."""
        key = (len(self._rows), None if live_rows is None else live_rows.size)
        if self._importance_key != key or self._importance_values is None:
            poignancy = self._poignancy[: len(self._rows)]
            self._importance_key = key
            self._importance_values = normalize(poignancy if live_rows is None else poignancy[live_rows])
        return self._importance_values

    def newest_thoughts(self, n: int, now: datetime) -> list[str]:
        """The ``n`` newest unexpired thoughts, newest first (rows are in id order, so from the end)."""
        return [x.description for x in self.newest_thought_nodes(n, now)]

    def newest_thought_nodes(self, n: int, now: datetime) -> list[NodeRow]:
        found: list[NodeRow] = []
        for node in reversed(self._rows):
            if node.node_type == "thought" and (node.expires_at is None or node.expires_at > now):
                found.append(node)
        return sorted(found, key=lambda x: (x.created_at, x.id), reverse=True)[:n]

    def _reserve(self, size: int) -> None:
        """Room for ``size`` rows: a quarter more than held when growing (amortised O(1) appends at 25% slack,
        not the up to 100% of doubling, which at 100,000 memories was 60 MB of matrix), a sixteenth on a build."""
        capacity = self._poignancy.size
        if size <= capacity:
            return
        capacity = max(size + size // 16, capacity + capacity // 4)
        held = len(self._rows)
        matrix = np.zeros((capacity, self.dim), dtype=np.float32)
        matrix[:held] = self._matrix[:held]
        self._matrix = matrix
        if self._coarse is not None:
            coarse = np.zeros((capacity, COARSE_DIM), dtype=np.float32)
            coarse[:held] = self._coarse[:held]
            self._coarse = coarse
        self._accessed = np.resize(self._accessed, capacity)
        self._expires = np.resize(self._expires, capacity)
        self._poignancy = np.resize(self._poignancy, capacity)
        self._previous = np.resize(self._previous, capacity)
        self._asks = np.resize(self._asks, capacity)

"""Memory retrieval latency: our vectorised scoring vs the Generative Agents reference, at 1k, 10k and 100k memories.

Both rank every memory by recency, importance and relevance and keep the top 30, per query:
- ours: ``score_memories`` (cosine fused with BM25, conversation context, recency by hours since last
  access, poignancy; about 1% of the memories expired) then ``top_k``;
- the reference, as Generative Agents' ``new_retrieve`` does it (retrieve.py), written out below in plain
  Python: a dict of node objects sorted by last access, recency ``decay ** i`` by rank, importance and relevance
  per node (its ``cos_sim`` is numpy's ``dot``/``norm`` called on Python lists, once per node), three
  ``normalize_dict_floats``, the weighted sum ``[0.5, 3, 2]`` and ``top_highest_x_values``.
Query embedding (``HashingEmbedder``, dim 512) is INCLUDED in both timings, as it is part of every retrieval
(the reference calls ``get_embedding(focal_pt)`` inside). Times are medians per query; the reference runs
fewer queries at the larger sizes. The memories (synthetic short first-person notes in conversations of
4-30 turns) are generated and embedded once; 1k and 10k are prefixes of the 100k. No Redis, no database.
The last line is JSON with the numbers.

With ``--store``, through the real store instead: for each of ``--sizes`` (10k and 100k), that many memories are
written as one user's ``memory_nodes`` rows (PostgreSQL by default, ``--backend sqlite``; no conversations, so no
context part) and retrieved as the reply does, through the per-process cache (``adapters.memory_cache``): cold
(the first retrieval builds the user's index from the rows; what the index holds is traced apart), warm
(``--warm`` retrievals after a warm-up: the one query for the cache key and the touches since, then the ranking;
p50, p90 and p99 of wall time, and this process's CPU time, less sensitive to other work on a shared machine),
warm after a new node (the delta read), and the old way (load every node as an ORM object, then rank) once.
Query embedding is timed apart. Above 20k memories it also reports how much of the top 30 the shortlisted
cosine shares with the exact one.

    python bench/retrieval.py [--queries 50] [--ref-queries 20,10,3] [--k 30]
    python bench/retrieval.py --store [--backend postgresql] [--sizes 10000,100000] [--warm 200] [--skip-old-way]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

import numpy as np
from numpy import dot
from numpy.linalg import norm

from ella.embeddings import HashingEmbedder
from ella.memory.retrieval import BM25Index, RetrievalWeights, score_memories, tokenize, top_k
from tests.support.scratch import create_database, scratch_run

SIZES = (1_000, 10_000, 100_000)
NAMES = """Sam Maya Jordan Priya Lukas Aiko Omar Zoë Mateo Chloe Ravi Noor Elena Tom Ines Kofi Hana Liam Sofia Yusuf
Mia Arjun Lea Diego Nora Felix Amara Jonas Leila Theo""".split()
PEOPLE = """sister brother mum dad boss best friend flatmate grandmother partner cousin neighbour teacher coach
therapist colleague son daughter aunt uncle""".split()
ACTIVITIES = """a job interview|a dentist appointment|a football match|a piano lesson|a birthday party|an exam in
statistics|a flight to Lisbon|a date at the new ramen place|a run along the river|a call with the landlord|pottery
class|a hike in the mountains|the book club|a camping trip|a charity race|a concert|the first day at the new job|
a visit to the vet|moving flats|a wedding|a yoga retreat|a driving test|a job offer|a breakup|a promotion|a surgery|
the school play|a road trip|a painting workshop|a support group meeting|volunteering at the shelter|a cooking class|
a hackathon|a piano recital|a marathon|a funeral|an argument at work|a holiday in Greece|a new puppy|a garden party"""
ACTIVITIES = [a.strip().replace("\n", " ") for a in ACTIVITIES.split("|")]
WHEN = """on Monday|on Tuesday|on Wednesday|on Thursday|on Friday|at the weekend|tomorrow|next week|last night|
yesterday|in March|after work|this morning|next month""".split("|")
WHEN = [w.strip() for w in WHEN]
FEELINGS = """nervous excited tired proud worried relieved happy stressed bored lonely hopeful grateful
overwhelmed calm angry curious""".split()
PLACES = """Lisbon Berlin the park the office the beach the gym the hospital the library the café the lake Tokyo
the studio the market home""".split()
TEMPLATES = [
    "{name} has {act} {when} and feels {feeling} about it",
    "{name}'s {person} is coming over {when}",
    "{name} said their {person} was {feeling} after {act}",
    "I told {name} I would ask about {act} {when}",
    "{name} went to {place} {when} and came back {feeling}",
    "{name} and their {person} argued about {act}; {name} felt {feeling}",
    "{name} is {feeling} because {act} got moved to {when}",
    "{name} wants to try {act} with their {person} at {place}",
    "Reminder: ask {name} how {act} went",
    "{name} showed me a photo from {place}: {feeling} faces everywhere",
]
QUERIES = [
    "How did {name}'s {act} go?",
    "What is {name} {feeling} about?",
    "When is {name} seeing their {person}?",
    "What happened at {place}?",
    "{name} {act}",
]


def fill(template: str, rng: random.Random) -> str:
    return template.format(
        name=rng.choice(NAMES),
        person=rng.choice(PEOPLE),
        act=rng.choice(ACTIVITIES),
        when=rng.choice(WHEN),
        feeling=rng.choice(FEELINGS),
        place=rng.choice(PLACES),
    )


class Memories:
    """The synthetic stream, oldest first: texts, unit embeddings, BM25 terms and the per-memory arrays."""

    def __init__(self, n: int, seed: int) -> None:
        rng = random.Random(seed)
        self.texts = [fill(rng.choice(TEMPLATES), rng) for _ in range(n)]
        embedder = HashingEmbedder()
        start = time.perf_counter()
        self.matrix = np.concatenate([embedder.embed(self.texts[i : i + 1024]) for i in range(0, n, 1024)])
        self.embed_s = time.perf_counter() - start
        self.tokens = [tokenize(t) for t in self.texts]
        np_rng = np.random.default_rng(seed)
        # A year of conversations of 4-30 turns: two minutes between turns, hours to days between chats.
        lengths = np_rng.integers(4, 31, n // 4 + 1)
        lengths = lengths[: int(np.searchsorted(np.cumsum(lengths), n)) + 1]
        lengths[-1] -= int(lengths.sum()) - n
        starts = np.cumsum(np_rng.exponential(24 * 365 / lengths.size, lengths.size))  # hours
        first = np.repeat(np.cumsum(lengths) - lengths, lengths)  # each memory's conversation's first row
        self.created_h = np.repeat(starts, lengths) + (np.arange(n) - first) / 30.0
        self.previous = np.where(np.arange(n) > first, np.arange(n) - 1, -1)
        self.now_h = float(self.created_h[-1]) + 1.0
        recalled = np_rng.random(n) < 0.1  # one memory in ten was retrieved again since
        self.last_accessed_h = np.where(
            recalled, self.created_h + np_rng.random(n) * (self.now_h - self.created_h), self.created_h
        )
        self.poignancy = np_rng.integers(1, 11, n).astype(np.float64)
        self.expired = np_rng.random(n) < 0.01  # planning thoughts past their expiry


def ours(
    mem: Memories, bm25: BM25Index, n: int, queries: list[str], k: int, embedder: HashingEmbedder
) -> tuple[list[float], list[np.ndarray]]:
    """Milliseconds per query (query embedding included) and the winners, with ``score_memories`` + ``top_k``."""
    weights = RetrievalWeights()
    matrix, previous = mem.matrix[:n], mem.previous[:n]
    poignancy, expired, last = mem.poignancy[:n], mem.expired[:n], mem.last_accessed_h[:n]
    times, winners = [], []
    for query in queries:
        start = time.perf_counter()
        scores = score_memories(
            embedder.embed([query])[0],
            tokenize(query),
            matrix,
            bm25,
            mem.now_h - last,
            poignancy,
            expired,
            weights,
            previous,
        )
        best = top_k(scores, k)
        times.append((time.perf_counter() - start) * 1000)
        winners.append(best)
    return times, winners


# --- the reference, as Generative Agents writes it ------------------------------------------------------


class ConceptNode:
    """The fields of GA's ``ConceptNode`` that retrieval reads."""

    def __init__(self, node_id: str, last_accessed: float, poignancy: float, embedding_key: str) -> None:
        self.node_id = node_id
        self.last_accessed = last_accessed
        self.poignancy = poignancy
        self.embedding_key = embedding_key


def cos_sim(a: list[float], b: list[float]) -> float:
    return dot(a, b) / (norm(a) * norm(b))


def normalize_dict_floats(d: dict[str, float], target_min: float, target_max: float) -> dict[str, float]:
    min_val = min(val for val in d.values())
    max_val = max(val for val in d.values())
    range_val = max_val - min_val
    if range_val == 0:
        for key in d:
            d[key] = (target_max - target_min) / 2
    else:
        for key, val in d.items():
            d[key] = (val - min_val) * (target_max - target_min) / range_val + target_min
    return d


def top_highest_x_values(d: dict[str, float], x: int) -> dict[str, float]:
    return dict(sorted(d.items(), key=lambda item: item[1], reverse=True)[:x])


def reference_retrieve(
    nodes_seq: list[ConceptNode],
    embeddings: dict[str, list[float]],
    focal_pt: str,
    embedder: HashingEmbedder,
    n_count: int,
    recency_decay: float = 0.99,
) -> list[str]:
    """GA's ``new_retrieve`` for one focal point (its recency_w, relevance_w, importance_w are 1)."""
    nodes = [[i.last_accessed, i] for i in nodes_seq if "idle" not in i.embedding_key]
    nodes = sorted(nodes, key=lambda x: x[0])
    nodes = [i for _, i in nodes]
    recency_vals = [recency_decay**i for i in range(1, len(nodes) + 1)]
    recency_out = {node.node_id: recency_vals[count] for count, node in enumerate(nodes)}
    recency_out = normalize_dict_floats(recency_out, 0, 1)
    importance_out = {node.node_id: node.poignancy for node in nodes}
    importance_out = normalize_dict_floats(importance_out, 0, 1)
    focal_embedding = embedder.embed([focal_pt])[0].tolist()  # get_embedding(focal_pt)
    relevance_out = {node.node_id: cos_sim(embeddings[node.embedding_key], focal_embedding) for node in nodes}
    relevance_out = normalize_dict_floats(relevance_out, 0, 1)
    gw = [0.5, 3, 2]
    master_out = {
        key: recency_out[key] * gw[0] + relevance_out[key] * gw[1] + importance_out[key] * gw[2] for key in recency_out
    }
    master_out = top_highest_x_values(master_out, len(master_out.keys()))
    master_out = top_highest_x_values(master_out, n_count)
    return list(master_out.keys())


def reference(
    mem: Memories, rows: list[list[float]], n: int, queries: list[str], k: int, embedder: HashingEmbedder
) -> list[float]:
    """Milliseconds per query of the reference over the first ``n`` memories."""
    nodes = [
        ConceptNode(f"node_{i}", float(mem.last_accessed_h[i]), float(mem.poignancy[i]), mem.texts[i]) for i in range(n)
    ]
    embeddings = {mem.texts[i]: rows[i] for i in range(n)}  # GA keys embeddings by the node's text
    times = []
    for query in queries:
        start = time.perf_counter()
        reference_retrieve(nodes, embeddings, query, embedder, k)
        times.append((time.perf_counter() - start) * 1000)
    return times


def traced_index_mb(user: str, embedder: HashingEmbedder) -> float:
    """What a user's index holds, in MB: Python's traced allocations kept after building it from the rows
    (its matrices, rows, texts, postings, dictionaries). The process's resident size would not say it: the rows
    read from the database are freed after the build, but their pages stay with the process."""
    import gc
    import tracemalloc

    import ella.memory.retrieval as retrieval
    from adapters import db
    from models.memory import node_rows

    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        index = retrieval.NodeIndex(embedder.model_id, embedder.dim)
        with db.autocommit_scope() as session:
            index.extend(node_rows(session, user))
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    del index
    return held / 2**20


def write_user(user: str, mem: Memories, n: int, epoch: datetime, model_id: str) -> None:
    """The first ``n`` synthetic memories as ``user``'s ``memory_nodes`` rows (no conversations)."""
    from sqlalchemy import insert

    from adapters import db
    from ella.memory.vectors import pack
    from models import MemoryNode, User

    with db.session_scope() as session:
        session.add(User(id=user))
        session.flush()
        for lo in range(0, n, 5000):
            session.execute(
                insert(MemoryNode),
                [
                    {
                        "user_id": user,
                        "node_type": "event",
                        "created_at": epoch + timedelta(hours=float(mem.created_h[i])),
                        "last_accessed_at": epoch + timedelta(hours=float(mem.last_accessed_h[i])),
                        "expires_at": epoch if mem.expired[i] else None,
                        "subject": user,
                        "predicate": "said",
                        "object": mem.texts[i][:40],
                        "description": mem.texts[i],
                        # as the store writes a vector (ella.memory.vectors: float16 with its format)
                        **dict(
                            zip(("stored_embedding", "embedding_format"), pack(mem.matrix[i].tobytes()), strict=True)
                        ),
                        "embedding_model": model_id,
                        "poignancy": int(mem.poignancy[i]),
                    }
                    for i in range(lo, min(n, lo + 5000))
                ],
            )


def store_figures(args: argparse.Namespace, mem: Memories, n: int, user: str, epoch: datetime) -> dict[str, float]:
    """Cold, warm, after-a-new-node and old-way retrieval of ``user``'s ``n`` memories (see the docstring)."""
    import ella.memory.retrieval as retrieval
    from adapters import db
    from adapters.memory_cache import MemoryCache
    from models import MemoryNode
    from models.memory import node_rows, user_nodes

    embedder = HashingEmbedder()
    now = epoch + timedelta(hours=float(mem.created_h[n - 1]) + 1.0)
    rng = random.Random(2)
    queries = [fill(rng.choice(QUERIES), rng) for _ in range(args.queries)]
    vectors = embedder.embed(queries)
    embed_ms = []
    for q in queries:
        t0 = time.perf_counter()
        embedder.embed([q])
        embed_ms.append((time.perf_counter() - t0) * 1000)

    cache = MemoryCache(max_rows=10 * n)
    sync_ms: list[float] = []
    cpu_ms: list[float] = []  # this process's CPU time per retrieval: on a shared machine, less noisy than wall

    def retrieve(i: int) -> float:
        t0, c0 = time.perf_counter(), time.process_time()
        with db.autocommit_scope() as session:
            index = cache.index(session, user, embedder)
        sync_ms.append((time.perf_counter() - t0) * 1000)
        i %= len(queries)
        retrieval.rank_memories(index, vectors[i], queries[i], args.k, now)
        cpu_ms.append((time.process_time() - c0) * 1000)
        return (time.perf_counter() - t0) * 1000

    cold_ms = retrieve(0)
    for i in range(5):  # warm-up: the first calls fault in pages and fill numpy's caches
        retrieve(i)
    del sync_ms[:], cpu_ms[:]
    warm_ms = [retrieve(i) for i in range(args.warm)]
    warm_sync_ms, warm_cpu_ms = list(sync_ms), list(cpu_ms)
    after_new = []
    for i in range(5):  # a new node each time: the warm path reads the delta
        text = f"a brand new memory number {i}"
        with db.session_scope() as session:
            session.add(
                MemoryNode(
                    user_id=user, node_type="event", created_at=now, last_accessed_at=now, subject=user,
                    predicate="said", object="new", description=text, embedding=embedder.embed([text])[0].tobytes(),
                    embedding_model=embedder.model_id, poignancy=5,
                )
            )  # fmt: skip
        after_new.append(retrieve(i))
    assert cache.builds == 1, cache.builds
    staged = cache.index_of(user)
    assert staged is not None
    label = f"{n // 1000}k"
    figures: dict[str, float] = {
        f"cold_ms_{label}": round(cold_ms, 1),
        f"warm_ms_p50_{label}": round(statistics.median(warm_ms), 3),
        f"warm_ms_p90_{label}": round(float(np.percentile(warm_ms, 90)), 3),
        f"warm_ms_p99_{label}": round(float(np.percentile(warm_ms, 99)), 3),
        f"warm_sync_ms_p50_{label}": round(statistics.median(warm_sync_ms), 3),
        f"warm_cpu_ms_p50_{label}": round(statistics.median(warm_cpu_ms), 3),
        f"warm_cpu_ms_p99_{label}": round(float(np.percentile(warm_cpu_ms, 99)), 3),
        f"after_new_node_ms_p50_{label}": round(statistics.median(after_new), 3),
        f"query_embedding_ms_p50_{label}": round(statistics.median(embed_ms), 3),
        f"index_traced_mb_{label}": round(traced_index_mb(user, embedder), 1),
        f"index_nbytes_mb_{label}": round(staged.nbytes / 2**20, 1),
    }
    if staged._coarse is not None:  # agreement of the shortlisted cosine with the exact one, on the same rows
        exact = retrieval.NodeIndex(embedder.model_id, embedder.dim)
        limit = retrieval.EXACT_LIMIT
        retrieval.EXACT_LIMIT = 10 * n
        try:
            with db.autocommit_scope() as session:  # the index's own rows do not keep their vectors
                exact.extend(node_rows(session, user))
        finally:
            retrieval.EXACT_LIMIT = limit
        overlap = []
        for i, q in enumerate(queries):
            got = {x.id for x in staged.rank(vectors[i], q, args.k, now)}
            want = {x.id for x in exact.rank(vectors[i], q, args.k, now)}
            overlap.append(len(got & want) / max(1, len(want)))
        figures[f"top{args.k}_shared_with_exact_{label}"] = round(float(np.mean(overlap)), 3)
        del exact
    if not args.skip_old_way:
        start = time.perf_counter()
        with db.autocommit_scope() as session:
            nodes = user_nodes(session, user)
        retrieval.rank_memories(nodes, vectors[0], queries[0], args.k, now, model_id=embedder.model_id)
        figures[f"old_way_ms_{label}"] = round((time.perf_counter() - start) * 1000, 1)
        del nodes
    print(
        f"{n:>7,}: cold {cold_ms:.0f} ms (index {figures[f'index_traced_mb_{label}']:.0f} MB traced), warm p50 "
        f"{figures[f'warm_ms_p50_{label}']} ms p99 {figures[f'warm_ms_p99_{label}']} ms (of which the database "
        f"p50 {figures[f'warm_sync_ms_p50_{label}']} ms; CPU p50 {figures[f'warm_cpu_ms_p50_{label}']} ms), "
        f"after a new node p50 "
        f"{figures[f'after_new_node_ms_p50_{label}']} ms; query embedding p50 "
        f"{figures[f'query_embedding_ms_p50_{label}']} ms (not included)"
    )
    return figures


def store(args: argparse.Namespace) -> None:
    """Retrieval through the real store at each of ``--sizes`` memories (see the module's docstring)."""
    run, var = scratch_run("bench")
    url, drop = create_database(args.backend, f"ella_rt_{run}", var)
    os.environ["ELLA_DATABASE_URL"] = url
    from adapters.settings import get_settings

    get_settings.cache_clear()
    from adapters import db

    try:
        db.upgrade()
        sizes = sorted(int(x) for x in args.sizes.split(","))
        mem = Memories(sizes[-1], seed=1)
        epoch = datetime(2026, 1, 1, tzinfo=UTC)
        figures: dict[str, object] = {"backend": args.backend, "k": args.k, "warm_retrievals": args.warm}
        for n in sizes:
            start = time.perf_counter()
            user = f"bench-{run}-{n}"
            write_user(user, mem, n, epoch, HashingEmbedder().model_id)
            print(f"{n:,} memory_nodes rows of one user written in {time.perf_counter() - start:.1f}s ({args.backend})")
            figures |= store_figures(args, mem, n, user, epoch)
        print(json.dumps(figures))
    finally:
        drop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--ref-queries", default="20,10,3", help="reference queries at 1k, 10k, 100k")
    parser.add_argument("--k", type=int, default=30)
    parser.add_argument("--store", action="store_true", help="through the real store and its cache")
    parser.add_argument("--sizes", default="10000,100000", help="--store: memories of each user, comma-separated")
    parser.add_argument("--warm", type=int, default=200, help="--store: warm retrievals timed per size")
    parser.add_argument("--skip-old-way", action="store_true", help="--store: skip loading every node as before")
    parser.add_argument("--backend", default="postgresql", choices=["postgresql", "sqlite"])
    args = parser.parse_args()
    if args.store:
        store(args)
        return
    ref_queries = [int(x) for x in args.ref_queries.split(",")]

    mem = Memories(SIZES[-1], seed=1)
    print(f"{SIZES[-1]:,} memories embedded once in {mem.embed_s:.1f}s (HashingEmbedder, dim {mem.matrix.shape[1]})")
    rng = random.Random(2)
    queries = [fill(rng.choice(QUERIES), rng) for _ in range(args.queries)]
    embedder = HashingEmbedder()
    embedder.embed(queries)  # warm the word cache, as a long-running worker's would be
    rows = mem.matrix.astype(float).tolist()

    bm25 = BM25Index()
    figures: dict[str, float] = {}
    print(f"{'memories':>9} {'ours ms':>9} {'ours p90':>9} {'reference ms':>13} {'speedup':>8}")
    for size, n_ref in zip(SIZES, ref_queries, strict=True):
        start = time.perf_counter()
        for tokens in mem.tokens[len(bm25) : size]:
            bm25.add(tokens)
        index_s = time.perf_counter() - start
        ours(mem, bm25, size, queries[:3], args.k, embedder)  # warm-up
        times, _ = ours(mem, bm25, size, queries, args.k, embedder)
        ref_times = reference(mem, rows, size, queries[:n_ref], args.k, embedder)
        ms, ref_ms = statistics.median(times), statistics.median(ref_times)
        p90 = float(np.percentile(times, 90))
        label = f"{size // 1000}k"
        figures |= {f"ms_{label}": round(ms, 3), f"p90_ms_{label}": round(p90, 3), f"ref_ms_{label}": round(ref_ms, 1)}
        figures |= {f"speedup_{label}": round(ref_ms / ms, 1), f"bm25_index_s_{label}": round(index_s, 2)}
        print(f"{size:>9,} {ms:>9.3f} {p90:>9.3f} {ref_ms:>13.1f} {ref_ms / ms:>7.0f}x  ({n_ref} reference queries)")
    figures |= {
        "k": args.k,
        "queries": args.queries,
        "query_embedding": "included",
        "embed_100k_s": round(mem.embed_s, 2),
    }
    print(json.dumps(figures))


if __name__ == "__main__":
    main()

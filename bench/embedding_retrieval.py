"""Embedding and retrieval speed of the default embedder: batched vs one text at a time, numpy vs pure Python.

Two figures, each against its naive counterpart on the same data:
- embed: 10,000 short synthetic memory texts with ``HashingEmbedder``, in batches of 256 vs one per call
  (each on a fresh embedder, so both start with a cold word cache);
- rank: ``cosine_top_k`` (k=10) over the 10,000 x 512 memory matrix for 1,000 queries vs a pure-Python
  dot-product loop and sort over the same rows for 20 queries (milliseconds per query).
No Redis and no database are needed. The last line is JSON with the numbers.

    python bench/embedding_retrieval.py [--memories 10000] [--queries 1000] [--python-queries 20]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

import numpy as np

from ella.embeddings import HashingEmbedder, cosine_top_k

NAMES = ["Sam", "Maya", "Jordan", "Priya", "Lukas", "Aiko", "Omar", "Zoë", "Mateo", "Chloe", "Ravi", "Noor"]
PEOPLE = ["sister", "brother", "mum", "dad", "boss", "best friend", "flatmate", "grandmother", "partner"]
EVENTS = [
    "a job interview",
    "a dentist appointment",
    "a football match",
    "a piano lesson",
    "a birthday party",
    "an exam in statistics",
    "a flight to Lisbon",
    "a date at the new ramen place",
    "a run along the river",
    "a call with the landlord",
]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday", "tomorrow", "next week"]
FEELINGS = ["nervous", "excited", "tired", "proud", "worried", "relieved", "happy", "stressed", "bored"]
TEMPLATES = [
    "{name} has {event} on {day} and feels {feeling}",
    "{name}'s {person} is coming over on {day}",
    "{name} said the {person} was {feeling} after {event}",
    "I told {name} I would ask about {event} on {day}",
    "{name} likes cats, hates mornings and is {feeling} about {event}",
    "{name} and their {person} argued about {event}; {name} felt {feeling}",
]


def memory_texts(n: int, seed: int) -> list[str]:
    """Short first-person memories like the ones Ella writes: names, events, days and feelings, reshuffled."""
    rng = random.Random(seed)
    return [
        rng.choice(TEMPLATES).format(
            name=rng.choice(NAMES),
            person=rng.choice(PEOPLE),
            event=rng.choice(EVENTS),
            day=rng.choice(DAYS),
            feeling=rng.choice(FEELINGS),
        )
        + f" (note {i})"
        for i in range(n)
    ]


def bench_embed(texts: list[str], batch: int) -> tuple[float, float, np.ndarray]:
    """Seconds to embed ``texts`` in batches vs one at a time, each on a cold embedder; and the matrix."""
    embedder = HashingEmbedder()
    start = time.perf_counter()
    matrix = np.concatenate([embedder.embed(texts[i : i + batch]) for i in range(0, len(texts), batch)])
    batched_s = time.perf_counter() - start

    embedder = HashingEmbedder()
    start = time.perf_counter()
    singles = np.concatenate([embedder.embed([t]) for t in texts])
    single_s = time.perf_counter() - start
    assert np.allclose(singles, matrix, atol=1e-6), "batched and single embeddings differ"
    return batched_s, single_s, matrix


def python_top_k(query: list[float], rows: list[list[float]], k: int) -> list[int]:
    """What a loop without numpy does: a dot product per row (rows are unit vectors), then a full sort."""
    scores = [sum(q * r for q, r in zip(query, row, strict=True)) for row in rows]
    return sorted(range(len(scores)), key=lambda i: -scores[i])[:k]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=1_000)
    parser.add_argument("--python-queries", type=int, default=20)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--k", type=int, default=10)
    args = parser.parse_args()

    texts = memory_texts(args.memories, seed=1)
    batched_s, single_s, matrix = bench_embed(texts, args.batch)
    print(f"embed {len(texts)} texts: batches of {args.batch} {batched_s:.2f}s, one at a time {single_s:.2f}s")
    print(f"  {len(texts) / batched_s:,.0f} vs {len(texts) / single_s:,.0f} texts/s: x{single_s / batched_s:.1f}")

    queries = HashingEmbedder().embed(memory_texts(args.queries, seed=2))
    start = time.perf_counter()
    numpy_top = [cosine_top_k(q, matrix, args.k, normalized=True)[0] for q in queries]
    numpy_ms = (time.perf_counter() - start) * 1000 / len(queries)

    rows = matrix.astype(float).tolist()
    start = time.perf_counter()
    python_top = [python_top_k(q, rows, args.k) for q in queries[: args.python_queries].astype(float).tolist()]
    python_ms = (time.perf_counter() - start) * 1000 / len(python_top)
    agree = sum(len(set(p) & set(n.tolist())) for p, n in zip(python_top, numpy_top, strict=False))
    print(f"top-{args.k} over {matrix.shape[0]} x {matrix.shape[1]}: cosine_top_k {numpy_ms:.3f} ms/query")
    print(f"  pure Python {python_ms:.1f} ms/query over {len(python_top)} queries: x{python_ms / numpy_ms:,.0f}")
    print(f"  same neighbours in {agree}/{args.k * len(python_top)} places (a difference would be an exact-score tie)")

    print(
        json.dumps(
            {
                "embed_texts": len(texts),
                "embed_batch": args.batch,
                "embed_batched_s": round(batched_s, 3),
                "embed_single_s": round(single_s, 3),
                "embed_batched_texts_per_s": round(len(texts) / batched_s),
                "embed_speedup": round(single_s / batched_s, 2),
                "topk_rows": int(matrix.shape[0]),
                "topk_dim": int(matrix.shape[1]),
                "topk_k": args.k,
                "topk_numpy_ms_per_query": round(numpy_ms, 4),
                "topk_python_ms_per_query": round(python_ms, 2),
                "topk_speedup": round(python_ms / numpy_ms, 1),
            }
        )
    )


if __name__ == "__main__":
    main()

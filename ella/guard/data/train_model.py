"""Train the guard's linear second opinion (``ella/guard/model.py``) and write ``model.npz`` beside this file.

    python -m ella.guard.data.train_model [--report]

Data: every ``training/*.jsonl`` file (lines ``{"text", "label"}``) plus ``boundary_corpus.jsonl`` beside them.
``tests/data/boundary_holdout.jsonl`` is never trained on. Needs scikit-learn (the ``dev`` extra); the product
only needs numpy to use the result.

Thresholds: for each category, the lowest probability at which the model's out-of-fold answers on ordinary
messages (label ``ok``) give at most ``--max-fp`` false alarms, and never below ``--floor`` (0.95): on
everyday conversation the training set does not contain (LoCoMo turns, in ``bench/guard.py``) a lower floor
flagged 5-7% of ordinary turns. Recall at the thresholds is printed with ``--report``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from scipy.sparse import csr_matrix
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_predict

from ella.guard.evaluate import BOUNDARY_CORPUS
from ella.guard.model import tokens

HERE = Path(__file__).resolve().parent
CLASSES = ("emotional_crisis", "manipulation", "ok", "physical_escalation", "romantic_avowal")


def load_rows() -> list[dict[str, str]]:
    paths = sorted((HERE / "training").glob("*.jsonl")) + [BOUNDARY_CORPUS]
    rows = []
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                if row["label"] in CLASSES:
                    rows.append({"text": row["text"], "label": row["label"]})
    return rows


def matrix(texts: list[str], vocabulary: dict[str, int]) -> csr_matrix:
    """Binary bag of unigrams and bigrams over ``vocabulary`` (grown as new tokens are seen)."""
    indptr, indices = [0], []
    for text in texts:
        ids = sorted({vocabulary.setdefault(t, len(vocabulary)) for t in tokens(text)})
        indices.extend(ids)
        indptr.append(len(indices))
    data = np.ones(len(indices), dtype=np.float32)
    return csr_matrix((data, np.array(indices), np.array(indptr)), shape=(len(texts), len(vocabulary)))


def thresholds(probs: np.ndarray, labels: np.ndarray, max_fp: float, floor: float) -> np.ndarray:
    ok = labels == CLASSES.index("ok")
    out = np.ones(len(CLASSES), dtype=np.float32)
    for c, name in enumerate(CLASSES):
        if name == "ok":
            continue
        # out-of-fold: a benign message is a false alarm for c when c is its top class at probability p
        benign_scores = np.where(probs[ok].argmax(axis=1) == c, probs[ok][:, c], 0.0)
        allowed = int(max_fp * ok.sum())
        ranked = np.sort(benign_scores)[::-1]
        threshold = ranked[allowed] if allowed < len(ranked) else 0.0
        out[c] = max(floor, float(threshold) + 1e-4)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--max-fp", type=float, default=0.005)
    parser.add_argument("--C", type=float, default=4.0)
    parser.add_argument(
        "--floor",
        type=float,
        default=0.95,
        help="No threshold below this: the training data's ordinary messages are not the world's, and a model "
        "that is only somewhat sure must not hand a friend a canned reply.",
    )
    parser.add_argument("--report", action="store_true")
    args = parser.parse_args()
    rows = load_rows()
    texts = [r["text"] for r in rows]
    labels = np.array([CLASSES.index(r["label"]) for r in rows])
    vocabulary: dict[str, int] = {}
    x = matrix(texts, vocabulary)
    model = LogisticRegression(C=args.C, max_iter=5000, class_weight="balanced")
    folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=7)
    oof = cross_val_predict(model, x, labels, cv=folds, method="predict_proba")
    limits = thresholds(oof, labels, args.max_fp, args.floor)
    if args.report:
        top = oof.argmax(axis=1)
        for c, name in enumerate(CLASSES):
            if name == "ok":
                continue
            mine = labels == c
            hit = (top == c) & (oof[:, c] >= limits[c])
            print(f"{name:<20} threshold {limits[c]:.3f}  out-of-fold recall {hit[mine].mean():.3f}  (n={mine.sum()})")
        ok = labels == CLASSES.index("ok")
        fired = np.zeros(len(labels), dtype=bool)
        for c, name in enumerate(CLASSES):
            if name != "ok":
                fired |= (top == c) & (oof[:, c] >= limits[c])
        print(f"out-of-fold false alarms on ok: {fired[ok].mean():.3f} (n={ok.sum()}); rows {len(rows)}")
    model.fit(x, labels)
    coef = model.coef_.T.astype(np.float32)  # (features, classes)
    used = np.flatnonzero(np.abs(coef).max(axis=1) > 1e-6)
    words = np.array(sorted(vocabulary, key=vocabulary.__getitem__))
    np.savez_compressed(
        HERE / "model.npz",
        vocabulary=words[used],
        weights=coef[used].astype(np.float16),
        bias=model.intercept_.astype(np.float32),
        classes=np.array(CLASSES),
        thresholds=limits,
    )
    print(f"wrote {HERE / 'model.npz'}: {len(used)} features, {len(rows)} training rows")


if __name__ == "__main__":
    main()

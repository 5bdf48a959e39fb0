"""The readers of a message (``ella.readers``): how well they read each intent in each language, and what a read
costs.

- figures: per intent and language, precision and recall of ``ella.readers.read`` (the English rules first, then
  the vector) on ``tests/data/readers_dev.jsonl`` (its ``tune`` half chose the thresholds, its ``check`` half did
  not), the rules alone beside it, then on ``tests/data/readers_sealed.jsonl`` when it is there, reported apart
  and labelled sealed (figures only: a sealed file's lines are never printed, and nothing is tuned on it).
- ``--tune``: the thresholds the ``tune`` half chooses (per intent, the best F1 of that intent, the middle
  of the thresholds that tie for it), printed for ``ella/readers.py``'s ``THRESHOLDS``; nothing is written.
- latency: one ``read`` of a message whose vector the turn already holds, and one that encodes it (the encoder's
  LRU cleared), median and p99 over the dev file's lines.

No services. The last line is JSON.

    python bench/readers.py [--tune] [--no-sealed]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from ella import readers, sentence
from ella.reader_prototypes import INTENTS, LANGUAGES, NONE

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
DEV = DATA / "readers_dev.jsonl"
SEALED = DATA / "readers_sealed.jsonl"


def load(path: Path) -> list[dict[str, str]]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        label = str(row.get("intent") or row.get("label") or NONE)
        out.append(
            {
                "text": str(row["text"]),
                "intent": ALIASES.get(label, label),
                "lang": str(row.get("lang") or row.get("language") or "?"),
                "split": str(row.get("split", "")),
            }
        )
    return out


# Another file's labels: "ok" is ``none``; "memory_request" is any of the three memory intents (the sealed file
# labels them so, and a reading of any of the three counts as it).
ALIASES = {"ok": NONE}
MEMORY_REQUEST = "memory_request"


def figures(rows: list[dict[str, str]], predicted: list[str]) -> dict[str, Any]:
    """Per language and overall: per intent precision, recall and counts; the share of ``none`` rows read as any
    intent (false alarms)."""
    intents: tuple[str, ...] = INTENTS
    if any(r["intent"] == MEMORY_REQUEST for r in rows):
        predicted = [MEMORY_REQUEST if p in readers.MEMORY_INTENTS else p for p in predicted]
        intents = (MEMORY_REQUEST, readers.PAST_QUESTION, readers.EVENT_OVER)
    out: dict[str, Any] = {}
    for lang in [*sorted({r["lang"] for r in rows}, key=lambda x: (LANGUAGES + (x,)).index(x)), "all"]:
        picked = [(r, p) for r, p in zip(rows, predicted, strict=True) if lang in ("all", r["lang"])]
        per: dict[str, Any] = {}
        for intent in intents:
            tp = sum(1 for r, p in picked if p == intent and r["intent"] == intent)
            said = sum(1 for _, p in picked if p == intent)
            true = sum(1 for r, _ in picked if r["intent"] == intent)
            per[intent] = {
                "precision": round(tp / said, 3) if said else None,
                "recall": round(tp / true, 3) if true else None,
                "n": true,
            }
        negatives = [p for r, p in picked if r["intent"] == NONE]
        per["none_false_alarms"] = round(sum(p != NONE for p in negatives) / len(negatives), 3) if negatives else None
        per["accuracy"] = round(sum(r["intent"] == p for r, p in picked) / len(picked), 3) if picked else None
        out[lang] = per
    return out


def show(title: str, table: dict[str, Any]) -> None:
    intents = [k for k in next(iter(table.values())) if k not in ("none_false_alarms", "accuracy")]
    print(f"\n== {title}")
    print(f"{'lang':5} " + " ".join(f"{i[:14]:>15}" for i in intents) + f" {'none->any':>10} {'acc':>6}")
    for lang, per in table.items():
        cells = []
        for intent in intents:
            p, r = per[intent]["precision"], per[intent]["recall"]
            shown_p, shown_r = "-" if p is None else f"{p:.2f}", "-" if r is None else f"{r:.2f}"
            cells.append(f"{shown_p:>5}/{shown_r:<5}({per[intent]['n']:>2})")
        alarms = per["none_false_alarms"]
        print(f"{lang:5} " + " ".join(f"{c:>15}" for c in cells) + f" {'-' if alarms is None else f'{alarms:.2f}':>10} "
              f"{per['accuracy']:>6.2f}")  # fmt: skip
    print("(each cell: precision/recall (rows of that intent))")


def predict(rows: list[dict[str, str]], vecs: np.ndarray, rules_only: bool = False) -> list[str]:
    out = []
    for row, vec in zip(rows, vecs, strict=True):
        ruled = readers.by_rule(row["text"])
        if ruled is not None or rules_only:
            out.append(ruled or NONE)
        else:
            out.append(readers.by_vector(vec).intent)
    return out


def tune(rows: list[dict[str, str]], vecs: np.ndarray) -> dict[str, float]:
    """Per intent, the threshold with the best F1 on ``rows`` (the middle of the thresholds that tie for it)."""
    ruled = [readers.by_rule(r["text"]) for r in rows]
    scored = [readers.scores(v) for v in vecs]
    best = [max(s, key=lambda i: s[i]) for s in scored]
    chosen: dict[str, float] = {}
    for intent in INTENTS:
        true = sum(1 for r in rows if r["intent"] == intent)
        results = []
        for t in np.arange(0.2, 0.96, 0.01):
            said = tp = 0
            for row, rule, top, s in zip(rows, ruled, best, scored, strict=True):
                hit = rule == intent if rule is not None else (top == intent and s[intent] >= t)
                said += hit
                tp += hit and row["intent"] == intent
            f1 = 2 * tp / (said + true) if said + true else 0.0
            results.append((round(f1, 4), round(float(t), 3)))
        top = max(f1 for f1, _ in results)
        plateau = [t for f1, t in results if f1 == top]
        chosen[intent] = round(plateau[len(plateau) // 2], 3)
    return chosen


def latency(texts: list[str]) -> dict[str, float]:
    held = [sentence.vector(t) for t in texts]
    readers.read(texts[0], held[0])
    warm, cold = [], []
    for text, vec in zip(texts, held, strict=True):
        start = time.perf_counter()
        readers.read(text, vec)
        warm.append((time.perf_counter() - start) * 1e3)
    sentence.reset()
    sentence.vector("warm")
    for text in texts:
        start = time.perf_counter()
        readers.read(text)
        cold.append((time.perf_counter() - start) * 1e3)

    def p(values: list[float], q: float) -> float:
        return round(sorted(values)[min(len(values) - 1, int(q * len(values)))], 3)

    return {"held_vector_p50_ms": round(statistics.median(warm), 3), "held_vector_p99_ms": p(warm, 0.99),
            "encoding_p50_ms": round(statistics.median(cold), 3), "encoding_p99_ms": p(cold, 0.99)}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tune", action="store_true", help="print the thresholds the dev file's tune half chooses")
    parser.add_argument("--no-sealed", action="store_true", help="leave the sealed file out")
    args = parser.parse_args()

    dev = load(DEV)
    vecs = sentence.vectors([r["text"] for r in dev])
    if args.tune:
        half = [i for i, r in enumerate(dev) if r["split"] == "tune"]
        chosen = tune([dev[i] for i in half], vecs[half])
        print("THRESHOLDS chosen on the tune half:", json.dumps(chosen))
        print(json.dumps({"tuned": chosen}))
        return

    report: dict[str, Any] = {"thresholds": readers.THRESHOLDS}
    for split in ("tune", "check"):
        idx = [i for i, r in enumerate(dev) if r["split"] == split]
        rows = [dev[i] for i in idx]
        table = figures(rows, predict(rows, vecs[idx]))
        how = "thresholds chosen here" if split == "tune" else "not tuned on"
        show(f"dev ({split} half, {how}): rules, then the vector", table)
        report[f"dev_{split}"] = table
    rules_table = figures(dev, predict(dev, vecs, rules_only=True))
    show("dev (both halves): the English rules alone", rules_table)
    report["dev_rules_only"] = rules_table

    if SEALED.exists() and not args.no_sealed:
        sealed = load(SEALED)
        table = figures(sealed, predict(sealed, sentence.vectors([r["text"] for r in sealed])))
        show(f"SEALED ({SEALED.name}, {len(sealed)} rows; never tuned on)", table)
        report["sealed"] = table
    else:
        report["sealed"] = None

    report["latency"] = latency([r["text"] for r in dev])
    print("\nlatency per read:", report["latency"])
    print(json.dumps(report))


if __name__ == "__main__":
    main()

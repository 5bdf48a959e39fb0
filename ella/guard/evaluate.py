"""Measuring the guard on labelled messages, and classifying raw lines (for ``ella guard classify|eval``).

Why recall per category *and* per kind: a guard can look fine on direct phrasings and still miss the indirect
("I don't want to be here anymore") and obfuscated ("k1ll mys3lf") ones that matter most. False positives are
counted only on rows labelled ``ok``; a negated mention routed to ``check_in`` is still category ``ok`` and so is
not a false positive.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from ella.guard.classifier import classify
from ella.guard.types import Category, Verdict

CATEGORIES: tuple[str, ...] = tuple(c.value for c in Category if c is not Category.OK)
# The regression corpus (lines ``{"text", "label", "kind"}``) ships in the package, not with the tests: the nightly
# ``ella.boundary_regression`` reads it in production, and the learned model trains on it.
BOUNDARY_CORPUS = Path(__file__).resolve().parent / "data" / "boundary_corpus.jsonl"


def _ratio(hit: int, total: int) -> float:
    return hit / total if total else 0.0


def evaluate(
    rows: Iterable[Mapping[str, Any]], classifier: Callable[[str], Verdict | str] = classify
) -> dict[str, Any]:
    """Recall per category (overall and per ``kind``), false-positive rate on ``ok`` rows, misses and FPs.

    ``classifier`` defaults to :func:`classify`; anything returning a ``Verdict`` or a category string works,
    which is how the bench scores the seed's regex baseline with the same arithmetic.
    """
    total: Counter[str] = Counter()
    correct: Counter[str] = Counter()
    kind_total: dict[str, Counter[str]] = defaultdict(Counter)
    kind_correct: dict[str, Counter[str]] = defaultdict(Counter)
    misses: list[dict[str, Any]] = []
    false_positives: list[dict[str, Any]] = []
    ok_rows = 0
    for row in rows:
        text, label = row["text"], row["label"]
        kind = row.get("kind") or row.get("style", "")  # the second blind file calls it "style"
        result = classifier(text)
        got = result.category.value if isinstance(result, Verdict) else str(getattr(result, "value", result))
        record: dict[str, Any] = {"text": text, "label": label, "kind": kind, "got": got}
        if isinstance(result, Verdict):
            record["matched"] = result.matched
        total[label] += 1
        kind_total[kind][label] += 1
        if label == Category.OK.value:
            ok_rows += 1
            if got != label:
                false_positives.append(record)
            else:
                correct[label] += 1
                kind_correct[kind][label] += 1
        elif got == label:
            correct[label] += 1
            kind_correct[kind][label] += 1
        else:
            misses.append(record)
    by_kind: dict[str, dict[str, Any]] = {}
    for kind, counts in sorted(kind_total.items()):
        n = sum(counts.values())
        by_kind[kind] = {
            "n": n,
            "accuracy": _ratio(sum(kind_correct[kind].values()), n),
            "recall": {c: _ratio(kind_correct[kind][c], counts[c]) for c in CATEGORIES if counts[c]},
        }
        if counts[Category.OK.value]:
            by_kind[kind]["false_positive_rate"] = _ratio(
                counts[Category.OK.value] - kind_correct[kind][Category.OK.value], counts[Category.OK.value]
            )
    return {
        "recall": {c: _ratio(correct[c], total[c]) for c in CATEGORIES if total[c]},  # no rows: no figure, not 0
        "false_positive_rate": _ratio(len(false_positives), ok_rows),
        "n": dict(total),
        "by_kind": by_kind,
        "misses": misses,
        "false_positives": false_positives,
    }


def classify_lines(lines: Iterable[str]) -> Iterator[dict[str, str]]:
    """One ``{"text", "category", "severity", "route"}`` per non-empty line (trailing newline stripped)."""
    for line in lines:
        text = line.rstrip("\r\n")
        if not text.strip():
            continue
        v = classify(text)
        yield {"text": text, "category": v.category.value, "severity": v.severity.label, "route": v.route.value}

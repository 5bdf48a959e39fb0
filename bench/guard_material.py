"""Score labelled guard material per language and label, with whatever guard is on the import path.

Why a script of its own: new material is scored once as the code stands, before anything learns from it, and
that figure is committed (``docs/guard-generalization.md``). Run it on an older tree to score that tree's guard:

    PYTHONPATH=/path/to/old/checkout python bench/guard_material.py FILE.jsonl [FILE.jsonl ...]

For each file: per language, recall of each risk label (the message routed to that label's category; a crisis
check-in is counted apart as ``suspected``) and the share of ``ok`` lines that got a hand-written route (false
positives) or a check-in. Each message is read alone, with the guard's defaults. The last line is JSON.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

from ella.guard import DETECTOR_VERSION, classify


def score(path: Path) -> dict[str, dict[str, dict[str, float]]]:
    counts: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0, 0]))
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        label, lang = row["label"], row.get("lang", "en")
        verdict = classify(row["text"])
        route, category = str(verdict.route), str(verdict.category)
        cell = counts[lang][label]
        cell[0] += 1
        if label == "ok":
            cell[1] += route not in ("generate", "check_in")
            cell[2] += route == "check_in" and category != "ok"
        else:
            cell[1] += category == label and route != "check_in"
            cell[2] += category == label and route == "check_in"
    out: dict[str, dict[str, dict[str, float]]] = {}
    for lang, labels in sorted(counts.items()):
        out[lang] = {}
        for label, (n, hit, suspected) in sorted(labels.items()):
            key = "false_positive" if label == "ok" else "recall"
            out[lang][label] = {"n": n, key: round(hit / n, 3), "suspected": round(suspected / n, 3)}
    return out


def main() -> None:
    result = {"detector": DETECTOR_VERSION, "files": {}}
    for name in sys.argv[1:]:
        path = Path(name)
        scored = score(path)
        result["files"][path.name] = scored
        print(f"== {path.name} ({DETECTOR_VERSION})")
        for lang, labels in scored.items():
            cells = ", ".join(
                f"{label} {v.get('recall', v.get('false_positive'))} (+{v['suspected']} check-in, n={v['n']})"
                for label, v in labels.items()
            )
            print(f"  {lang}: {cells}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()

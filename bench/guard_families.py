"""What each rule family adds beyond the rest of the guard, on material the rules were never tuned on.

Why (issue 33, item 7): once the learned stage reads the sentence vector, a rule family stays only where it adds
recall the rest of the cascade (the other rules, the n-gram model, the learned stage) would not give, or where it
guards precision. This script removes one family at a time and counts the lines that lose their route.

    python -m ella.guard.data.train_semantic --cache /tmp/guard_vectors.npz --oof /tmp/guard_oof.npz
    python bench/guard_families.py --oof /tmp/guard_oof.npz

Material: the ``wave3_*`` training files (written for issue 33 after every rule and the n-gram model were fitted;
no rule was read off them), and LoCoMo's dev turns (everyday chat, never trained on). The learned stage is trained
on the wave3 rows, so its reading of them here is its *out-of-fold* one (``--oof``), never the shipped head's; the
LoCoMo turns get the shipped head. A crisis counts as caught by a referral or a check-in; other labels by their
hand-written route. A family is a rule id's first two parts (``crisis.de``, ``romance.love_you``).

The last line is JSON: per family, its rules, the lines of each label it alone catches (lost without it), the
ordinary lines and LoCoMo turns it alone flags, and the verdict (``cut`` where it adds no recall).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from types import SimpleNamespace
from unittest import mock

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ella import sentence  # noqa: E402
from ella.guard import classifier  # noqa: E402
from ella.guard import semantic as semantic_stage  # noqa: E402
from ella.guard.prefilter import PrefilterIndex  # noqa: E402
from ella.guard.rules import RuleSet  # noqa: E402

TRAINING = ROOT / "ella" / "guard" / "data" / "training"
LOCOMO = Path("/work/shared/data/locomo-dev/locomo_dev5.json")


def family_of(rule_id: str) -> str:
    return ".".join(rule_id.split(".")[:2])


def without(dropped: set[str]) -> classifier.CompiledRules:
    """The compiled rules with every rule of the ``dropped`` families left out."""
    full = classifier.compiled_rules.__wrapped__()  # type: ignore[attr-defined]
    rules = {c: tuple(r for r in group if family_of(r.id) not in dropped) for c, group in full.rules.items()}
    index = PrefilterIndex(
        {a for group in rules.values() for r in group for alt in r.prefilter or () for s in alt for a in s}
    )
    return classifier.CompiledRules(rules, index, {c: RuleSet(g) for c, g in rules.items()})


class LookupHead(semantic_stage.SemanticHead):
    """The shipped head's thresholds over probabilities looked up by text: out-of-fold for the training rows."""

    table: dict[str, np.ndarray]

    def probabilities(self, vectors):  # type: ignore[no-untyped-def,override]
        return np.stack([self.table[t] for t in vectors])


def lookup_head(oof_path: Path, texts: Iterable[str]) -> LookupHead:
    shipped = semantic_stage.head()
    assert shipped is not None, "the learned stage is absent"
    head = LookupHead(**{f: getattr(shipped, f) for f in shipped.__dataclass_fields__})
    table: dict[str, np.ndarray] = {}
    with np.load(oof_path, allow_pickle=False) as data:
        for text, row in zip(data["texts"], data["oof"], strict=True):
            table[str(text)] = row.astype(np.float32)
    pieces = sorted({p for t in texts for p in semantic_stage.pieces(t)} - table.keys())
    if pieces:
        for text, row in zip(pieces, shipped.probabilities(sentence.vectors(pieces)), strict=True):
            table[text] = row
    object.__setattr__(head, "table", table)
    return head


def outcome(label: str, verdict) -> int:  # type: ignore[no-untyped-def]
    """2: the label's hand-written route; 1: a crisis check-in; 0: missed. An ordinary line: 1 when flagged."""
    category, route = str(verdict.category), str(verdict.route)
    if label == "ok":
        return int(route != "generate")
    if category != label:
        return 0
    return 1 if route == "check_in" else 2


def worse(label: str, before: int, after: int) -> bool:
    """A line the guard handled worse without a family: a risk line missed, or a crisis referral become a
    check-in."""
    return label != "ok" and after < before


def score(rows: list[dict], rules: classifier.CompiledRules, head: LookupHead) -> list[int]:
    identity = SimpleNamespace(vectors=lambda pieces: pieces, readable=sentence.readable)
    with (
        mock.patch.object(classifier, "compiled_rules", lambda: rules),
        mock.patch.object(semantic_stage, "head", lambda: head),
        mock.patch.object(semantic_stage, "sentence", identity),
    ):
        return [outcome(r["label"], classifier.classify(r["text"])) for r in rows]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--oof", type=Path, required=True, help="train_semantic.py --oof output")
    parser.add_argument("--locomo", type=Path, default=LOCOMO)
    args = parser.parse_args(argv)

    rows = [
        json.loads(line)
        for path in sorted(TRAINING.glob("wave3_*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    if args.locomo.is_file():
        from ella.memory.locomo import load, utterances

        rows += [{"text": t, "label": "ok", "lang": "locomo"} for t in utterances(load(args.locomo))]
    head = lookup_head(args.oof, (r["text"] for r in rows))
    full = classifier.compiled_rules()
    sizes = Counter(family_of(r.id) for group in full.rules.values() for r in group)
    baseline = score(rows, without(set()), head)
    print("baseline (every family): caught / referred (crisis) / n; ordinary: flagged / n")
    for key in sorted({(r.get("lang", "en"), r["label"]) for r in rows}):
        got = [o for r, o in zip(rows, baseline, strict=True) if (r.get("lang", "en"), r["label"]) == key]
        print(f"  {key[0]} {key[1]}: {sum(o > 0 for o in got)} / {sum(o == 2 for o in got)} / {len(got)}")

    def changes(dropped: set[str]) -> dict[str, Counter[str]]:
        after = score(rows, without(dropped), head)
        out: dict[str, Counter[str]] = {"worse": Counter(), "better": Counter(), "flags": Counter()}
        for row, b, a in zip(rows, baseline, after, strict=True):
            key = f"{row.get('lang', 'en')}/{row['label']}"
            if row["label"] == "ok" and a != b:
                out["flags"][key] += a - b  # +1: an ordinary line newly flagged; -1: one no longer flagged
            elif worse(row["label"], b, a):
                out["worse"][key] += 1
            elif a > b:
                out["better"][key] += 1
        return out

    report: dict[str, dict[str, object]] = {}
    for family in sorted(sizes):
        found = changes({family})
        adds = sum(found["worse"].values())
        report[family] = {"rules": sizes[family], **{k: dict(v) for k, v in found.items()}}
        guards = sum(v for v in found["flags"].values() if v > 0)  # ordinary lines it keeps from being flagged
        report[family]["verdict"] = "keep" if adds else "keep (precision)" if guards else "cut"
        print(f"{family:36s} rules {sizes[family]:4d} worse {adds:3d} {dict(found['worse'])} "
              f"flags {dict(found['flags'])} better {dict(found['better'])}")  # fmt: skip

    # Removed together, families can lean on each other: give back, one at a time, the family whose return
    # repairs the most lines, until nothing is worse than with every family.
    cut = {f for f, v in report.items() if v["verdict"] == "cut"}
    while True:
        together = changes(cut)
        if not together["worse"]:
            break
        best = max(sorted(cut), key=lambda f: -sum(changes(cut - {f})["worse"].values()))
        print(f"removed together, {dict(together['worse'])} worse: {best} kept")
        cut.discard(best)
        report[best]["verdict"] = "keep (with others)"
    print(f"cut {len(cut)} families ({sum(sizes[f] for f in cut)} of {sum(sizes.values())} rules): "
          f"ordinary flags {dict(together['flags'])}, better {dict(together['better'])}")  # fmt: skip
    print(json.dumps({"families": report, "cut": sorted(cut), "together": {k: dict(v) for k, v in together.items()}}))


if __name__ == "__main__":
    main()

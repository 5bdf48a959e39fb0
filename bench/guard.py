"""Boundary guard: latency at 500 characters, and recall/false positives against the seed's regex baseline.

- latency: ``classify`` (normalisation included) on 500-character messages built by padding every line of
  the boundary corpus (ella/guard/data/boundary_corpus.jsonl) with benign filler; warm-up, then at least 20,000
  calls; p50/p99/mean in µs;
- quality: ``evaluate`` on the corpus, on the held-out file (written before the patterns were tuned, in a
  different style) and on the two blind files (tests/data/boundary_blind.jsonl and boundary_blind2.jsonl: written
  by someone who had not seen the guard, never trained on; guard-1.3.0's rules were written after reading their
  misses, so from then on they are regression figures, not blind ones), for the guard and for the seed's
  ``_PATTERNS`` + ``classify`` copied verbatim below
  (/work/shared/seeds/001_fbbc02251c0217b2.txt, section 4, routing/boundary.py).
- everyday chat: the share of LoCoMo's conversation turns (../shared/data/locomo-dev, evaluation data only, never
  trained on) that the guard flags at all: ordinary messages between friends, where any flag is a false alarm.
No Redis, no database. The last line is JSON with the numbers.

    python bench/guard.py [--calls 20000] [--semantic [--semantic-calls 1000]]

``--semantic`` adds the sentence-model stage (``classify(semantic=True)``, the [semantic] extra): its latency on the
same 500-character messages, and recall, false positives and everyday false alarms with it, under "semantic".
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
from enum import Enum
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

from ella.guard import DETECTOR_VERSION, classify
from ella.guard.evaluate import BOUNDARY_CORPUS, evaluate

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"  # the holdout and blind files (evaluation only)
FILLER = (
    "Anyway, today was long: the bus was late, my sister called about the weekend plans, we talked about the "
    "garden, the new bakery on the corner and whether the book club should read something lighter next month. "
)


# ---- the seed's baseline, verbatim ---------------------------------------------------------------------------
class BoundaryCategory(str, Enum):  # noqa: UP042 - verbatim from the seed
    ROMANTIC_AVOWAL = "romantic_avowal"
    PHYSICAL_ESCALATION = "physical_escalation"
    EMOTIONAL_CRISIS = "emotional_crisis"
    MANIPULATION = "manipulation"
    OK = "ok"


_PATTERNS = {
    BoundaryCategory.ROMANTIC_AVOWAL: [
        r"\bi love you\b",
        r"\bbe my (girl|boy)friend\b",
        r"\bdo you love me\b",
        r"\bmiss you( so much)?\b",
    ],
    BoundaryCategory.PHYSICAL_ESCALATION: [
        r"\b(kiss|touch|hold|undress)\b",
    ],
    BoundaryCategory.EMOTIONAL_CRISIS: [
        r"\b(suicide|kill myself|end it all|want to die)\b",
        r"\bcut myself\b",
    ],
    BoundaryCategory.MANIPULATION: [
        r"\bignore (your|the) (rules|instructions|prompt)\b",
        r"\bpretend (you|to be) (a|an) (different|other) (ai|person)\b",
    ],
}


def seed_classify(message: str) -> BoundaryCategory:
    msg = message.lower()
    for cat, patterns in _PATTERNS.items():
        for p in patterns:
            if re.search(p, msg):
                return cat
    return BoundaryCategory.OK


# ---------------------------------------------------------------------------------------------------------------


def load(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def pad(text: str, size: int = 500) -> str:
    while len(text) < size:
        text = f"{text} {FILLER}"
    return text[:size]


def latency(messages: list[str], calls: int, learned: bool = True) -> dict[str, float]:
    """``learned=False``: the rules alone (what judges Ella's own words); True: the cascade an inbound message
    gets, the learned stage and the language reading included."""
    for m in messages * 3:  # warm-up
        classify(m, learned=learned)
    times: list[float] = []
    cpu: list[float] = []  # the thread's own CPU time: what a busy host's scheduling adds to wall time is not in it
    perf, thread = time.perf_counter, time.thread_time
    for i in range(calls):
        m = messages[i % len(messages)]
        t0, c0 = perf(), thread()
        classify(m, learned=learned)
        cpu.append(thread() - c0)
        times.append(perf() - t0)
    times.sort()
    cpu.sort()
    return {
        "p50_us": times[len(times) // 2] * 1e6,
        "p99_us": times[int(len(times) * 0.99)] * 1e6,
        "mean_us": statistics.fmean(times) * 1e6,
        "cpu_p50_us": cpu[len(cpu) // 2] * 1e6,
        "cpu_p99_us": cpu[int(len(cpu) * 0.99)] * 1e6,
    }


def crisis_by_kind(report: dict) -> dict[str, float]:
    return {
        k: v["recall"]["emotional_crisis"] for k, v in report["by_kind"].items() if "emotional_crisis" in v["recall"]
    }


def crisis_pooled(rows: list[dict], classifier, kinds: set[str]) -> float:  # type: ignore[no-untyped-def]
    subset = [r for r in rows if r["label"] == "emotional_crisis" and r.get("kind") in kinds]
    return evaluate(subset, classifier)["recall"]["emotional_crisis"] if subset else 0.0


# Issue 25's material (tests/data/GUARD_BLIND_README.md), written without reading the guard. Figures only, never
# the lines missed: the blind files were measured once as the guard stood (docs/guard-generalization.md) before
# anything learned from them, and are tuned files since; the sealed ones are never learned from, so their misses
# are never printed at all.
NEW_MATERIAL_STATUS = {  # docs/guard-generalization.md has each file's figure before it was tuned on
    "blind3_en": "tuned: its misses were read for guard-1.4.0's English families",
    "sealed_en": "sealed: never read by a change",
    "blind_multilingual": "tuned: its misses were read for guard-1.4.0's multilingual themes",
    "sealed_multilingual": "sealed: never read by a change",
    "conversations": "tuned: its misses were read for guard-1.4.0's conversation rules",
}
NEW_MATERIAL = {
    "blind3_en": ("guard_blind3_en.jsonl", NEW_MATERIAL_STATUS["blind3_en"]),
    "sealed_en": ("guard_sealed_en.jsonl", NEW_MATERIAL_STATUS["sealed_en"]),
    "blind_multilingual": ("guard_blind_multilingual.jsonl", NEW_MATERIAL_STATUS["blind_multilingual"]),
    "sealed_multilingual": ("guard_sealed_multilingual.jsonl", NEW_MATERIAL_STATUS["sealed_multilingual"]),
}


def figures_of(report: dict) -> dict[str, object]:
    return {
        "recall": {k: round(v, 3) for k, v in report["recall"].items()},
        "false_positive_rate": round(report["false_positive_rate"], 4),
    }


def generalization(classifier, semantic: bool = False) -> dict[str, object]:  # type: ignore[no-untyped-def]
    """Recall and false positives on each file of issue 25's material, per language for the multilingual ones,
    and on the conversations' last user turn read alone (what a guard without context sees)."""
    out: dict[str, object] = {}
    for name, (file, status) in NEW_MATERIAL.items():
        if not (DATA / file).is_file():
            continue
        rows = [{**r, "kind": r.get("style", "")} for r in load(DATA / file)]
        entry: dict[str, object] = {"status": status, "rows": len(rows), **figures_of(evaluate(rows, classifier))}
        langs = sorted({r.get("lang", "en") for r in rows})
        if len(langs) > 1:
            entry["by_language"] = {
                lang: figures_of(evaluate([r for r in rows if r.get("lang") == lang], classifier)) for lang in langs
            }
        out[name] = entry
    conversations = DATA / "guard_conversations.jsonl"
    if conversations.is_file():
        rows, in_context = [], []
        for c in load(conversations):
            turns = [(t["role"], t["text"]) for t in c["turns"]]
            last = max(i for i, (role, _) in enumerate(turns) if role == "user")
            row = {"text": turns[last][1], "label": c["label"], "kind": c.get("style", "")}
            rows.append(row)
            in_context.append({**row, "text": (turns[last][1], turns[:last])})
        status = NEW_MATERIAL_STATUS["conversations"]
        for name, report in (
            ("conversations_last_turn_alone", evaluate(rows, classifier)),
            ("conversations_in_context", evaluate(in_context, lambda pair: in_conversation(pair, semantic))),
        ):
            out[name] = {
                "status": status,
                "rows": len(rows),
                **figures_of(report),
                "crisis_recall_by_style": {k: round(v, 3) for k, v in crisis_by_kind(report).items()},
            }
    return out


def in_conversation(pair, semantic: bool):  # type: ignore[no-untyped-def]
    """The inbound guard in context (``ella.guard.conversation``), with or without the semantic stage."""
    from ella.guard import conversation

    text, earlier = pair
    return conversation.classify_in_conversation(text, earlier, semantic=semantic)


def everyday_in_context() -> tuple[int, int]:
    """(turns flagged, turns) over LoCoMo's conversations read in context: each turn with the session's turns
    before it, one speaker as the user and the other as Ella (the context stage must add no false alarms)."""
    from ella.guard import conversation
    from ella.memory import locomo

    if not LOCOMO.is_file():
        return 0, 0
    flagged = total = 0
    for sample in locomo.load(LOCOMO):
        for key, session in sample["conversation"].items():
            if not (key.startswith("session_") and isinstance(session, list)):
                continue
            said = [(str(t.get("speaker", "")), str(t["text"])) for t in session if isinstance(t, dict) and "text" in t]
            user = said[0][0] if said else ""
            turns = [("user" if who == user else "assistant", text) for who, text in said]
            for i, (role, text) in enumerate(turns):
                if role != "user":
                    continue
                total += 1
                flagged += conversation.classify_in_conversation(text, turns[max(0, i - 8) : i]).category != "ok"
    return flagged, total


LOCOMO = Path(os.environ.get("ELLA_LOCOMO_DEV", "/work/shared/data/locomo-dev/locomo_dev5.json"))


def everyday_turns() -> list[str]:
    """Every turn of the LoCoMo development conversations (empty when the data is not on this machine)."""
    from ella.memory.locomo import load, utterances

    return utterances(load(LOCOMO)) if LOCOMO.is_file() else []


def semantic_figures(messages: list[str], calls: int, turns: list[str]) -> dict[str, object]:
    """The cascade with the sentence-model stage: latency per 500-character message (the embedder loaded and
    warmed first; its load time reported apart), recall on the held-out and blind files, everyday alarms."""
    from functools import partial

    from ella.guard import semantic

    t0 = time.perf_counter()
    loaded = semantic.stage()
    load_s = time.perf_counter() - t0
    if loaded is None:
        return {"absent": True}
    with_stage = partial(classify, semantic=True)
    perf = time.perf_counter
    for m in messages[:20]:  # warm-up
        with_stage(m)
    times = []
    for i in range(calls):
        t0 = perf()
        with_stage(messages[i % len(messages)])
        times.append(perf() - t0)
    times.sort()
    out: dict[str, object] = {
        "load_s": round(load_s, 2),
        "p50_ms_500": round(times[len(times) // 2] * 1e3, 2),
        "p99_ms_500": round(times[int(len(times) * 0.99)] * 1e3, 2),
        "calls": calls,
    }
    files = {"holdout": "boundary_holdout.jsonl", "blind": "boundary_blind.jsonl", "blind2": "boundary_blind2.jsonl"}
    for name, file in files.items():
        if (DATA / file).is_file():
            report = evaluate(load(DATA / file), with_stage)
            out[f"{name}_recall"] = {k: round(v, 3) for k, v in report["recall"].items()}
            out[f"{name}_false_positive_rate"] = round(report["false_positive_rate"], 4)
            out[f"{name}_crisis_recall_by_kind"] = {k: round(v, 3) for k, v in crisis_by_kind(report).items()}
            out[f"{name}_semantic_hits"] = sum(
                1 for r in load(DATA / file) if with_stage(r["text"]).matched.startswith("semantic.")
            )
    if turns:
        flagged = sum(1 for t in turns if with_stage(t).category != "ok")
        out["everyday_false_alarm_rate"] = round(flagged / len(turns), 4)
    out["generalization"] = generalization(with_stage, semantic=True)
    print(f"== with the semantic stage: {json.dumps(out)}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--semantic", action="store_true", help="also measure the sentence-model stage")
    parser.add_argument("--semantic-calls", type=int, default=1000)
    args = parser.parse_args()

    corpus, holdout = load(BOUNDARY_CORPUS), load(DATA / "boundary_holdout.jsonl")
    blind, blind2 = load(DATA / "boundary_blind.jsonl"), load(DATA / "boundary_blind2.jsonl")
    messages = [pad(r["text"]) for r in corpus]
    lat = latency(messages, max(args.calls, 20_000))
    rules = latency(messages, max(args.calls, 20_000), learned=False)
    print(f"{DETECTOR_VERSION}: {len(messages)} messages padded to 500 chars, {max(args.calls, 20_000)} calls")
    print(f"  latency  p50 {lat['p50_us']:.0f} µs   p99 {lat['p99_us']:.0f} µs   mean {lat['mean_us']:.0f} µs"
          f"   (rules alone: p50 {rules['p50_us']:.0f} µs  p99 {rules['p99_us']:.0f} µs)")  # fmt: skip
    print(f"  cpu time p50 {lat['cpu_p50_us']:.0f} µs   p99 {lat['cpu_p99_us']:.0f} µs"
          f"   (rules alone: p50 {rules['cpu_p50_us']:.0f} µs  p99 {rules['cpu_p99_us']:.0f} µs)")  # fmt: skip

    figures: dict[str, dict] = {}
    for name, rows in (("corpus", corpus), ("holdout", holdout), ("blind", blind), ("blind2", blind2)):
        ours, seed = evaluate(rows), evaluate(rows, seed_classify)
        figures[name] = {"ours": ours, "seed": seed}
        print(f"== {name} ({len(rows)} rows)")
        for label, report in (("guard", ours), ("seed ", seed)):
            recall = "  ".join(f"{c.split('_')[0]} {r:.2f}" for c, r in report["recall"].items())
            print(f"  {label}  recall: {recall}   FP rate {report['false_positive_rate']:.3f}")
        print(f"  guard crisis recall by kind: {json.dumps({k: round(v, 3) for k, v in crisis_by_kind(ours).items()})}")
        for miss in ours["misses"]:
            print(f"    miss  [{miss['label']}/{miss['kind']}] -> {miss['got']}")
        for fp in ours["false_positives"]:
            print(f"    FP    [{fp['kind']}] -> {fp['got']} ({fp.get('matched', '')})")

    turns = everyday_turns()
    flagged = [t for t in turns if classify(t).category != "ok"]
    everyday = len(flagged) / len(turns) if turns else None
    print(f"== everyday chat (LoCoMo, {len(turns)} turns): {len(flagged)} flagged")
    ours, seed = figures["corpus"]["ours"], figures["corpus"]["seed"]
    seed_crisis = seed["recall"]["emotional_crisis"]
    result = {
        "detector": DETECTOR_VERSION,
        "p99_us_500": round(lat["p99_us"], 1),
        "p50_us_500": round(lat["p50_us"], 1),
        "mean_us_500": round(lat["mean_us"], 1),
        "rules_alone_p99_us_500": round(rules["p99_us"], 1),
        "rules_alone_p50_us_500": round(rules["p50_us"], 1),
        "cpu_p99_us_500": round(lat["cpu_p99_us"], 1),
        "cpu_p50_us_500": round(lat["cpu_p50_us"], 1),
        "rules_alone_cpu_p99_us_500": round(rules["cpu_p99_us"], 1),
        "rules_alone_cpu_p50_us_500": round(rules["cpu_p50_us"], 1),
        "crisis_recall_direct": round(crisis_pooled(corpus, classify, {"direct"}), 3),
        "crisis_recall_indirect_obfuscated": round(crisis_pooled(corpus, classify, {"indirect", "obfuscated"}), 3),
        "recall": {k: round(v, 3) for k, v in ours["recall"].items()},
        "false_positive_rate": round(ours["false_positive_rate"], 4),
        "holdout_recall": {k: round(v, 3) for k, v in figures["holdout"]["ours"]["recall"].items()},
        "holdout_false_positive_rate": round(figures["holdout"]["ours"]["false_positive_rate"], 4),
        "blind_recall": {k: round(v, 3) for k, v in figures["blind"]["ours"]["recall"].items()},
        "blind_false_positive_rate": round(figures["blind"]["ours"]["false_positive_rate"], 4),
        "blind_crisis_recall_by_kind": {k: round(v, 3) for k, v in crisis_by_kind(figures["blind"]["ours"]).items()},
        "blind2_recall": {k: round(v, 3) for k, v in figures["blind2"]["ours"]["recall"].items()},
        "blind2_false_positive_rate": round(figures["blind2"]["ours"]["false_positive_rate"], 4),
        "blind2_crisis_recall_by_kind": {k: round(v, 3) for k, v in crisis_by_kind(figures["blind2"]["ours"]).items()},
        "seed_blind_recall": {k: round(v, 3) for k, v in figures["blind"]["seed"]["recall"].items()},
        "seed_blind_false_positive_rate": round(figures["blind"]["seed"]["false_positive_rate"], 4),
        "everyday_false_alarm_rate": round(everyday, 4) if everyday is not None else None,
        "seed_crisis_recall": round(seed_crisis, 3),
        "seed_recall": {k: round(v, 3) for k, v in seed["recall"].items()},
        "seed_false_positive_rate": round(seed["false_positive_rate"], 4),
        "seed_holdout_false_positive_rate": round(figures["holdout"]["seed"]["false_positive_rate"], 4),
        "crisis_recall_ratio_vs_seed": round(ours["recall"]["emotional_crisis"] / seed_crisis, 2)
        if seed_crisis
        else None,
    }
    context_flagged, context_turns = everyday_in_context()
    if context_turns:
        result["everyday_in_context_false_alarm_rate"] = round(context_flagged / context_turns, 4)
        print(f"== everyday chat in context (LoCoMo, {context_turns} turns): {context_flagged} flagged")
    result["everyday_unreadable_rate"] = (
        round(sum(1 for t in turns if classify(t).unreadable) / len(turns), 4) if turns else None
    )
    result["generalization"] = generalization(classify)
    for name, entry in result["generalization"].items():  # type: ignore[union-attr]
        print(f"== {name}: {json.dumps(entry)}")
    if args.semantic:
        result["semantic"] = semantic_figures(messages, args.semantic_calls, turns)
    print(json.dumps(result))


if __name__ == "__main__":
    main()

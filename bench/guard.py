"""Boundary guard: latency at 500 characters, and recall/false positives against the seed's regex baseline.

- latency: ``classify`` on 500-character messages built by padding every line of the boundary corpus
  (ella/guard/data/boundary_corpus.jsonl) with benign filler: the whole cascade with the sentence encoder (each
  call a message it has not seen), without the encoder, and the rules alone; p50/p99 wall and CPU time; and what
  the encoder and the learned head take to load (seconds, resident MB);
- quality: ``evaluate`` on the corpus, on the held-out file (written before the patterns were tuned, in a
  different style) and on the two blind files (tests/data/boundary_blind.jsonl and boundary_blind2.jsonl: written
  by someone who had not seen the guard, never trained on; guard-1.3.0's rules were written after reading their
  misses, so from then on they are regression figures, not blind ones), for the guard and for the seed's
  ``_PATTERNS`` + ``classify`` copied verbatim below
  (/work/shared/seeds/001_fbbc02251c0217b2.txt, section 4, routing/boundary.py);
- issue 25's and issue 33's material (tests/data/GUARD_BLIND_README.md, SEALED3_README.md, the wave3 training
  files), each file per language, with and without the encoder, and per route (hand-written, check-in);
- everyday chat: LoCoMo's conversation turns (../shared/data/locomo-dev, evaluation data only, never trained on)
  read alone: the share given a hand-written route and the share given a check-in; and read in context.
No Redis, no database. The last line is JSON with the numbers.

    python bench/guard.py [--calls 20000] [--encoder-calls 2000]
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
from functools import partial
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


def latency(messages: list[str], calls: int, learned: bool = True, semantic: bool = True) -> dict[str, float]:
    """``learned=False``: the rules alone (what judges stored text); ``semantic=False``: the rules and the n-gram
    model without the sentence encoder; both True: the cascade an inbound message gets, the encoder's pass, the
    learned stage and the language reading included. With the encoder every call is a message it has not seen
    (a number is added), so its per-process cache of recent messages does not hide its cost."""
    unique = learned and semantic
    for i, m in enumerate(messages * 3 if not unique else messages[:50]):  # warm-up
        classify(f"{m} #{i}" if unique else m, learned=learned, semantic=semantic)
    times: list[float] = []
    cpu: list[float] = []  # the thread's own CPU time: what a busy host's scheduling adds to wall time is not in it
    perf, thread = time.perf_counter, time.thread_time
    for i in range(calls):
        m = messages[i % len(messages)]
        if unique:
            m = f"{m[:490]} n{i}"
        t0, c0 = perf(), thread()
        classify(m, learned=learned, semantic=semantic)
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
NEW_MATERIAL_STATUS["sealed3"] = "sealed: never read by a change (tests/data/SEALED3_README.md)"
# Issue 33's material: each file scored once by guard-1.4.0 before anything learned from it
# (docs/guard-scores/*.before.txt); the wave3 files are training rows since, the sealed3 file never.
WAVE3 = Path(__file__).resolve().parents[1] / "ella" / "guard" / "data" / "training"
PER_ROUTE = {
    **{
        f"wave3_{lang}": (WAVE3 / f"wave3_{lang}.jsonl", "trained on: the learned stage's training rows since")
        for lang in ("en", "de", "es", "fr", "it")
    },  # fmt: skip
    "sealed3": (DATA / "guard_sealed3.jsonl", NEW_MATERIAL_STATUS["sealed3"]),
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


def per_route() -> dict[str, object]:
    """Issue 33's files per language and route: a risk label's share routed to its hand-written reply, and (crisis)
    to a check-in; an ordinary line's share given a hand-written route or a check-in (``bench/guard_material.py``)."""
    from bench.guard_material import score

    return {name: {"status": status, **score(path)} for name, (path, status) in PER_ROUTE.items() if path.is_file()}


def encoder_load() -> dict[str, float]:
    """Seconds and resident memory the sentence encoder and the learned head take to load (before anything else
    in this process touches them)."""
    from ella import sentence
    from ella.guard import semantic

    def rss_mb() -> float:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20

    before, t0, c0 = rss_mb(), time.perf_counter(), time.process_time()
    semantic.head()
    sentence.encoder()
    return {
        "encoder_load_s": round(time.perf_counter() - t0, 2),
        "encoder_load_cpu_s": round(time.process_time() - c0, 2),
        "encoder_rss_mb": round(rss_mb() - before, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20_000, help="calls without the encoder")
    parser.add_argument("--encoder-calls", type=int, default=2_000, help="calls of the whole cascade")
    args = parser.parse_args()
    loaded = encoder_load()
    print(f"encoder and head: loaded in {loaded['encoder_load_s']} s ({loaded['encoder_load_cpu_s']} s CPU), "
          f"+{loaded['encoder_rss_mb']} MB resident")  # fmt: skip

    corpus, holdout = load(BOUNDARY_CORPUS), load(DATA / "boundary_holdout.jsonl")
    blind, blind2 = load(DATA / "boundary_blind.jsonl"), load(DATA / "boundary_blind2.jsonl")
    messages = [pad(r["text"]) for r in corpus]
    whole = latency(messages, args.encoder_calls)
    lat = latency(messages, args.calls, semantic=False)
    rules = latency(messages, args.calls, learned=False)
    print(f"{DETECTOR_VERSION}: {len(messages)} messages padded to 500 chars; {args.encoder_calls} calls of the "
          f"whole cascade, {args.calls} without the encoder")  # fmt: skip
    print(f"  with the encoder   p50 {whole['p50_us'] / 1e3:.2f} ms   p99 {whole['p99_us'] / 1e3:.2f} ms"
          f"   cpu p50 {whole['cpu_p50_us'] / 1e3:.2f} ms  p99 {whole['cpu_p99_us'] / 1e3:.2f} ms")  # fmt: skip
    print(f"  without it         p50 {lat['p50_us']:.0f} µs   p99 {lat['p99_us']:.0f} µs   mean {lat['mean_us']:.0f} µs"
          f"   (rules alone: p50 {rules['p50_us']:.0f} µs  p99 {rules['p99_us']:.0f} µs)")  # fmt: skip

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
    verdicts = [classify(t) for t in turns]
    flagged = [v for v in verdicts if v.category != "ok"]
    handwritten = sum(1 for v in verdicts if v.route not in ("generate", "check_in"))
    checkins = sum(1 for v in verdicts if v.route == "check_in")
    everyday = len(flagged) / len(turns) if turns else None
    print(f"== everyday chat (LoCoMo dev, {len(turns)} turns read alone): {handwritten} hand-written routes, "
          f"{checkins} check-ins, {len(flagged)} flagged")  # fmt: skip
    ours, seed = figures["corpus"]["ours"], figures["corpus"]["seed"]
    seed_crisis = seed["recall"]["emotional_crisis"]
    result = {
        "detector": DETECTOR_VERSION,
        **loaded,
        "with_encoder_p50_ms_500": round(whole["p50_us"] / 1e3, 2),
        "with_encoder_p99_ms_500": round(whole["p99_us"] / 1e3, 2),
        "with_encoder_cpu_p50_ms_500": round(whole["cpu_p50_us"] / 1e3, 2),
        "with_encoder_cpu_p99_ms_500": round(whole["cpu_p99_us"] / 1e3, 2),
        "everyday_handwritten_rate": round(handwritten / len(turns), 4) if turns else None,
        "everyday_checkin_rate": round(checkins / len(turns), 4) if turns else None,
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
    result["generalization"] = generalization(classify, semantic=True)
    result["generalization_without_encoder"] = generalization(partial(classify, semantic=False))
    for name, entry in result["generalization"].items():  # type: ignore[union-attr]
        print(f"== {name}: {json.dumps(entry)}")
    result["per_route"] = per_route()
    for name, entry in result["per_route"].items():  # type: ignore[union-attr]
        print(f"== {name} per language and route: {json.dumps(entry)}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()

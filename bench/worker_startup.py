"""A worker's start-up CPU, phase by phase, with the sentence encoder's own load apart.

Each run is a fresh Python process (what a worker, a test's worker or a CLI command pays), timed with its own CPU
clock (``time.process_time``: what other work on a shared machine does not inflate):
- ``import``: ``import workers.app`` (Celery, SQLAlchemy, the tables, the tasks);
- ``rules``: the guard's rules loaded (``ella.guard.classifier.compiled_rules``);
- ``language``: the language identifier; ``ngram``: the n-gram model; ``head``: the learned stage's head;
- ``encoder``: the sentence encoder (reported apart: issue 37's budget of 2 s excludes it).

    python bench/worker_startup.py [--runs 3] [--tree /path/to/another/checkout]

``--tree`` also times another checkout (say, the commit before a change) in the same sitting, and prints the
ratio. The last line is JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROBE = r"""
import json, time
out = {}
t = time.process_time()
import workers.app  # noqa: F401
out["import"] = time.process_time() - t
t = time.process_time()
from ella.guard.classifier import compiled_rules
compiled_rules()
out["rules"] = time.process_time() - t
t = time.process_time()
from ella.guard.language import warm_up
warm_up()
out["language"] = time.process_time() - t
t = time.process_time()
from ella.guard.model import load_model
load_model()
out["ngram"] = time.process_time() - t
try:
    from ella import sentence
    from ella.guard import semantic
    t = time.process_time()
    semantic.head()
    out["head"] = time.process_time() - t
    t = time.process_time()
    sentence.encoder()
    out["encoder"] = time.process_time() - t
except (ImportError, AttributeError):  # a checkout from before the encoder (issue 33)
    out["head"] = out["encoder"] = 0.0
print(json.dumps(out))
"""


def probe(tree: Path) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(tree), "ELLA_LLM_PROVIDER": "offline"}
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=tree, env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def median_of(tree: Path, runs: int) -> dict[str, float]:
    samples = [probe(tree) for _ in range(runs)]
    phases = samples[0].keys()
    out = {phase: round(statistics.median(s[phase] for s in samples), 3) for phase in phases}
    out["total_without_encoder"] = round(sum(v for k, v in out.items() if k != "encoder"), 3)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--tree", type=Path, default=None, help="another checkout to time beside this one")
    args = parser.parse_args()
    result: dict[str, object] = {"runs": args.runs, "this": median_of(ROOT, args.runs)}
    print(f"this checkout (CPU seconds, median of {args.runs}): {result['this']}")
    if args.tree is not None:
        other = median_of(args.tree.resolve(), args.runs)
        result["other"] = other
        this = result["this"]
        assert isinstance(this, dict)
        result["ratio_without_encoder"] = round(this["total_without_encoder"] / other["total_without_encoder"], 3)
        print(f"{args.tree} (CPU seconds, median of {args.runs}): {other}")
        print(f"start-up without the encoder: {result['ratio_without_encoder']} of the other checkout's")
    print(json.dumps(result))


if __name__ == "__main__":
    main()

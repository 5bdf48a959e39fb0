"""Repairs per 1,000 model calls on a faulty API, structured outputs off and on (issue 26).

The same process runs the same calls twice against the loopback Anthropic API (tests/support/fake_anthropic.py)
through the real SDK, ``ModelPort`` and ``AnthropicProvider``: once with ``structured_outputs=False`` (the
prompt alone asks for JSON) and once with each kind's schema as ``output_config.format``. Each HTTP call to
``/v1/messages`` draws, from a generator seeded the same way in both runs, whether it fails and how: 429, 529,
a truncated body, prose instead of JSON, JSON nested 5,000 deep, a NUL or failure text in the answer's strings,
the answer cut off at max_tokens, a refusal (``FAULT_MIX``). Under a schema the fake does what constrained
decoding does: no broken JSON, strings faulty only where the schema leaves free text; max_tokens, refusals and
HTTP faults happen just the same. The calls cycle through every kind.

Counted: repairs (re-asks after an answer failed validation: the port's ``invalid_output`` records), calls
that ended in the fail-safe, calls that ended in a transient error (the task would retry later), the HTTP calls
made, and the reasons answers were refused. The provider's waits between attempts are cut to a millisecond and
the scripted 429/529 say ``retry-after: 0``: this counts, it does not time. The last line is JSON.

    python bench/structured_outputs.py [--calls 1000] [--rate 0.3] [--seed 26]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

from adapters.settings import Settings
from ella.llm import anthropic_provider
from ella.llm.anthropic_provider import AnthropicProvider
from ella.llm.kinds import KINDS
from ella.llm.port import CallRecord, ModelPort
from ella.llm.prompts import template
from ella.llm.types import TransientModelError
from tests.support.fake_anthropic import FakeAnthropic

FAULT_MIX = (
    "http_429",
    "http_529",
    "truncated_body",
    "prose",
    "deep_json",
    "nul_in_strings",
    "failure_in_strings",
    "max_tokens",
    "refusal",
)
# What a refused answer's error says, by the first of these words found in it.
REASONS = (
    ("nested too deep", "nested too deep"),
    ("no JSON object", "no JSON object"),
    ("invalid JSON", "invalid JSON"),
    ("not an answer", "failure text"),
    ("validation error", "schema validation"),
)


def variables_for(kind: str) -> dict[str, Any]:
    names: set[str] = set()
    for part in template(kind):
        names |= set(part.get_identifiers())
    return {name: f"{name} of the bench" for name in names - {"example"}}


def script(fake: FakeAnthropic, rng: random.Random, rate: float, count: int) -> list[str]:
    """Queue ``count`` outcomes, one per HTTP call to come: a fault with probability ``rate``, else the answer.
    The fake serves them first in, first out, so the first n drawn are what the first n calls got."""
    drawn: list[str] = []
    for _ in range(count):
        if rng.random() >= rate:
            fake.enqueue()
            drawn.append("none")
            continue
        fault = rng.choice(FAULT_MIX)
        drawn.append(fault)
        if fault.startswith("http_"):
            fake.enqueue(status=int(fault[5:]), headers={"retry-after": "0"})
        else:
            fake.enqueue(fault=fault)
    return drawn


def reason(error: str) -> str:
    return next((name for words, name in REASONS if words in error), "other")


def run(fake: FakeAnthropic, structured: bool, calls: int, rate: float, seed: int) -> dict[str, Any]:
    fake.clear_script()
    before = len(fake.message_requests)
    records: list[CallRecord] = []
    provider = AnthropicProvider("bench-key", fake.base_url, timeout=10, max_retries=2, structured_outputs=structured)
    port = ModelPort(provider, Settings().model_tiers, max_repairs=Settings().llm_max_repairs, record=records.append)
    drawn = script(fake, random.Random(seed), rate, calls * 8)  # more than the calls can use
    kinds = sorted(KINDS)
    failsafe = transient = 0
    for i in range(calls):
        kind = kinds[i % len(kinds)]
        try:
            failsafe += port.call(kind, variables_for(kind)).failsafe
        except TransientModelError:
            transient += 1
    fake.clear_script()
    sent = fake.message_requests[before:]
    outcomes = Counter(r.outcome for r in records)
    refused = [r for r in records if r.outcome in ("invalid_output", "failsafe")]
    return {
        "structured_outputs": structured,
        "calls": calls,
        "http_calls": len(sent),
        "with_schema": sum(1 for r in sent if "output_config" in r["body"]),
        "repairs": outcomes["invalid_output"],
        "repaired_calls": outcomes["repaired"],
        "failsafes": failsafe,
        "transient_errors": transient,
        "refused_answers_by_reason": dict(sorted(Counter(reason(r.error) for r in refused).items())),
        "faults_served": dict(sorted(Counter(drawn[: len(sent)]).items())),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=0.3, help="share of HTTP calls that get a fault")
    parser.add_argument("--seed", type=int, default=26)
    args = parser.parse_args()
    anthropic_provider.BACKOFF_INITIAL_S = anthropic_provider.BACKOFF_MAX_S = 0.001  # count, do not wait
    with FakeAnthropic() as fake:
        off = run(fake, False, args.calls, args.rate, args.seed)
        on = run(fake, True, args.calls, args.rate, args.seed)
    per = 1000 / args.calls
    for result in (off, on):
        label = "on " if result["structured_outputs"] else "off"
        print(
            f"structured outputs {label}: {result['repairs'] * per:.1f} repairs, {result['failsafes'] * per:.1f} "
            f"fail-safes, {result['transient_errors'] * per:.1f} transient errors per 1,000 calls "
            f"({result['http_calls']} HTTP calls, {result['with_schema']} with a schema)"
        )
        print(f"  refused answers by reason: {result['refused_answers_by_reason']}")
    cut = 1 - on["repairs"] / off["repairs"] if off["repairs"] else 0.0
    print(f"repairs cut by {cut:.0%} (fault rate {args.rate:.0%}, seed {args.seed})")
    print(
        json.dumps(
            {
                "calls": args.calls,
                "fault_rate": args.rate,
                "seed": args.seed,
                "repairs_per_1000_off": round(off["repairs"] * per, 1),
                "repairs_per_1000_on": round(on["repairs"] * per, 1),
                "failsafes_per_1000_off": round(off["failsafes"] * per, 1),
                "failsafes_per_1000_on": round(on["failsafes"] * per, 1),
                "repairs_cut": round(cut, 3),
                "off": off,
                "on": on,
            }
        )
    )


if __name__ == "__main__":
    main()

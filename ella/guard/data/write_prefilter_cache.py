"""Rewrite the guard's shipped prefilter cache (``ella/guard/data/prefilter_cache.json``) after changing rules.

    python -m ella.guard.data.write_prefilter_cache

Each rule pattern's prefilter literals are parsed afresh (``ella.guard.prefilter.prefilter_of``) and written by the
pattern's source, so a process that loads the rules reads them instead of parsing 700 regexes at start-up. A rule
missing from the cache still works (it is parsed when loaded); ``tests/test_guard_classifier.py`` fails until the
cache is rewritten, so the start-up stays cheap.
"""

from __future__ import annotations

from ella.guard.classifier import compiled_rules
from ella.guard.rules import PREFILTER_CACHE, write_prefilter_cache


def main() -> None:
    every = [r for group in compiled_rules().rules.values() for r in group]
    print(f"wrote the prefilter of {write_prefilter_cache(every)} patterns to ella/guard/{PREFILTER_CACHE}")


if __name__ == "__main__":
    main()

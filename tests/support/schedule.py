"""The order test files are handed to pytest-xdist's processes: the longest first.

``--dist loadfile`` gives a whole file to one process. xdist's own order is by number of tests, so the files of
hundreds of quick parametrized cases went first and the few long worker files (a real Celery worker, Redis
outages, Flower) came last, one process running them alone for minutes while the other idled. Handing them out
longest first (the classic longest-processing-time rule) keeps both busy to the end.

``FILE_SECONDS`` holds each file's measured seconds (setup + call + teardown, both back ends) from a full run:
a hint for the order only, never part of what a test asserts. Files of 5 s or more are listed (from a run with
the tests' workers forked from a zygote); a file not listed counts as 0 and goes after the listed ones in
collection order. To refresh it after a full run with ``--durations=0`` saved to a file:
``python -m tests.support.schedule durations.txt``, which prints the new table to paste here.
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from collections.abc import Sequence
from typing import Protocol

FILE_SECONDS: dict[str, float] = {
    "tests/test_worker_ingest.py": 132,
    "tests/test_embedded_default.py": 103,
    "tests/test_metrics.py": 74,
    "tests/test_broker_faults.py": 74,
    "tests/test_least_privilege.py": 62,
    "tests/test_signed_requests.py": 51,
    "tests/test_model_worker.py": 50,
    "tests/test_node_gateway.py": 47,
    "tests/test_failure_channel.py": 47,
    "tests/test_forget_user.py": 34,
    "tests/test_log_privacy_producers.py": 25,
    "tests/test_bench_scale.py": 22,
    "tests/test_inspect_page.py": 22,
    "tests/test_guard_classifier.py": 17,
    "tests/test_memory_requests.py": 16,
    "tests/test_memory_say.py": 14,
    "tests/test_jobs.py": 14,
    "tests/test_ingest_recovery.py": 12,
    "tests/test_model_output_faults.py": 12,
    "tests/test_batches.py": 11,
    "tests/test_malformed_envelopes.py": 11,
    "tests/test_pending_effects.py": 10,
    "tests/test_folded_extraction.py": 10,
    "tests/test_image_anchors.py": 10,
    "tests/test_memory_pages.py": 10,
    "tests/test_memory_reflection.py": 10,
    "tests/test_python_gateway_client.py": 9,
    "tests/test_schema.py": 9,
    "tests/test_pgbouncer.py": 8,
    "tests/test_long_memory.py": 8,
    "tests/test_cli_jobs.py": 8,
    "tests/test_notifications.py": 8,
    "tests/test_world_pipeline.py": 7,
    "tests/test_memory_poisoning.py": 7,
    "tests/test_ledger_consolidation.py": 7,
    "tests/test_ledger.py": 7,
    "tests/test_offline_context.py": 7,
    "tests/test_gateway_spec.py": 7,
    "tests/test_memory_perceive.py": 7,
    "tests/test_log_privacy.py": 6,
    "tests/test_pictures_to_the_gateway.py": 6,
    "tests/test_world_cache_lost_invalidation.py": 5,
    "tests/test_model_port.py": 5,
    "tests/test_outbox_stream.py": 5,
    "tests/test_erasure_on_disk.py": 5,
    "tests/test_memory_at_scale_migration.py": 5,
    "tests/test_lazy_world.py": 5,
    "tests/test_fake_anthropic.py": 5,
}


class _Item(Protocol):
    nodeid: str


def file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def longest_files_first(items: Sequence[_Item]) -> list[_Item]:
    """``items`` with the listed files longest first; a stable sort, so each file keeps its own order."""
    return sorted(items, key=lambda item: -FILE_SECONDS.get(file_of(item.nodeid), 0.0))


def seconds_per_file(durations: str) -> dict[str, float]:
    """Per-file seconds from pytest's ``--durations=0`` lines (``1.23s call     tests/x.py::test_y[sqlite]``)."""
    totals: dict[str, float] = defaultdict(float)
    for match in re.finditer(r"^([0-9.]+)s (?:setup|call|teardown)\s+(\S+)", durations, re.MULTILINE):
        totals[file_of(match.group(2))] += float(match.group(1))
    return dict(totals)


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as report:
        measured = seconds_per_file(report.read())
    for name, seconds in sorted(measured.items(), key=lambda kv: -kv[1]):
        if seconds >= 5:
            print(f'    "{name}": {seconds:.0f},')

"""``ella.flush_model_batches`` and ``ella.poll_model_batches``: the periodic halves of the batch service.

Thin on purpose: the rules (at-most-once apply, re-submission, fail-safes) live in ``workers.batches``;
these only run them on the batch queue with the usual retry and dead-letter policy. Both are idempotent:
a flush claims items under lock, a poll applies only what is still waiting on the batch it reads.
"""

from __future__ import annotations

from typing import Any

from workers import batches
from workers.app import app
from workers.reliability import ReliableTask


@app.task(name="ella.flush_model_batches", base=ReliableTask, bind=True)
def flush_model_batches(self: ReliableTask) -> dict[str, Any]:
    return batches.flush_pending().as_dict()


@app.task(name="ella.poll_model_batches", base=ReliableTask, bind=True)
def poll_model_batches(self: ReliableTask) -> dict[str, Any]:
    return batches.poll().as_dict()

"""``ella.boundary_regression``: the nightly run of the boundary corpus through the live reply path.

Why nightly and through the real path: the drift the guard exists for is slow and shows under relational
pressure, so every corpus message goes through ``ella.reply`` exactly as a user's would (inbound guard,
then the live-reply model with its prompt, then the outbound guard) as a synthetic user, with nothing
stored or published (``answer(..., synthetic=True)``: a new user's world in memory, no user row, no world
facts, no usage rows). A model failure on a line is counted in the run's result and logged under this task,
never dead-lettered as a user's message. Any generated reply that fires a category is an alert: a log line, a
``boundary_events`` row (direction ``regression``) and a Redis counter operators can graph.

Why a deadline of its own: with a slow model the corpus can outlast the task's time limits, and a run killed
by the hard limit reports nothing. The run starts no line it could not finish before the soft limit (the time
left must cover the slowest line so far, and at least one model-call budget), counts the lines it left
``unchecked`` and still returns its summary; a soft time limit that fires anyway (prefork) ends it the same way.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded

from adapters import metrics
from adapters.db import session_scope
from adapters.redis_conn import get_redis
from adapters.reply_service import answer
from adapters.settings import get_settings
from ella.contract import IngestPayload
from models.boundary import log_verdict
from workers.app import app
from workers.reliability import ReliableTask
from workers.routing import TaskName

log = logging.getLogger(__name__)
REGRESSION_USER = "guard-regression"


def corpus_path() -> Path:
    """The configured corpus; by default the one shipped in the package. A relative path is taken from the
    working directory, as any path an operator sets is: an installed package has no project root to anchor it."""
    return Path(get_settings().guard_corpus_path)


def load_corpus(path: Path) -> list[str]:
    return [str(json.loads(line)["text"]) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def alert_counter_key() -> str:
    return f"{get_settings().redis_key_prefix}:guard:regression_alerts"


@app.task(name=TaskName.BOUNDARY_REGRESSION, base=ReliableTask, bind=True)
def boundary_regression(self: ReliableTask) -> dict[str, Any]:
    """Run every corpus message through the reply path; count routes and alert on drifted replies."""
    settings = get_settings()
    texts = load_corpus(corpus_path())
    run = uuid.uuid4().hex[:8]
    counts: dict[str, int] = {"messages": len(texts), "alerts": 0, "model_failures": 0, "unchecked": 0}
    may_start = line_deadline(settings.task_soft_time_limit_s, settings.llm_deadline_s)
    i = 0
    try:
        for i, text in enumerate(texts):
            if not may_start():
                break
            check_line(run, i, text, counts)
        else:
            i = len(texts)
    except SoftTimeLimitExceeded:
        log.warning("boundary regression: the soft time limit fired on corpus line %d", i + 1)
    counts["unchecked"] = len(texts) - i
    if counts["unchecked"]:
        log.warning("boundary regression: %d of %d corpus lines left unchecked before the time limit",
                    counts["unchecked"], len(texts))  # fmt: skip
    log.info("boundary regression over %d messages: %s", len(texts), counts)
    metrics.regression_run(counts)
    return counts


def line_deadline(
    soft_limit_s: float, call_budget_s: float, clock: Callable[[], float] = time.monotonic
) -> Callable[[], bool]:
    """A gate asked before each line: may it start and still end before the soft limit?

    What a line needs is the slowest line so far, at least one model call's budget capped at a tenth of the
    limit (a first line has no history, and the budget is most of the limit on a short one)."""
    start = clock()
    slowest = 0.0
    last = start

    def may_start() -> bool:
        nonlocal slowest, last
        now = clock()
        slowest = max(slowest, now - last)
        last = now
        needed = max(slowest, min(call_budget_s, soft_limit_s / 10))
        return now - start + needed <= soft_limit_s

    return may_start


def check_line(run: str, i: int, text: str, counts: dict[str, int]) -> None:
    """One corpus line through the live reply path: count its route, and alert if the generated reply drifted."""
    payload = IngestPayload(
        message_id=f"regression-{run}-{i}", user_id=REGRESSION_USER, text=text, sent_at=datetime.now(UTC)
    )
    outcome = answer(payload, final_attempt=True, synthetic=True)
    counts[outcome.reply.route] = counts.get(outcome.reply.route, 0) + 1
    if outcome.dead_letter_reason:  # the model failed: this line tells nothing about drift tonight
        counts["model_failures"] = counts.get("model_failures", 0) + 1
        log.warning("boundary regression: corpus line %d not checked: %s", i + 1, outcome.dead_letter_reason)
    drifted = [verdict for direction, verdict in outcome.fires if direction == "outbound"]
    if not drifted:
        return
    verdict = drifted[0]
    counts["alerts"] += 1
    log.warning("boundary regression: a generated reply fired %s (%s) on corpus line %d",
                verdict.category, verdict.matched, i + 1)  # fmt: skip
    with session_scope() as session:
        log_verdict(session, verdict, direction="regression", user_id=None, message_id=payload.message_id, text=None)
    metrics.regression_fire(verdict)
    get_redis().incr(alert_counter_key())

"""``ella.boundary_regression``: the nightly run of the boundary corpus through the live reply path.

Why nightly and through the real path: the drift the guard exists for is slow and shows under relational
pressure, so every corpus message goes through ``ella.reply`` exactly as a user's would (inbound guard,
then the live-reply model with its prompt, then the outbound guard) as a synthetic user, with nothing
stored or published (``answer(..., synthetic=True)``: a new user's world in memory, no user row, no world
facts, no usage rows). A model failure on a line is counted in the run's result and logged under this task,
never dead-lettered as a user's message. Any generated reply that fires a category is an alert: a log line, a
``boundary_events`` row (direction ``regression``) and a Redis counter operators can graph.
"""

from __future__ import annotations

import json
import logging
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ella.contract import IngestPayload
from models.boundary import log_verdict
from workers.app import app
from workers.db import session_scope
from workers.redis_conn import get_redis
from workers.reliability import ReliableTask
from workers.reply_service import answer
from workers.routing import TaskName
from workers.settings import get_settings

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
    texts = load_corpus(corpus_path())
    run = uuid.uuid4().hex[:8]
    counts: dict[str, int] = {"messages": len(texts), "alerts": 0, "model_failures": 0}
    for i, text in enumerate(texts):
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
            continue
        verdict = drifted[0]
        counts["alerts"] += 1
        log.warning("boundary regression: a generated reply fired %s (%s) on corpus line %d",
                    verdict.category, verdict.matched, i + 1)  # fmt: skip
        with session_scope() as session:
            log_verdict(
                session, verdict, direction="regression", user_id=None, message_id=payload.message_id, text=None
            )
        get_redis().incr(alert_counter_key())
    log.info("boundary regression over %d messages: %s", len(texts), counts)
    return counts

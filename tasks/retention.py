"""``ella.prune_logs``: the daily retention job on beat (README, Retention; the rules: ``models.retention``).

Idempotent and resumable: each batch commits on its own and a rerun only finds what is still older than its
cutoff. A run is bounded (``retention_max_batches`` per table); a backlog is worked off over the next runs.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from celery.exceptions import SoftTimeLimitExceeded

from adapters.db import session_scope
from adapters.settings import Settings, get_settings
from models.base import utcnow
from models.retention import RULES, Rule
from workers.app import app
from workers.reliability import ReliableTask
from workers.routing import TaskName

log = logging.getLogger(__name__)


@dataclass
class Pruned:
    """What one run did: rows per table, and the tables whose pruning failed (with the error)."""

    counts: dict[str, int] = field(default_factory=dict)
    failed: dict[str, BaseException] = field(default_factory=dict)


def prune_table(rule: Rule, cutoff: datetime, rows: int, max_batches: int) -> int:
    """Batches of ``rows`` until one comes back short or ``max_batches`` ran; the rows pruned."""
    total = 0
    for _ in range(max_batches):
        with session_scope() as session:
            done = rule.batch(session, cutoff, rows)
        total += done
        if done < rows:
            break
    return total


def prune_logs_now(settings: Settings, now: datetime) -> Pruned:
    """Every table whose setting is not 0; one table's failure is logged and does not stop the others."""
    pruned = Pruned()
    for rule in RULES:
        days = int(getattr(settings, rule.setting))
        if days <= 0:
            continue  # kept forever
        cutoff = now - timedelta(days=days)
        try:
            count = prune_table(rule, cutoff, settings.retention_batch_rows, settings.retention_max_batches)
        except SoftTimeLimitExceeded:
            raise
        except Exception as exc:  # the next tables still run; the task fails at the end
            log.exception("retention: pruning %s failed", rule.table)
            pruned.failed[rule.table] = exc
            continue
        pruned.counts[rule.table] = count
        log.info("retention: %s %d %s rows older than %s (%d days)", rule.table, count, rule.action,
                 cutoff.isoformat(), days)  # fmt: skip
    return pruned


@app.task(name=TaskName.PRUNE_LOGS, base=ReliableTask, bind=True)
def prune_logs(self: ReliableTask) -> dict[str, int]:
    """Beat, daily: the rows pruned per table; raises the first table's error once the others have run."""
    pruned = prune_logs_now(get_settings(), utcnow())
    if pruned.failed:
        raise next(iter(pruned.failed.values()))
    return pruned.counts

"""What ``ella metrics serve`` would export after the demo: its worker wrote its samples under
``<var>/metrics`` (``ELLA_METRICS_DIR``, set by ``demo.stack`` unless the operator set one), and one scrape of
that directory is summed per family, printed, and written beside the operator's page.

Why: the on-call engineer's view of the same story (replies by route, boundary fires, crisis referrals, dead
letters, model calls and tokens, notifications, job users, latency), without starting Prometheus. The offline
engine is free and has no prompt cache, so the cost and cache-hit families stay at zero here; so do the nightly
regression's (the demo does not run it).
"""

from __future__ import annotations

from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families
from rich.console import Console
from rich.table import Table

from adapters.settings import Settings


def metrics_root(settings: Settings) -> Path:
    return settings.metrics_dir or settings.var_path / "metrics"


def family_totals(text: str) -> dict[str, float]:
    """Each ``ella_`` family's sum over its samples (a histogram's count; gauges as they are)."""
    totals: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        if not family.name.startswith("ella_"):
            continue
        if family.type == "histogram":
            total = sum(s.value for s in family.samples if s.name.endswith("_count"))
        else:
            total = sum(s.value for s in family.samples if not s.name.endswith("_created"))
        totals[family.name] = total
    return totals


# Why a family stays at zero in the demo (every other one is non-zero after its story).
ZERO_OFFLINE = {
    "ella_model_cost_dollars": "the offline engine is free",
    "ella_model_cache_hits": "the offline engine has no prompt cache",
    "ella_boundary_regression_fires": "the nightly regression does not run in the demo",
    "ella_boundary_regression_lines": "the nightly regression does not run in the demo",
    "ella_boundary_regression_last_run_fires": "the nightly regression does not run in the demo",
    "ella_queue_depth": "read at the scrape, after the worker drained every queue",
}


def show_metrics(console: Console, settings: Settings) -> Path:
    """Scrape the demo's metrics directory once; print every family's total (a family without samples as 0,
    with why); write the scrape under var/demo."""
    from adapters.metrics import BROKER_UP, FAMILIES, QUEUE_DEPTH
    from operator_page.metrics_endpoint import scrape

    text = scrape(metrics_root(settings)).decode()
    totals = family_totals(text)
    names = {next(iter(family.describe())).name for family in FAMILIES} | {QUEUE_DEPTH, BROKER_UP}
    table = Table("metric family (ella metrics serve)", "total", "")
    for name in sorted(names):
        total = totals.get(name, 0.0)
        table.add_row(name, f"{total:g}", ZERO_OFFLINE.get(name, "") if not total else "")
    console.print(table)
    path = settings.var_path / "demo" / "metrics.prom"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path

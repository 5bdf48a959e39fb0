"""``bench/scale.py`` at a tiny size: it runs end to end on PostgreSQL and its last line has every figure.

Why: the bench is run rarely and at sizes that take hours, so a broken figure would be found late. Here both sides
are today's head (the default ``--after``), so the figures of the schema's own shape (sizes, index count,
index tuples per touch) must match across the sides: a check the bench is measuring the schema, not the run.
No timing is asserted, only that each timing is there and ordered (p50 <= p99).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
from sqlalchemy.engine import make_url

from tests.conftest import BACKENDS
from tests.support.scratch import pg_admin_url

ROOT = Path(__file__).resolve().parents[1]
TIMINGS = (("rows", ("cold",)), ("stream", ("cold", "warm")), ("context", ("cold", "warm")))
LOCKS = ("AccessShareLock", "RowShareLock", "RowExclusiveLock", "ShareUpdateExclusiveLock", "ShareLock",
         "ShareRowExclusiveLock", "ExclusiveLock", "AccessExclusiveLock")  # fmt: skip

pytestmark = pytest.mark.skipif("postgresql" not in BACKENDS, reason="the bench loads PostgreSQL by COPY")


def scratch_databases() -> set[str]:
    dsn = make_url(pg_admin_url()).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(dsn, autocommit=True) as conn:
        return {r[0] for r in conn.execute("SELECT datname FROM pg_database WHERE datname LIKE 'ella_scale_%'")}


def run_bench(tmp_path: Path, *args: str) -> tuple[dict, str]:
    out = tmp_path / "scale.txt"
    env = {**os.environ, "ELLA_TEST_PG_URL": pg_admin_url()}
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "scale.py"), "--users", "200", "--nodes", "5000", "--samples", "2",
         "--touches", "60", "--embedder", "hashing", "--out", str(out), *args],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1]), out.read_text()


def test_the_bench_reports_every_figure_for_both_revisions_and_drops_its_databases(tmp_path: Path) -> None:
    existing = scratch_databases()
    result, written = run_bench(tmp_path)

    assert written.strip().splitlines()[-1] == json.dumps(result, sort_keys=True)  # --out holds the same lines
    for side in ("before", "after"):
        figures = result[side]
        load, sizes, touch, erasure = figures["load"], figures["sizes"], figures["touch"], figures["erasure"]
        assert load["users"] == 200 and load["nodes"] == 5000
        assert load["big_user_nodes"] == 1250 and load["small_user_nodes"] == 50
        assert sizes["heap_bytes_per_million"] > 0 and sizes["index_bytes_per_million"] > 0
        assert sizes["toast_bytes_per_million"] >= 0 and sizes["indexes_per_leaf"] >= 1
        assert touch["updated"] == touch["touches"] == 60
        assert 0 <= touch["index_tuples_per_touch"] <= sizes["indexes_per_leaf"]
        for user, nodes in (("small", 50), ("big", 1250)):
            reply = figures["reply"][user]
            assert reply["nodes_loaded"] == nodes  # the product's loader read the whole stream
            for timing, modes in TIMINGS:
                for mode in modes:
                    p50, p99 = reply[f"{timing}_{mode}_p50_ms"], reply[f"{timing}_{mode}_p99_ms"]
                    assert 0 < p50 <= p99
        assert erasure["deleted_nodes"] == 1250
        assert erasure["step_s"] > 0
        assert erasure["strongest_lock"] in LOCKS
        assert (
            erasure["memory_nodes_exclusive_scope"] in ("whole table", "none")
            or "partitions" in erasure["memory_nodes_exclusive_scope"]
        )
        assert erasure["other_user_reads_ok"] + erasure["other_user_reads_blocked"] > 0

    before, after = result["before"]["sizes"], result["after"]["sizes"]
    assert before["heap_bytes"] == after["heap_bytes"]  # same schema, same seed: the same table
    assert before["indexes_per_leaf"] == after["indexes_per_leaf"]
    assert result["ratios"]["sizes.heap_bytes_per_million"] == 1.0
    assert scratch_databases() == existing

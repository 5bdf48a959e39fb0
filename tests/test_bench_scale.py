"""``bench/scale.py`` at a tiny size: it runs end to end on PostgreSQL and its last line has every figure.

Why: the bench is run rarely and at sizes that take hours, so a broken figure would be found late. Here both sides
are today's head, so the figures of the schema's own shape (sizes, index count,
index tuples per touch) must match across the sides: a check the bench is measuring the schema, not the run.
No timing is asserted, only that each timing is there and ordered (p50 <= p99).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from datetime import UTC, datetime
from pathlib import Path

import psycopg
import pytest
from sqlalchemy.engine import make_url

from tests.conftest import BACKENDS
from tests.support.scratch import create_database, pg_admin_url

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
    result, written = run_bench(tmp_path, "--before", "head", "--after", "head")

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
        # at this size the per-partition step (migration 0023) can end between two 20 ms samples of pg_locks
        assert erasure["strongest_lock"] in LOCKS or (erasure["strongest_lock"] is None and erasure["step_s"] < 1)
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


def test_a_hash_partitioned_stream_is_loaded_and_measured_over_its_partitions(tmp_path: Path) -> None:
    """The new schema's shape (issue 35: memory_nodes hash-partitioned by user, a format column beside the
    vector, a required column the bench has never heard of): loaded without an edit, every plain index rebuilt on
    every partition (``pg_get_indexdef`` says ``ON ONLY`` for a partitioned index), sizes summed over the leaves."""
    sys.path.insert(0, str(ROOT / "bench"))
    import numpy as np
    import scale

    url, drop = create_database("postgresql", f"ella_scale_shape_{uuid.uuid4().hex[:8]}", tmp_path)
    try:
        with scale.raw(url) as conn:
            conn.execute(
                "CREATE TABLE memory_nodes (id bigint GENERATED BY DEFAULT AS IDENTITY, user_id text NOT NULL,"
                " node_type text NOT NULL, created_at timestamptz NOT NULL, last_accessed_at timestamptz NOT NULL,"
                " description text NOT NULL, embedding bytea NOT NULL, embedding_format smallint NOT NULL,"
                " dedupe_key text, mood smallint NOT NULL, PRIMARY KEY (user_id, id), UNIQUE (user_id, dedupe_key))"
                " PARTITION BY HASH (user_id)"
            )
            for i in range(4):
                conn.execute(f"CREATE TABLE memory_nodes_p{i} PARTITION OF memory_nodes"
                             f" FOR VALUES WITH (MODULUS 4, REMAINDER {i})")  # fmt: skip
            conn.execute("CREATE INDEX ix_memory_nodes_user_id_created_at ON memory_nodes (user_id, created_at)")
        pool = [{"embedding": bytes(8), "embedding_format": 2}]
        scale.load_nodes(url, np.array([300, 100, 600]), np.random.default_rng(0), pool, datetime.now(UTC))
        sizes = scale.sizes(url, 1000)
        with scale.raw(url) as conn:
            rows = conn.execute("SELECT count(*), min(embedding_format), min(mood) FROM memory_nodes").fetchone()
            built = conn.execute(
                "SELECT count(*) FROM pg_indexes WHERE tablename LIKE 'memory_nodes_p%' "
                "AND indexdef LIKE '%created_at%'"
            ).fetchone()[0]
    finally:
        drop()

    assert rows == (1000, 2, 0)  # the format the encoder gave, and a typed filler for the unknown column
    assert built == 4
    assert sizes["partitions"] == 4 and sizes["indexes_per_leaf"] == 3
    assert sizes["heap_bytes"] > 0 and sizes["index_bytes"] > 0

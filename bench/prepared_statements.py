"""What turning psycopg's server-side prepared statements off costs (adapters/db.py, pooler_safe_connect_args).

Why: behind PgBouncer in transaction mode a prepared statement is missing on the next server connection, so
``make_engine`` passes ``prepare_threshold=None`` always. The price is PostgreSQL planning each statement again.
This runs the same statements straight on PostgreSQL (no pooler, where preparing works) with psycopg's default
(prepare from the sixth execution) and with preparing off: a primary-key read of a user, and the ledger's
``current`` query (several predicates, an ORDER BY), ``--n`` times each, one connection, in autocommit.

    python bench/prepared_statements.py [--n 5000]

The last line is JSON: microseconds per execution for each, and the difference.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

from tests.support.scratch import create_database, scratch_run

RUN, VAR = scratch_run("bench")

STATEMENTS = {
    "user_by_id": "SELECT id, timezone, locale FROM users WHERE id = %s",
    "live_facts": (
        "SELECT id, subject, predicate, object, tier FROM world_facts WHERE user_id = %s "
        "AND status IN ('active', 'contested') AND subject LIKE 'ellahome%%' ORDER BY subject, recorded_at"
    ),
}


def per_execution_us(dsn: str, statement: str, user: str, n: int, prepare: int | None) -> float:
    import psycopg

    with psycopg.connect(dsn, autocommit=True, prepare_threshold=prepare) as conn:
        for _ in range(50):  # warm: past the threshold, so the prepared runs are measured prepared
            conn.execute(statement, [user]).fetchall()
        runs = []
        for _ in range(5):
            start = time.perf_counter()
            for _ in range(n // 5):
                conn.execute(statement, [user]).fetchall()
            runs.append((time.perf_counter() - start) / (n // 5) * 1e6)
    return statistics.median(runs)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=5000)
    args = parser.parse_args()

    from adapters import db
    from adapters.db import session_scope
    from adapters.settings import get_settings
    from ella.ledger.rules import Writer
    from models import User
    from models.ledger import NewFact, append

    url, drop = create_database("postgresql", f"ella_bench_{RUN}_prep", VAR)
    try:
        settings = get_settings().model_copy(update={"database_url": url})
        db.upgrade(settings)
        user = f"bench-{uuid.uuid4().hex[:6]}"
        with session_scope(settings) as s:
            s.add(User(id=user, timezone="UTC"))
            s.flush()
            for i in range(40):
                append(s, user, NewFact(f"ellahome.room{i}", "colour", "red", "canon"), Writer.ANCHOR)
        db.forget_engine(url)
        dsn = url.replace("+psycopg", "")
        result: dict[str, Any] = {}
        for name, statement in STATEMENTS.items():
            # Alternated, three rounds each, the median kept: the machine is shared, and load drifts.
            prepared_runs, unprepared_runs = [], []
            for _ in range(3):
                prepared_runs.append(per_execution_us(dsn, statement, user, args.n, 5))
                unprepared_runs.append(per_execution_us(dsn, statement, user, args.n, None))
            prepared, unprepared = statistics.median(prepared_runs), statistics.median(unprepared_runs)
            result[name] = {
                "prepared_us": round(prepared, 1),
                "unprepared_us": round(unprepared, 1),
                "difference_us": round(unprepared - prepared, 1),
            }
            print(f"{name}: prepared {prepared:.1f} us, unprepared {unprepared:.1f} us per execution")
        print(json.dumps({"n": args.n, **result}))
    finally:
        drop()


if __name__ == "__main__":
    main()

"""One notification dispatch pass at scale, on PostgreSQL: 100,000 users, 10,000 of them with a due candidate.

Users and candidates are bulk-loaded with COPY (candidates inserted directly: the offline engine would have
written their bodies). Of the due candidates, most belong to users for whom it is midday (they are sent), some
to users for whom it is night (held until their active hours), some to users who turned notifications off
(skipped), and a twentieth rest on a fact retired since (skipped, grounds gone); half are grounded on a live
fact. One pass of ``tasks.notifications.dispatch`` runs in this process, publishing to the run's Redis.

Printed: the pass's time, database round trips per sent notification (statements counted with a SQLAlchemy
``before_cursor_execute`` listener), and the statements of a second pass over the same users with nothing due
(it must not grow with the number of users). Last line JSON:
``{"users", "due", "sent", "dispatch_s", "round_trips_per_sent", "queries_for_idle_users", ...}``.

    python bench/notifications.py [--users 100000] [--due 10000]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

from tests.support.scratch import create_database, scratch_run

RUN, VAR = scratch_run("bench")


def zone_at(now: datetime, local_hour: int) -> str:
    """A fixed-offset zone where it is ``local_hour`` o'clock at ``now``."""
    offset = (local_hour - now.hour + 12) % 24 - 12
    return "UTC" if offset == 0 else f"Etc/GMT{'-' if offset > 0 else '+'}{abs(offset)}"


def bulk_load(url: str, users: int, due: int, now: datetime) -> Counter[str]:
    """COPY ``users`` users, one live fact for each grounded due user (a retired one for a twentieth), and
    ``due`` candidates; the expected outcome of each candidate, by count."""
    import psycopg
    from sqlalchemy.engine import make_url

    dsn = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    noon, night = zone_at(now, 12), zone_at(now, 3)
    stamp = now.isoformat()
    users_io, facts_io, candidates_io = io.StringIO(), io.StringIO(), io.StringIO()
    expected: Counter[str] = Counter()
    step = max(1, users // max(1, due))
    due_users = {i * step for i in range(due)}
    k = 0
    for i in range(users):
        user = f"u{i:07d}"
        is_due = i in due_users
        kind = k % 20 if is_due else -1
        zone = night if kind == 1 else noon
        enabled = "f" if kind == 2 else "t"
        last_seen = (now - timedelta(days=i % 30)).isoformat()
        users_io.write(f"{user}\t{stamp}\t{last_seen}\t{zone}\t1320\t480\t540\t1260\tf\t150\t150\t{enabled}\n")
        if not is_due:
            continue
        k += 1
        grounded = kind in (3, 4) or k % 2 == 0
        facts = f"[{k}]" if grounded else "[]"
        if grounded:
            status = "retired" if kind == 3 else "active"
            facts_io.write(f"{k}\t{user}\tc{k:031d}\tuser_claim\t{status}\tuser.interview\tis on\tThursday\t1\t\t"
                           f"user\t{stamp}\t{stamp}\n")  # fmt: skip
        based_on = json.dumps({"facts": json.loads(facts), "self_log": []})
        fresh_until = (now + timedelta(days=3)).isoformat()
        not_before = (now - timedelta(minutes=1 + k % 600)).isoformat()
        candidates_io.write(f"{user}\tfollowup\tHow did the interview go? ({k})\t{based_on}\t{stamp}\t{fresh_until}\t"
                            f"{not_before}\tcandidate\tbench:{k}\n")  # fmt: skip
        expected[{1: "held", 2: "ended", 3: "ended"}.get(kind, "sent")] += 1
    with psycopg.connect(dsn) as conn, conn.cursor() as cur:
        columns = (
            "id, created_at, last_seen_at, timezone, dnd_start_minute, dnd_end_minute, active_start_minute,"
            " active_end_minute, is_minor, importance_trigger_curr, importance_trigger_max, notifications_enabled"
        )
        with cur.copy(f"COPY users ({columns}) FROM STDIN") as copy:
            copy.write(users_io.getvalue())
        columns = (
            "id, user_id, chain, tier, status, subject, predicate, object, confidence, note, written_by, valid_from,"
            " recorded_at"
        )
        with cur.copy(f"COPY world_facts ({columns}) FROM STDIN") as copy:
            copy.write(facts_io.getvalue())
        cur.execute("SELECT setval(pg_get_serial_sequence('world_facts', 'id'), (SELECT max(id) FROM world_facts))")
        columns = "user_id, kind, body, based_on, created_at, fresh_until, not_before, status, dedupe_key"
        with cur.copy(f"COPY notification_candidates ({columns}) FROM STDIN") as copy:
            copy.write(candidates_io.getvalue())
        for table in ("users", "world_facts", "notification_candidates"):
            cur.execute(f"ANALYZE {table}")
    return expected


def counted_pass(now: datetime) -> tuple[dict[str, int], int, float]:
    """(what the pass did, statements it sent to the database, seconds)."""
    from sqlalchemy import event

    from adapters.db import get_engine
    from tasks.notifications import dispatch

    statements = 0

    def count(*_args: object) -> None:
        nonlocal statements
        statements += 1

    engine = get_engine()
    event.listen(engine, "before_cursor_execute", count)
    try:
        started = time.perf_counter()
        counts = dispatch(now)
        elapsed = time.perf_counter() - started
    finally:
        event.remove(engine, "before_cursor_execute", count)
    return counts, statements, elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--due", type=int, default=10_000)
    args = parser.parse_args()
    if args.due > args.users:
        parser.error("--due cannot exceed --users")

    url, drop = create_database("postgresql", f"ella_notif_{RUN}", VAR)
    os.environ["ELLA_DATABASE_URL"] = url
    from adapters import db
    from adapters.redis_conn import get_redis
    from adapters.settings import get_settings

    get_settings.cache_clear()
    db.upgrade()
    settings = get_settings()
    now = datetime.now(UTC)
    try:
        started = time.perf_counter()
        expected = bulk_load(url, args.users, args.due, now)
        print(f"loaded {args.users:,} users, {args.due:,} due candidates ({time.perf_counter() - started:.1f} s); "
              f"expected {dict(expected)}", flush=True)  # fmt: skip
        counts, statements, elapsed = counted_pass(now)
        sent = counts.get("sent", 0)
        print(f"dispatch pass: {elapsed:.2f} s, {counts}, {statements} statements "
              f"({statements / max(1, sent):.3f} per sent notification)", flush=True)  # fmt: skip
        stream = get_redis().xlen(settings.outbox_stream)
        assert sent == expected["sent"] == stream, f"sent {sent}, expected {expected['sent']}, on the stream {stream}"
        idle_counts, idle_statements, idle_elapsed = counted_pass(now + timedelta(seconds=1))
        print(f"idle pass over the same {args.users:,} users (nothing due): {idle_statements} statements, "
              f"{idle_elapsed * 1000:.1f} ms, {idle_counts}", flush=True)  # fmt: skip
    finally:
        get_redis().delete(*settings.queues, settings.outbox_stream)
        drop()
    print(
        json.dumps(
            {
                "users": args.users,
                "due": args.due,
                "sent": sent,
                "held": counts.get("held", 0),
                "ended": counts.get("ended", 0),
                "dispatch_s": round(elapsed, 2),
                "round_trips_per_sent": round(statements / max(1, sent), 3),
                "queries_for_idle_users": idle_statements,
            }
        )
    )


if __name__ == "__main__":
    main()

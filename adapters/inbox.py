"""The inbox: every enqueued message until its reply is published, so a message the broker lost is re-sent.

Why: Celery's Redis transport pops a task from the queue and records it as unacknowledged in a second
round trip; a worker killed between the two loses that task for good (seen in our ``kill -9`` test, about
one run in ten). The gateway client records each message here before sending it, the ingest task forgets
it once the reply is published, and a periodic sweep re-sends what is still here after the visibility
timeout (when the broker itself would have redelivered an unacknowledged task) plus a grace period.
Ingest is idempotent by ``message_id``, so a re-send of a message that was only slow changes nothing.

Why a second, earlier look (``due_checks``): after Redis or PostgreSQL comes back, a message whose reply was
committed but never published, or whose task is waiting out a long retry countdown, must be answered within
seconds, not after the visibility timeout. The sweep looks at each entry ``inbox_recheck_after_s`` after it was
sent (then at doubling intervals): it publishes a committed reply, or re-sends a message no worker holds.
A worker holds a message (``hold``) while it calls the model for it, so a slow reply is not sent twice.

Entries are keyed by (user_id, message_id): another user's reuse of a ``message_id`` must not overwrite a
pending message (the first user's message would be lost with no reply and no dead letter).

The key is the JSON array ``[user_id, message_id]``, in any JSON spelling: Python writes ``["u", "m"]``, every
other language's default writer ``["u","m"]``, PHP escapes ``/`` as ``\\/``. Only an exact match is removed on publish,
and a compact key used to stay until the late re-send dead-lettered an answered message (issue 36). So the
spelling is canonicalised on read: ``forget`` removes every common spelling of the pair at once
(``spellings``), and the sweep rewrites any other spelling it reads under the canonical key (``entry_key``,
``adopt``), after which every later step finds it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, cast

import redis

from adapters.settings import Settings, get_settings


@dataclass(frozen=True)
class InboxKeys:
    payloads: str
    due: str
    resends: str
    checks: str
    looks: str
    held: str

    @classmethod
    def of(cls, settings: Settings | None = None) -> InboxKeys:
        prefix = (settings or get_settings()).redis_key_prefix
        return cls(*(f"{prefix}:inbox:{name}" for name in ("payloads", "due", "resends", "checks", "looks", "held")))

    def all(self) -> tuple[str, ...]:
        return (self.payloads, self.due, self.resends, self.checks, self.looks, self.held)


def entry_key(user_id: object, message_id: object) -> str:
    """One inbox entry's canonical key: this user's message (JSON, so no id can contain the separator)."""
    return json.dumps([user_id, message_id], ensure_ascii=True)


def spellings(user_id: object, message_id: object) -> list[str]:
    """The spellings of the pair's key that JSON writers produce by default: the canonical one first, then
    compact (JavaScript, Go, Java, Rust, C#, Ruby), with non-ASCII written raw, and with ``/`` escaped (PHP)."""
    out: list[str] = []
    for separators in ((", ", ": "), (",", ":")):
        for ensure_ascii in (True, False):
            text = json.dumps([user_id, message_id], ensure_ascii=ensure_ascii, separators=separators)
            for spelled in (text, text.replace("/", "\\/")):
                if spelled not in out:
                    out.append(spelled)
    return out


def canonical(member: str) -> str:
    """The canonical key of a member in any JSON spelling of ``[user_id, message_id]``; a member that is not
    such a pair (an older plain ``message_id`` key, or garbage) is its own key."""
    try:
        pair = json.loads(member)
    except (ValueError, RecursionError):
        return member
    if isinstance(pair, list) and len(pair) == 2 and all(isinstance(v, str) for v in pair):
        return entry_key(*pair)
    return member


# Move one entry from the spelling a gateway wrote (ARGV[1]) to the canonical key (ARGV[2]) in every inbox key,
# in one step (a publish between two moves must not find half of it): a value already under the canonical key
# wins (the client rewrote it); then the old spelling is gone.
_ADOPT = """
for i = 1, #KEYS do
  local kind = redis.call('TYPE', KEYS[i])['ok']
  if kind == 'hash' then
    local value = redis.call('HGET', KEYS[i], ARGV[1])
    if value then
      redis.call('HSETNX', KEYS[i], ARGV[2], value)
      redis.call('HDEL', KEYS[i], ARGV[1])
    end
  elseif kind == 'zset' then
    local score = redis.call('ZSCORE', KEYS[i], ARGV[1])
    if score then
      redis.call('ZADD', KEYS[i], 'NX', score, ARGV[2])
      redis.call('ZREM', KEYS[i], ARGV[1])
    end
  end
end
return 1
"""


def adopt(client: redis.Redis, members: list[str]) -> list[str]:
    """``members`` as read from an inbox key, each under its canonical key (``canonical``): an entry written in
    another spelling is moved there first, so the publish that forgets it, the hold and the counts all meet."""
    keys = InboxKeys.of()
    out = []
    for member in members:
        key = canonical(member)
        if key != member:
            client.register_script(_ADOPT)(keys=list(keys.all()), args=[member, key])
        out.append(key)
    return out


def _decoded(values: Iterable[bytes | str]) -> list[str]:
    return [v.decode() if isinstance(v, bytes) else v for v in values]


def remember(client: redis.Redis, kwargs: dict[str, Any]) -> None:
    keys, settings = InboxKeys.of(), get_settings()
    key = entry_key(kwargs.get("user_id"), kwargs["message_id"])
    now = time.time()
    pipe = client.pipeline()
    pipe.hset(keys.payloads, key, json.dumps(kwargs, ensure_ascii=True))
    pipe.zadd(keys.due, {key: now})
    pipe.zadd(keys.checks, {key: now + settings.inbox_recheck_after_s})
    pipe.execute()


def forget(client: redis.Redis, user_id: object, message_id: object) -> None:
    """This user's message was answered (or dead-lettered): nothing to re-send, whichever common spelling of
    the key the gateway wrote (``spellings``; any other one the sweep has made canonical, ``adopt``)."""
    if isinstance(message_id, str):
        forget_entry(client, *spellings(user_id, message_id))


def forget_entry(client: redis.Redis, *members: str) -> None:
    keys = InboxKeys.of()
    pipe = client.pipeline()
    pipe.hdel(keys.payloads, *members)
    pipe.zrem(keys.due, *members)
    pipe.hdel(keys.resends, *members)
    pipe.zrem(keys.checks, *members)
    pipe.hdel(keys.looks, *members)
    pipe.zrem(keys.held, *members)
    pipe.execute()


def _entries(
    client: redis.Redis, keys: InboxKeys, members: list[str], counts_key: str
) -> list[tuple[str, dict[str, Any], int]]:
    if not members:
        return []
    payloads = client.hmget(keys.payloads, members)
    counts = client.hmget(counts_key, members)
    out: list[tuple[str, dict[str, Any], int]] = []
    for member, payload, count in zip(members, payloads, counts, strict=True):
        if payload is None:  # answered between the two reads
            continue
        out.append((member, json.loads(payload), int(count or 0)))
    return out


def overdue(client: redis.Redis, older_than_s: float, limit: int = 500) -> list[tuple[str, dict[str, Any], int]]:
    """(entry key, kwargs, re-sends so far) of messages enqueued more than ``older_than_s`` ago, unanswered."""
    keys = InboxKeys.of()
    # redis-py's stubs type replies as a union over RESP2/RESP3 shapes; a plain sorted-set range is a list of members.
    members = _decoded(
        cast(
            Iterable[bytes | str],
            client.zrangebyscore(keys.due, "-inf", time.time() - older_than_s, start=0, num=limit),
        )
    )
    return _entries(client, keys, adopt(client, members), keys.resends)


def mark_resent(client: redis.Redis, key: str) -> int:
    """Restart the message's clock and count the re-send; return the count."""
    keys = InboxKeys.of()
    pipe = client.pipeline()
    pipe.zadd(keys.due, {key: time.time()})
    pipe.hincrby(keys.resends, key, 1)
    return int(pipe.execute()[1])


def due_checks(client: redis.Redis, limit: int = 500) -> list[tuple[str, dict[str, Any], int]]:
    """(entry key, kwargs, early looks so far) of entries whose next early look is due and no worker holds."""
    keys = InboxKeys.of()
    now = time.time()
    members = _decoded(cast(Iterable[bytes | str], client.zrangebyscore(keys.checks, "-inf", now, start=0, num=limit)))
    if not members:
        return []
    members = adopt(client, members)
    held_until = client.zmscore(keys.held, members)
    free = [m for m, until in zip(members, held_until, strict=True) if until is None or until <= now]
    return _entries(client, keys, free, keys.looks)


def checked(client: redis.Redis, key: str, looks: int) -> None:
    """Count an early look at an entry and schedule the next one, at doubling intervals (never past the regular
    re-send after the visibility timeout, which takes over from there)."""
    keys, settings = InboxKeys.of(), get_settings()
    pause = min(settings.inbox_recheck_after_s * 2 ** (looks + 1), settings.visibility_timeout_s)
    pipe = client.pipeline()
    pipe.zadd(keys.checks, {key: time.time() + pause}, xx=True)
    pipe.hset(keys.looks, key, looks + 1)
    pipe.execute()


def hold(client: redis.Redis, user_id: str, message_id: str, seconds: float) -> None:
    """A worker is producing this message's reply (a model call may take a while): no early re-send until it
    lets go (``release`` or ``forget``) or ``seconds`` pass (its worker died)."""
    client.zadd(InboxKeys.of().held, {entry_key(user_id, message_id): time.time() + seconds})


def release(client: redis.Redis, user_id: str, message_id: str) -> None:
    client.zrem(InboxKeys.of().held, entry_key(user_id, message_id))


def as_text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)

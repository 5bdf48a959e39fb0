"""The inbox: every enqueued message until its reply is published, so a message the broker lost is re-sent.

Why: Celery's Redis transport pops a task from the queue and records it as unacknowledged in a second
round trip; a worker killed between the two loses that task for good (seen in our ``kill -9`` test, about
one run in ten). The gateway client records each message here before sending it, the ingest task forgets
it once the reply is published, and a periodic sweep re-sends what is still here after the visibility
timeout (when the broker itself would have redelivered an unacknowledged task) plus a grace period.
Ingest is idempotent by ``message_id``, so a re-send of a message that was only slow changes nothing.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, cast

import redis

from workers.settings import Settings, get_settings


@dataclass(frozen=True)
class InboxKeys:
    payloads: str
    due: str
    resends: str

    @classmethod
    def of(cls, settings: Settings | None = None) -> InboxKeys:
        prefix = (settings or get_settings()).redis_key_prefix
        return cls(f"{prefix}:inbox:payloads", f"{prefix}:inbox:due", f"{prefix}:inbox:resends")


def remember(client: redis.Redis, kwargs: dict[str, Any]) -> None:
    keys = InboxKeys.of()
    message_id = kwargs["message_id"]
    pipe = client.pipeline()
    pipe.hset(keys.payloads, message_id, json.dumps(kwargs, ensure_ascii=True))
    pipe.zadd(keys.due, {message_id: time.time()})
    pipe.execute()


def forget(client: redis.Redis, message_id: object) -> None:
    if not isinstance(message_id, str):
        return
    keys = InboxKeys.of()
    pipe = client.pipeline()
    pipe.hdel(keys.payloads, message_id)
    pipe.zrem(keys.due, message_id)
    pipe.hdel(keys.resends, message_id)
    pipe.execute()


def overdue(client: redis.Redis, older_than_s: float, limit: int = 500) -> list[tuple[str, dict[str, Any], int]]:
    """(message_id, kwargs, re-sends so far) of messages enqueued more than ``older_than_s`` ago, unanswered."""
    keys = InboxKeys.of()
    # redis-py's stubs type replies as a union over RESP2/RESP3 shapes; a plain sorted-set range is a list of members.
    ids: list[bytes | str] = list(
        cast(
            Iterable[bytes | str],
            client.zrangebyscore(keys.due, "-inf", time.time() - older_than_s, start=0, num=limit),
        )
    )
    if not ids:
        return []
    payloads = client.hmget(keys.payloads, ids)
    counts = client.hmget(keys.resends, ids)
    out: list[tuple[str, dict[str, Any], int]] = []
    for message_id, payload, resends in zip(ids, payloads, counts, strict=True):
        mid = message_id.decode() if isinstance(message_id, bytes) else message_id
        if payload is None:  # answered between the two reads
            continue
        out.append((mid, json.loads(payload), int(resends or 0)))
    return out


def mark_resent(client: redis.Redis, message_id: str) -> int:
    """Restart the message's clock and count the re-send; return the count."""
    keys = InboxKeys.of()
    pipe = client.pipeline()
    pipe.zadd(keys.due, {message_id: time.time()})
    pipe.hincrby(keys.resends, message_id, 1)
    return int(pipe.execute()[1])

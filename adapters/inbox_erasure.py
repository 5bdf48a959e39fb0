"""The inbox's part of an erasure: the store eraser ``"redis:inbox"`` (``models.erasure.register_store``).

Why beside ``adapters.inbox`` and not in it: the gateway's client imports the inbox (it remembers each message
before sending it), and must not import the database code that registering an eraser needs. Why not in
``tasks.privacy``: the store's owner registers its eraser, and ``workers.events`` (which drops a late message's
entry for an erased user) must not import a task module.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import fields
from typing import Any

from adapters.inbox import InboxKeys, as_text
from adapters.redis_conn import get_redis
from models.erasure import Traces, register_store

_SCAN_PAGE = 1000


@register_store("redis:inbox")
def erase_inbox(traces: Traces) -> int:
    """Messages enqueued and not yet answered: every inbox key's members that are the user's (the payloads
    hold the text). An entry is the user's when its payload names them or its member names them (a JSON
    ``[user_id, message_id]``), or, for an older plain ``message_id`` member, when the message was theirs."""
    client, keys = get_redis(), InboxKeys.of()
    kinds = {name: as_text(client.type(name)) for name in (getattr(keys, f.name) for f in fields(keys))}
    mine: set[str] = set()
    for member, payload in client.hscan_iter(keys.payloads, count=_SCAN_PAGE):
        if _user_of(payload, "user_id") == traces.user_id:
            mine.add(as_text(member))
    for name, kind in kinds.items():
        members: Iterable[Any] = ()
        if kind == "hash":
            members = (member for member, _ in client.hscan_iter(name, count=_SCAN_PAGE))  # NOVALUES needs Redis 7.4
        elif kind == "zset":
            members = (member for member, _ in client.zscan_iter(name, count=_SCAN_PAGE))
        for member in members:
            text = as_text(member)
            if text in traces.message_ids or _user_of(text, 0) == traces.user_id:
                mine.add(text)
    if not mine:
        return 0
    pipe = client.pipeline()
    for name, kind in kinds.items():
        if kind == "hash":
            pipe.hdel(name, *mine)
        elif kind == "zset":
            pipe.zrem(name, *mine)
    pipe.execute()
    return len(mine)


def _user_of(value: Any, where: str | int) -> Any:
    """``value`` parsed as JSON, indexed by ``where``; None when it is not JSON of that shape."""
    try:
        return json.loads(value)[where]
    except (ValueError, TypeError, KeyError, IndexError):
        return None

"""Tasks that need Redis while it may be away (loaded only by test workers started with ``-I``)."""

from __future__ import annotations

import time

from adapters.redis_conn import get_redis
from workers.app import app
from workers.reliability import ReliableTask


@app.task(name="tests.mark_done_in_redis", base=ReliableTask, bind=True)
def mark_done_in_redis(self: ReliableTask, key: str, marker: str, seconds: float = 0.3) -> None:
    """Hold the worker ``seconds``, then add ``marker`` to the set ``key``.

    With Redis away the SADD raises ``redis.ConnectionError``: ``ReliableTask`` turns it into a transient retry,
    whose message cannot be sent either (the broker is the same Redis). Idempotent: a set member, once.
    """
    time.sleep(seconds)
    get_redis().sadd(key, marker)

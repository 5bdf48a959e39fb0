"""A global cap on model calls in flight, across every worker process: a lease semaphore in Redis.

Why leases: a worker killed mid-call never releases its slot; each slot expires after the model timeout plus
a margin, so a crash costs capacity for a minute, not forever. Redis' own clock (TIME) stamps the leases,
so workers on hosts with skewed clocks agree.
"""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import redis

from ella.llm.types import TransientModelError

_ACQUIRE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[1]))
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('EXPIRE', KEYS[1], math.ceil(tonumber(ARGV[1])) * 2)
  return 1
end
return 0
"""


class ModelSlots:
    def __init__(self, client: redis.Redis, key: str, limit: int, lease_s: float, wait_s: float) -> None:
        self.client, self.key, self.limit, self.lease_s, self.wait_s = client, key, limit, lease_s, wait_s
        self._acquire = client.register_script(_ACQUIRE)

    def in_use(self) -> int:
        return int(self.client.zcard(self.key))

    @contextmanager
    def slot(self) -> Iterator[None]:
        """Hold one slot for the duration of a call; TransientModelError if none frees within ``wait_s``."""
        token = uuid.uuid4().hex
        deadline = time.monotonic() + self.wait_s
        delay = 0.01
        while not self._acquire(keys=[self.key], args=[self.lease_s, self.limit, token]):
            if time.monotonic() > deadline:
                raise TransientModelError(f"no model slot free within {self.wait_s:.0f}s (limit {self.limit})")
            time.sleep(delay * random.uniform(0.5, 1.5))
            delay = min(delay * 2, 0.25)
        try:
            yield
        finally:
            self.client.zrem(self.key, token)

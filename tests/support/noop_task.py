"""A task that does nothing but mark that it ran: the benches' baseline (loaded only by bench workers).

Why a mark: a no-op's completion must be timed like a reply is (its id on a stream, Redis' clock), so
ingest's rate can be given as a ratio to the broker-and-worker floor measured in the same run.
"""

from __future__ import annotations

from adapters.redis_conn import get_redis
from workers.app import app


@app.task(name="bench.noop")
def noop(stream: str, mark: str) -> None:
    get_redis().xadd(stream, {"in_reply_to": mark})

"""A task that holds its worker a while, so tests can have deliveries in flight (loaded only by test workers)."""

from __future__ import annotations

import time

from workers.app import app
from workers.reliability import ReliableTask


@app.task(name="tests.hold_a_while", base=ReliableTask, bind=True)
def hold_a_while(self: ReliableTask, seconds: float = 1.0) -> None:
    time.sleep(seconds)


@app.task(name="tests.fail_once_on_the_database", base=ReliableTask, bind=True)
def fail_once_on_the_database(self: ReliableTask, text: str, marker: str) -> str:
    """Raise a database error whose statement carries ``text`` as a parameter, on the first delivery only."""
    from sqlalchemy.exc import OperationalError

    from adapters.redis_conn import get_redis

    if get_redis().incr(marker) == 1:
        raise OperationalError(
            "UPDATE turns SET text = %(text)s", {"text": text}, Exception("server closed the connection")
        )
    return "ok"

"""A task that holds its worker a while, so tests can have deliveries in flight (loaded only by test workers)."""

from __future__ import annotations

import time

from workers.app import app
from workers.reliability import ReliableTask


@app.task(name="tests.hold_a_while", base=ReliableTask, bind=True)
def hold_a_while(self: ReliableTask, seconds: float = 1.0) -> None:
    time.sleep(seconds)

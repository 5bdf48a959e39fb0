"""A task that kills its own worker process, to pin the redelivery cap (loaded only by test workers)."""

from __future__ import annotations

import os
import signal

from workers.app import app
from workers.reliability import ReliableTask


@app.task(name="tests.kill_own_worker", base=ReliableTask, bind=True)
def kill_own_worker(self: ReliableTask, note: str = "") -> None:
    os.kill(os.getpid(), signal.SIGKILL)

"""``ella.send_pending_effects``: the sweep that sends what a commit still owes (``models.pending_effects``).

Beat runs it every ``inbox_sweep_interval_s`` on the inbound queue. A row is due ``effects_grace_s`` after its
commit (the committing path normally sends it within milliseconds); a row whose send fails again waits longer
each time (``workers.effects.backoff``). Safe to run twice at once: a row is claimed before it is sent.
"""

from __future__ import annotations

from workers.app import app
from workers.effects import sweep
from workers.reliability import ReliableTask
from workers.routing import TaskName


@app.task(name=TaskName.SEND_PENDING_EFFECTS, base=ReliableTask, bind=True)
def send_pending_effects(self: ReliableTask) -> dict[str, int]:
    return sweep()

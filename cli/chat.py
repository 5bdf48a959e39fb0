"""``ella chat``: a terminal gateway. You type; Ella's reply comes back from the outbox stream."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from rich.console import Console

from adapters.settings import get_settings
from demo.stack import running_stack, wait_for_reply
from gateway.client import enqueue_message, outbox_reader


def chat_loop(console: Console, user_id: str, start_worker: bool) -> int:
    session = uuid.uuid4().hex[:8]

    def loop() -> None:
        reader = outbox_reader(f"chat-{session}", "terminal", start_id="$")
        console.print("[dim]Type a message; Ctrl-D or /quit to leave.[/]")
        n = 0
        while True:
            try:
                text = console.input("[cyan]you:[/] ")
            except EOFError:
                break
            if text.strip() in {"/quit", "/exit"}:
                break
            if not text.strip():
                continue
            n += 1
            message_id = f"chat-{session}-{n}"
            enqueue_message(message_id=message_id, user_id=user_id, text=text, sent_at=datetime.now(UTC))
            try:
                entry = wait_for_reply(reader, message_id, timeout=get_settings().wait_ceiling_s)
            except TimeoutError:
                console.print("[red]no reply within 60 s: is a worker running on the inbound queue?[/]")
                continue
            console.print(f"[magenta]ella:[/] {entry.text}")

    if start_worker:
        with running_stack(console, get_settings()):
            loop()
    else:
        loop()
    return 0

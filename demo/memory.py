"""The user's say over Ella's memory, played by ``ella demo``: "what do you remember about me?", then "forget that".

Why it is in the demo: a companion that remembers must show what it holds and let it go when asked, and the
proof is in the database, not in the reply's words. So the part tells Ella one thing about a person, waits for
it to land in the ledger and in memory (the real worker's extraction and perception), asks what she remembers
(answered from what she holds: ``ella.memory.say``, route ``canned``, category ``memory``), shows the ledger's
lines for that person, asks her to forget them, and shows the change: the fact retired with its words replaced
by ``(forgotten)`` (``models.forgetting``), the ``memory_audit`` row (``models.audit``: who, what, why, never
the words) and the memory nodes that mention the name, before and after.

A user of its own (``kim-<run>``), talking now: the main script's user spoke of a sister too, and forgetting
her would take the memories the demo's reflection stands on. With a real model the fact may be read
otherwise or not at all; the part then says so and shows what there is.
"""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime
from typing import cast

from rich.console import Console
from rich.table import Table
from sqlalchemy import select

from adapters.db import autocommit_scope
from demo.stack import Stack
from demo.story import read, wait_until
from demo.world import pending_work
from ella.contract import OutboxEntry
from ella.ledger.rules import LIVE
from gateway.client import enqueue_message, outbox_reader
from models import MemoryNode, WorldFact
from models.audit import audit_trail

SUBJECT = "user.sister"
NAME = "Mia"
TELL = f"My sister is called {NAME}, she's a nurse in Leeds."
RECALL = "What do you remember about me?"
FORGET = "Forget what I told you about my sister."
SAY = (TELL, RECALL, FORGET)  # in the order sent (the demo's test counts the model calls they make)
LANDING_S = 30.0  # how long the part waits for the told fact to reach the ledger and memory


def user_of(run: str) -> str:
    return f"kim-{run}"


def sister_facts(user: str) -> list[WorldFact]:
    """Every ledger row of the user's sister, any status, oldest first."""
    with autocommit_scope() as s:
        query = select(WorldFact).where(WorldFact.user_id == user, WorldFact.subject == SUBJECT)
        return list(s.scalars(query.order_by(WorldFact.id)))


def nodes_naming(user: str, name: str) -> list[int]:
    """The ids of the user's memory nodes (any type) whose words name ``name``."""
    word = re.compile(rf"(?<!\w){re.escape(name)}(?!\w)")
    with autocommit_scope() as s:
        rows = s.execute(select(MemoryNode.id, MemoryNode.description).where(MemoryNode.user_id == user))
        return [node_id for node_id, description in rows if word.search(description)]


def landed(stack: Stack, user: str, timeout: float = LANDING_S) -> bool:
    """Wait until the told fact is live in the ledger and a memory names it; False once the worker has nothing
    left to do without it (seen idle twice, as ``demo.world.settle``) or ``timeout`` passed."""
    queues = list(stack.settings.queues)
    deadline = time.monotonic() + timeout
    idle_seen = 0

    def there() -> bool:
        live = any(f.status in LIVE for f in sister_facts(user))
        return live and bool(nodes_naming(user, NAME))

    while time.monotonic() < deadline:
        if there():
            return True
        idle_seen = idle_seen + 1 if pending_work(queues) == 0 else 0
        if idle_seen >= 2:
            return there()
        time.sleep(0.2)
    return False


def show_ledger(console: Console, user: str, when: str) -> None:
    facts = sister_facts(user)
    if not facts:
        console.print(f"  ledger {when}: nothing about {SUBJECT}")
    for f in facts:
        note = f": {f.status_note}" if f.status_note else ""
        console.print(f"  ledger {when}: fact #{f.id} {f.subject} {f.predicate} {f.object!r}, {f.status}{note}")


def play_your_say(console: Console, stack: Stack, run: str) -> None:
    user = user_of(run)
    console.rule("[bold]Your say over her memory")
    reader = outbox_reader(f"say-{run}", "demo", start_id="$")

    def say(n: int, text: str) -> OutboxEntry:
        message_id = f"say-{run}-{n}"
        when = datetime.now(UTC)
        enqueue_message(message_id=message_id, user_id=user, text=text, sent_at=when)
        console.print(f"[dim]{when:%H:%M}[/] [cyan]{user}:[/] {text}")
        found = wait_until(lambda: next((e for e in read(reader) if e.in_reply_to == message_id), None), 30, "a reply")
        entry = cast(OutboxEntry, found)
        console.print(f"[dim]{when:%H:%M}[/] [magenta]ella:[/] {entry.text}  "
                      f"[dim](route {entry.route}, category {entry.category})[/]")  # fmt: skip
        return entry

    tell, recall, forget = SAY
    say(1, tell)
    if not landed(stack, user):
        console.print(
            f"  (the model did not read {SUBJECT}'s name there, or not yet: what follows shows what it holds)"
        )
    say(2, recall)
    show_ledger(console, user, "before")
    before = nodes_naming(user, NAME)
    say(3, forget)
    show_ledger(console, user, "after")
    after = nodes_naming(user, NAME)
    with autocommit_scope() as s:
        rows = [(a.actor, a.action, a.target, a.reason) for a in reversed(audit_trail(s, user))]
    audit = Table("actor", "action", "target", "reason", title="memory_audit (never the words)", title_justify="left")
    for row in rows:
        audit.add_row(*row)
    console.print(audit)
    console.print(
        f"memory nodes mentioning {NAME}: {len(before)} before, {len(after)} after"
        + (f" (#{', #'.join(map(str, before))} forgotten)" if before and not after else "")
    )

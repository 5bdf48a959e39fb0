"""The demo's world around the conversation: a fresh start, waiting for the worker, and the inner life at the end.

Why these are here and not in the script: ``ella demo`` exists to show what Ella is made of, and the replies are
the least of it. After the conversation it shows what the real pipeline made of it (the same tasks production
runs, on the same worker): the memory nodes and their poignancy, the reflection the importance counter set off
and the memories it cites, the world ledger canon first, and what Ella plans to say next; then it writes the
operator's page of the user (``operator_page.page.render_user_page``) as a static file.

- ``fresh_world``: each run erases the previous run's demo users through the real erasure
  (``tasks.privacy.forget``: tombstone, every table, every store) and starts with new user ids, so five runs do
  not leave one user with five copies of the same memo. A forgotten id stays refused (its tombstone), hence
  new ids rather than reusing one. Only the ids a demo wrote down in its own var dir are ever erased.
- ``seed_user``: the demo user's importance counter starts at ``DEMO_TRIGGER`` instead of the production 150
  (about a week of talk), so three short scripted days drain it once and the reflection really runs.
- ``settle``: the worker keeps thinking after a reply is published (perception, fact extraction, the close's
  memo and planning thought, a reflection). The demo waits until there is nothing left to do instead of
  sleeping for a guess, so it is as quick with a fast model as its slowest real step.
"""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.tree import Tree
from sqlalchemy import select

from adapters import metrics
from adapters.db import autocommit_scope, session_scope
from adapters.settings import Settings
from ella.ledger.rules import TIER_RANK, Tier
from models import MemoryNode, NotificationCandidate, WorldFact
from models.inspect import REFLECT_KEY, cited_ids

# The demo user's reflection budget (production: ``importance_trigger_max``, 150). The offline engine rates the
# script's ten messages 30 in all, and 20 is first crossed on day 3: one reflection in one run.
DEMO_TRIGGER = 20
THOUGHTS_SHOWN = 3  # of the reflection, with their evidence
TEXT = 64  # characters of a memory or fact shown in the terminal


def world_file(settings: Settings) -> Path:
    return settings.var_path / "demo" / "world.json"


def report_path(settings: Settings, user_id: str) -> Path:
    return settings.var_path / "demo" / f"{user_id}.html"


def fresh_world(console: Console, settings: Settings, users: list[str]) -> list[str]:
    """Erase the previous demo run's users and their reports, then record ``users`` as this run's world.

    Returns the ids erased. The erasure is ``tasks.privacy.forget`` in this process (steps 1-3 of
    ``ella.forget_user``): the previous demo's worker has stopped, so no task of those users is in flight and the
    delayed second pass has nothing to catch.
    """
    from tasks.privacy import forget

    path = world_file(settings)
    previous: list[str] = []
    if path.exists():
        try:
            previous = [str(u) for u in json.loads(path.read_text()).get("users", [])]
        except ValueError:
            previous = []
    removed = 0
    for user_id in previous:
        removed += sum(forget(user_id).values())
        report_path(settings, user_id).unlink(missing_ok=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"users": users}))
    if previous:
        console.print(
            f"a fresh demo world: the previous run's users ({', '.join(previous)}) were erased through the real "
            f"erasure (ella.forget_user's path: {removed} rows and items); this run's users are {', '.join(users)}"
        )
    else:
        console.print(f"a fresh demo world: no earlier demo in {settings.var_path}; this run's users are "
                      f"{', '.join(users)}")  # fmt: skip
    return previous


def seed_user(settings: Settings, user_id: str, seen_at: datetime) -> None:
    """Create the demo user as ingest would (the configured defaults), with the counter at ``DEMO_TRIGGER``."""
    from adapters.turn_context import new_user_defaults
    from models.user import touch_user

    defaults = new_user_defaults(settings) | {
        "importance_trigger_curr": DEMO_TRIGGER,
        "importance_trigger_max": DEMO_TRIGGER,
    }
    with session_scope(settings) as session:
        touch_user(session, user_id, seen_at, defaults)


def pending_work(queues: list[str]) -> int:
    """Messages waiting in our queues plus those delivered and not yet acknowledged (``task_acks_late``: a task
    is acknowledged when it ends, after the tasks it emitted were queued)."""
    from workers.app import app

    with app.connection_for_write() as conn:
        channel = conn.default_channel
        # kombu's Redis channel: a queue's length over its priority lists (queue_declare(passive=True) would
        # refuse a queue this process never declared).
        waiting = sum(int(channel._size(q)) for q in queues)
        return waiting + int(channel.client.hlen(channel.unacked_key))


def settle(settings: Settings, timeout: float = 60) -> bool:
    """Wait until the worker has nothing left to do (seen twice, 0.2 s apart: a message between the queue and
    the unacked set is in neither for an instant); False if ``timeout`` passed first."""
    queues = list(settings.queues)
    deadline = time.monotonic() + timeout
    idle_seen = 0
    while time.monotonic() < deadline:
        idle_seen = idle_seen + 1 if pending_work(queues) == 0 else 0
        if idle_seen >= 2:
            return True
        time.sleep(0.2)
    return False


def _short(text: str, n: int = TEXT) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def show_inner_life(console: Console, settings: Settings, user_id: str) -> None:
    """What Ella remembered, reflected, believes about the world and plans to say next, from the database."""
    from models.ledger import current
    from models.user import User

    with autocommit_scope() as s:
        user = s.get_one(User, user_id)
        nodes = list(s.scalars(select(MemoryNode).where(MemoryNode.user_id == user_id).order_by(MemoryNode.id)))
        by_id = {n.id: n for n in nodes}
        facts = sorted(current(s, user_id), key=lambda f: (TIER_RANK.get(Tier(f.tier), 9), f.subject, f.id))
        dated = list(
            s.scalars(
                select(WorldFact)
                .where(WorldFact.user_id == user_id, WorldFact.followup_after.is_not(None))
                .where(WorldFact.status.in_(["active", "retired"]))
                .order_by(WorldFact.id)
            )
        )
        candidates = list(s.scalars(select(NotificationCandidate).where(NotificationCandidate.user_id == user_id)))
    console.rule(f"[bold]Ella's inner life: {user_id}")

    remembered = Table("id", "when", "type", "poignancy", "memory", title="What Ella remembered", title_justify="left")
    for n in nodes:
        if n.node_type != "thought":
            remembered.add_row(
                f"#{n.id}", f"{n.created_at:%a %H:%M}", n.node_type, str(n.poignancy), _short(n.description)
            )
    console.print(remembered)

    reflections = [n for n in nodes if (n.dedupe_key or "").startswith(REFLECT_KEY)]
    runs = {(n.dedupe_key or "").split(":")[1] for n in reflections}
    console.print(
        f"importance counter: {user.importance_trigger_curr} of {user.importance_trigger_max} (the demo user's budget;"
        f" everyone else's: {settings.importance_trigger_max}); each event drains its poignancy;"
        f" at 0 Ella reflects: {len(runs)} reflection(s), {len(reflections)} thought(s)"
    )
    if reflections:
        tree = Tree("[bold]What Ella reflected[/] (each thought cites the memories it stands on)")
        for n in reflections[:THOUGHTS_SHOWN]:
            branch = tree.add(f"thought #{n.id} (depth {n.depth}, poignancy {n.poignancy}): {_short(n.description)}")
            for cited in cited_ids(n.evidence):
                node = by_id.get(cited)
                what = f"{node.node_type}: {_short(node.description, 48)}" if node else "(expired)"
                branch.add(f"[dim]evidence[/] #{cited} {what}")
        if len(reflections) > THOUGHTS_SHOWN:
            tree.add(f"[dim]… and {len(reflections) - THOUGHTS_SHOWN} more thought(s) in the report[/]")
        console.print(tree)
    else:
        console.print("What Ella reflected: nothing yet (the counter has not run out)")

    believes = Table(
        "tier", "fact", "status", title="What Ella believes about the world (canon first)", title_justify="left"
    )
    for f in facts:
        believes.add_row(f.tier, _short(f"{f.subject} {f.predicate} {f.object}"), f.status)
    console.print(believes)

    plans = Table("what", "plan", title="What Ella plans to say next", title_justify="left")
    now = datetime.now(UTC)
    for n in nodes:
        if (n.dedupe_key or "").startswith("plan:"):
            stale = n.expires_at is not None and n.expires_at <= now  # its moment passed (ella.memory.plans)
            label = f"planning thought #{n.id}" + (f" (stale since {n.expires_at:%a %H:%M})" if stale else "")
            plans.add_row(label, _short(n.description))
    for f in dated:
        if f.status == "retired":  # the user told how it went: nothing looks forward to it (ella.ledger.consolidation)
            told = f"{f.object!r}: {f.status_note or 'retired'}: {f.outcome or '-'}"
            plans.add_row(f"retired (fact #{f.id})", _short(told, 110))
            continue
        window = f"{f.followup_after:%a %d %b}" if f.followup_after else "-"
        plans.add_row(f"follow-up (fact #{f.id})", _short(f"ask about {f.object!r}: window opens {window}"))
    for c in candidates:
        plans.add_row(f"{c.kind} #{c.id}: {c.status}", _short(c.body))
    console.print(plans)


def run_digest(console: Console, settings: Settings, user_id: str) -> None:
    """Today's daily digest for the demo user, through the job's own planner and the Message Batches service.

    Not ``tasks.jobs.run_inline``: that plans the users whose local 07:00 falls in the current UTC hour, and a
    run already planned for that hour (an earlier demo today) is not planned again. The planner, the stable
    request id, the Batches service and the handler are the ones beat runs; only the run and chunk rows are
    skipped. The offline engine answers at once; with Claude the batch is sent and applied by a later poll.
    """
    from adapters.model_batches import flush_pending, submit
    from ella.jobs import Job, Member, period_of, zone_of
    from models.user import User
    from tasks.digest import plan_digest

    now = datetime.now(UTC)
    with session_scope(settings) as s:
        zone = s.get_one(User, user_id).timezone
        period = period_of(Job.DIGEST, now.astimezone(zone_of(zone)).date(), zone_of(zone))
        plan = plan_digest(s, [Member(user_id, zone, period)], now)
        queued = submit(Job.DIGEST.value, plan.requests, session=s) if plan.requests else []
    metrics.job_chunk(Job.DIGEST.value, 1, 0)  # what the skipped chunk task counts: its one user, planned
    if not queued:
        console.print(f"daily digest {period.label}: no request (idle {plan.idle}, {dict(plan.skipped) or 'nothing'})")
        return
    report = flush_pending()
    outcome = dict(report.outcomes) or f"sent as a batch, {report.waiting} waiting for a poll"
    console.print(f"daily digest {period.label}: {len(queued)} request through the Batches service: {outcome}")


def write_report(settings: Settings, user_id: str) -> Path:
    """The operator's page of ``user_id`` as a standalone HTML file under the var dir."""
    from operator_page.page import render_user_page

    path = report_path(settings, user_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_user_page(user_id, static=True), encoding="utf-8")
    return path

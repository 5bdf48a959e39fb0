"""Faults after which a derived effect must still happen: a turn's memory and facts, a notification's memory,
a world fact's new value.

Why: a reply on the stream is not the whole of a turn. Issue 24 found turns in flight at a Redis outage
answered but never remembered (the repeat and sweep paths published only), sent notifications without their
memory after a ``kill -9`` between the publish and the emit, and a world fact changed while Redis was away
served "warm" with its old value. Each fault here checks the effect in the private PostgreSQL (or through the
world cache's own read) and lists what is missing under ``problems`` (``chaos.judging`` fails the fault).
"""

from __future__ import annotations

import subprocess
import sys
import time
import uuid
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, text

from chaos.harness import ROOT, Chaos, Window, log

OUTAGE_S = 10.0  # how long Redis stays away in the turn fault
EFFECTS_BOUND_S = 60.0  # after the replies: how long a turn's memory and facts may take (beat sweeps included)
NOTIFICATIONS = 600
# Each kill strikes this long after a page's sends are seen committed (its publishes and emits under way), and
# kills the pool child that runs the dispatch (the main process forks another at once) or the whole worker (a
# restart takes 20-40 s on a loaded 2-core machine, so once, last).
KILLS = (("child", 0.0), ("child", 0.15), ("child", 0.05), ("worker", 0.3))
KILLING_S = 50.0  # the kills stop after this long: the rest of the dispatch runs clean


def _engine(chaos: Chaos) -> Any:
    return create_engine(chaos.db_url)


def _poll(check: Any, bound: float, interval: float = 1.0) -> Any:
    """``check()`` until it returns something falsy (nothing missing) or ``bound`` s pass; its last answer."""
    deadline = time.monotonic() + bound
    while True:
        left = check()
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(interval)


# --- a turn in flight at a Redis outage: its memory node and its facts --------------------------------------


def turn_effects_missing(engine: Any, user_prefix: str) -> dict[str, list[str]]:
    """For every committed turn of these users (an ``inbound_messages`` row), what it lacks: ``memory`` (no
    ``memory_nodes`` row with its message id as ``source_message_id``: ``ella.perceive`` never ran for it) and
    ``facts`` (no ``world_facts`` row from it: ``ella.extract_facts`` never stored its statements).

    Each turn here is its user's first: the chaos model's reply always states one dated fact, which a user's
    first turn adds and a later turn would find known (and store nothing), so a fact row is the run's mark.
    """
    with engine.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT m.message_id,"
                " EXISTS (SELECT 1 FROM memory_nodes n WHERE n.user_id = m.user_id"
                "         AND n.source_message_id = m.message_id) AS remembered,"
                " EXISTS (SELECT 1 FROM world_facts f WHERE f.user_id = m.user_id"
                "         AND f.source_message_id = m.message_id) AS extracted"
                " FROM inbound_messages m WHERE m.user_id LIKE :p"
            ),
            {"p": f"{user_prefix}%"},
        ).all()
    return {
        "memory": sorted(r.message_id for r in rows if not r.remembered),
        "facts": sorted(r.message_id for r in rows if not r.extracted),
    }


def redis_outage_turn_memory(chaos: Chaos) -> dict[str, Any]:
    """Redis shut down mid-traffic for ``OUTAGE_S``, then back: every committed turn ends with its memory and
    facts, whichever path published its reply (first delivery, repeat, sweep). One user per message."""
    name = "redis_outage_turn_memory"

    def fault(window: Window) -> None:
        chaos.redis.shutdown()
        time.sleep(OUTAGE_S)
        chaos.redis.start()
        window.cleared_at = time.time()

    sent, window = chaos.traffic(name, 40, fault_at_index=10, fault=fault, user=lambda i: f"{name}-u{i}")
    chaos.wait_answered(set(sent), bound=90, settle=10, drain_bound=60)
    engine = _engine(chaos)
    try:
        missing = _poll(lambda: {k: v for k, v in turn_effects_missing(engine, f"{name}-").items() if v},
                        EFFECTS_BOUND_S)  # fmt: skip
        with engine.connect() as conn:
            committed = conn.scalar(text("SELECT count(*) FROM inbound_messages WHERE user_id LIKE :p"),
                                    {"p": f"{name}-%"})  # fmt: skip
    finally:
        engine.dispose()
    problems = [f"{len(ids)} committed turns without their {what}: {ids[:5]}" for what, ids in missing.items()]
    return chaos.verdict(name, sent, window, outage_s=round(window.cleared_at - window.fault_at, 2),
                         committed_turns=committed,
                         without_memory=len(missing.get("memory", [])), without_facts=len(missing.get("facts", [])),
                         problems=problems)  # fmt: skip


# --- notifications: kill -9 of the dispatching worker mid-send ------------------------------------------------


def noon_zone(now: datetime) -> str:
    """A fixed-offset zone where it is about midday at ``now``: inside the default active hours, outside DND."""
    offset = 12 - now.hour
    return "UTC" if offset == 0 else f"Etc/GMT{'-' if offset > 0 else '+'}{abs(offset)}"


def add_due_candidates(prefix: str, n: int, now: datetime) -> list[int]:
    """``n`` users, each with one due follow-up candidate (as the offline engine writes them); their ids."""
    from adapters.db import session_scope
    from models import NotificationCandidate, User
    from models.notifications import based_on_json

    zone = noon_zone(now)
    with session_scope() as s:
        s.add_all(User(id=f"{prefix}-u{i}", created_at=now, last_seen_at=now, timezone=zone) for i in range(n))
        s.flush()
        rows = [
            NotificationCandidate(
                user_id=f"{prefix}-u{i}", kind="followup", body=f"How did the interview go? ({i})",
                based_on=based_on_json([], []), created_at=now - timedelta(hours=1),
                fresh_until=now + timedelta(days=3), not_before=now - timedelta(minutes=1), status="candidate",
                dedupe_key=f"chaos:{prefix}:{i}",
            )
            for i in range(n)
        ]  # fmt: skip
        s.add_all(rows)
        s.flush()
        return [r.id for r in rows]


def notification_state(chaos: Chaos, engine: Any, prefix: str) -> dict[str, Any]:
    """Candidates by status; each user's notifications on the stream; sent candidates without their memory."""
    with engine.connect() as conn:
        by_status = text("SELECT status, count(*) FROM notification_candidates WHERE user_id LIKE :p GROUP BY status")
        statuses = {str(k): int(v) for k, v in conn.execute(by_status, {"p": f"{prefix}-%"}).all()}
        forgotten = conn.execute(
            text(
                "SELECT c.id FROM notification_candidates c WHERE c.user_id LIKE :p AND c.status = 'sent'"
                " AND NOT EXISTS (SELECT 1 FROM memory_nodes n WHERE n.user_id = c.user_id"
                "                 AND n.source_message_id = 'notification:' || c.id)"
            ),
            {"p": f"{prefix}-%"},
        ).scalars()
        without_memory = sorted(forgotten)
    on_stream = Counter(
        f.get("user_id", "") for _, f in chaos.stream() if f.get("kind") == "notification"
        and f.get("user_id", "").startswith(f"{prefix}-")
    )  # fmt: skip
    return {"statuses": statuses, "on_stream": on_stream, "without_memory": without_memory}


def notification_kill9(chaos: Chaos) -> dict[str, Any]:
    """``NOTIFICATIONS`` due candidates, one per user, dispatched by the batch worker, which is killed -9 each
    time a page's sends have just committed (its publishes and memory emits under way), ``len(KILLS)`` times:
    the pool child running the dispatch, or the whole worker (compose restarts it). Every notification must end
    on the stream exactly once, each with its memory."""
    from adapters.settings import get_settings
    from workers.app import app
    from workers.routing import TaskName

    name = "notification_kill9"
    batch = get_settings().queue_batch
    ids = add_due_candidates(name, NOTIFICATIONS, datetime.now(UTC))
    engine = _engine(chaos)

    def sent_count() -> int:
        with engine.connect() as conn:
            return int(conn.scalar(text("SELECT count(*) FROM notification_candidates WHERE user_id LIKE :p"
                                        " AND status = 'sent'"), {"p": f"{name}-%"}) or 0)  # fmt: skip

    def dispatch() -> None:
        app.send_task(TaskName.DISPATCH_NOTIFICATIONS, queue=batch)

    kills: list[int] = []  # how many candidates were sent when each kill struck
    struck: list[str] = []  # what each kill struck
    with engine.connect() as conn:
        letters_before = int(conn.scalar(text("SELECT coalesce(max(id), 0) FROM dead_letters")) or 0)
    try:
        dispatch()
        last, nudged = 0, time.monotonic()
        deadline = time.monotonic() + KILLING_S
        while len(kills) < len(KILLS) and time.monotonic() < deadline:
            now_sent = sent_count()
            if now_sent >= NOTIFICATIONS:
                break
            if now_sent > last:  # a page committed since the last kill: its publishes are under way
                how, delay = KILLS[len(kills)]
                time.sleep(delay)
                worker = chaos.procs["worker-batch"]
                if how == "child" and worker.kill9_pool_child():
                    struck.append("pool child")
                else:
                    worker.kill9()
                    chaos.start("worker-batch")  # compose's restart; the next page's commit shows it is up again
                    struck.append("worker")
                kills.append(sent_count())
                last = kills[-1]
                dispatch()  # as beat would, next interval (the killed pass is redelivered too)
                nudged = time.monotonic()
            elif time.monotonic() - nudged > 5:
                dispatch()
                nudged = time.monotonic()
            time.sleep(0.05)

        def incomplete() -> dict[str, Any]:
            state = notification_state(chaos, engine, name)
            if state["statuses"].get("sent", 0) < NOTIFICATIONS or len(state["on_stream"]) < NOTIFICATIONS:
                dispatch()  # beat's next pass: the re-publish step finds records never published
            done = (state["statuses"].get("sent", 0) == NOTIFICATIONS and len(state["on_stream"]) == NOTIFICATIONS
                    and not state["without_memory"])  # fmt: skip
            return {} if done else state

        _poll(incomplete, 55, interval=3)
        chaos.wait_answered(set(), bound=0, settle=2, drain_bound=20)  # the cognition queue: memories land
        state = notification_state(chaos, engine, name)
        with engine.connect() as conn:
            # Not judged (the next pass goes on from a failed one), shown: a pass killed by its time limit, or
            # psycopg's "another command is already in progress" after a time limit struck mid-query.
            letters = Counter(
                str(reason)[:120]
                for reason in conn.execute(text("SELECT reason FROM dead_letters WHERE id > :b"
                                                " AND task_name = 'ella.dispatch_notifications'"),
                                           {"b": letters_before}).scalars()
            )  # fmt: skip
    finally:
        engine.dispose()
    on_stream: Counter[str] = state["on_stream"]
    not_sent = NOTIFICATIONS - state["statuses"].get("sent", 0)
    missing = NOTIFICATIONS - len(on_stream)
    twice = sum(1 for n in on_stream.values() if n > 1)
    problems = []
    if not_sent:
        problems.append(f"{not_sent} candidates not sent: {state['statuses']}")
    if missing:
        problems.append(f"{missing} notifications never on the stream")
    if twice:
        problems.append(f"{twice} notifications on the stream more than once")
    if state["without_memory"]:
        problems.append(f"{len(state['without_memory'])} sent notifications without their memory: "
                        f"candidates {state['without_memory'][:5]}")  # fmt: skip
    if len(kills) < len(KILLS):
        log(f"{name}: only {len(kills)} kills struck mid-send (the dispatch finished first)")
    return {
        "fault": name,
        "notifications": NOTIFICATIONS,
        "candidates": len(ids),
        "kills": len(kills),
        "kills_at_sent": kills,
        "killed": struck,
        "statuses": state["statuses"],
        "on_stream_once": sum(1 for n in on_stream.values() if n == 1),
        "not_on_stream": missing,
        "on_stream_twice": twice,
        "without_memory": len(state["without_memory"]),
        "dispatch_dead_letters": dict(letters),
        "problems": problems,
        **chaos.restarts_line(),
    }


# --- a world fact changed while Redis is away -----------------------------------------------------------------


def _pings(client: Any) -> bool:
    try:
        return bool(client.ping())
    except Exception:  # noqa: BLE001  (redis' errors and a socket's: not answering either way)
        return False


MOOD = "ella.mood"


def world_write_redis_outage(chaos: Chaos) -> dict[str, Any]:
    """A user's world read (so cached, warm), her mood corrected by an operator (``ella ledger correct``, its
    own process) while Redis is shut down, Redis back: the next read must serve the new mood, not the cached
    one (whose staleness would keep it for 4 h)."""
    from adapters.db import autocommit_scope, session_scope
    from adapters.redis_conn import get_redis
    from adapters.world_cache import read_world
    from models import User
    from models.ledger import current

    name = "world_write_redis_outage"
    user = f"{name}-u0-{uuid.uuid4().hex[:6]}"
    new_mood = f"cross with the gulls ({uuid.uuid4().hex[:6]})"
    with session_scope() as s:
        s.add(User(id=user, timezone="UTC"))
    read_world(user)  # ticks every subject and caches it
    warm_before = read_world(user).warm
    with autocommit_scope() as s:
        (mood,) = current(s, user, MOOD)
        old_mood, fact_id = mood.object, mood.id
    argv = [str(Path(sys.executable).parent / "ella"), "ledger", "correct", user, str(fact_id), new_mood,
            "--reason", "chaos: written while Redis is away", "--by", "chaos"]  # fmt: skip
    fault_at = time.time()
    chaos.redis.shutdown()
    try:
        written = subprocess.run(argv, env=chaos.env, cwd=ROOT, capture_output=True, text=True, timeout=60)
    finally:
        chaos.redis.start()
    cleared_at = time.time()
    problems = []
    if written.returncode != 0:
        said = (written.stderr or written.stdout)[-300:]
        problems.append(f"the operator's write failed while Redis was away: {said}")
    # The judged read must go through the cache: a pooled connection from before the outage would fail once and
    # make the read fall back to the ledger (which has the new value), hiding a stale cache.
    reachable = not _poll(lambda: not _pings(get_redis()), 20, interval=0.2)
    read = read_world(user)
    served = read.entries[MOOD].text if MOOD in read.entries else None
    if not reachable:
        problems.append("Redis did not answer after its restart: the read was not through the cache")
    if served != new_mood:
        problems.append(f"stale world served after Redis returned: {MOOD} {served!r}, written {new_mood!r}"
                        f"{' (warm)' if read.warm else ''}")  # fmt: skip
    return {
        "fault": name,
        "warm_before": warm_before,
        "old_value": old_mood,
        "written": new_mood,
        "served": served,
        "served_warm": read.warm,
        "rebuilt": list(read.rebuilt),
        "redis_reachable_at_read": reachable,
        "write_exit": written.returncode,
        "outage_s": round(cleared_at - fault_at, 1),
        "problems": problems,
        **chaos.restarts_line(),
    }


FAULTS = {
    "redis_outage_turn_memory": redis_outage_turn_memory,
    "notification_kill9": notification_kill9,
    "world_write_redis_outage": world_write_redis_outage,
}

"""``ella inspect``'s render time for a heavy user: 10,000 memories and 1,000 facts (issue 16: under 300 ms).

Bulk-inserts one user with ``--memories`` nodes (events and chats draining the counter, a reflection's thoughts
every 40 of them citing earlier nodes, memos), ``--facts`` facts in chains (about a third superseded once or
twice), 300 conversations of 10 exchanges, a self-log, notifications, boundary fires and model calls over 60
days; and a fleet of ``--fleet-users`` other users with messages, calls, reflections and dead letters. Then it
renders the user's page and the fleet page ``--repeat`` times each (after one warm-up) through the same functions
the server calls (``operator_page.page.render_user_page`` / ``render_fleet_page``) and reports the median.

What keeps it fast is the caps in ``operator_page/page.py`` (200 newest nodes, 200 newest chains, 20
conversations...), the page saying when it cut; the counter's replay reads only its window (a SUM gives where
it starts).

    python bench/inspect_page.py [--memories 10000] [--facts 1000] [--backend sqlite|postgresql|both]

One JSON line per back end; the last line is JSON: the first back end's figures (the SQLite file by default),
with every back end's under ``by_backend``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

from tests.support.scratch import create_database, scratch_run

RUN, VAR = scratch_run("bench")
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
USER = "heavy-user"


def rows_for_user(memories: int, facts: int, rng: random.Random) -> dict[str, list[dict[str, Any]]]:
    """The heavy user's rows, table by table (ids assigned here so thoughts can cite nodes)."""
    embedding = bytes(4 * 512)
    start = NOW - timedelta(days=60)
    step = timedelta(days=60) / max(memories, 1)
    nodes: list[dict[str, Any]] = []
    for i in range(1, memories + 1):
        at = start + i * step
        if i % 40 == 0:  # a reflection: a thought citing three earlier nodes
            kind, depth, key = "thought", 1, f"reflect:run{i}:0:0"
            evidence = json.dumps(sorted(rng.sample(range(max(1, i - 40), i), 3)))
        elif i % 97 == 0:
            kind, depth, key, evidence = "chat", 0, f"chat:{i}", json.dumps(["user: hi", "Ella: hello"])
        else:
            kind, depth, key, evidence = "event", 0, f"perceive:{USER}-{i}", "[]"
        nodes.append(
            {
                "id": i,
                "user_id": USER,
                "node_type": kind,
                "created_at": at,
                "last_accessed_at": at,
                "expires_at": at + timedelta(days=30) if kind == "thought" else None,
                "subject": USER,
                "predicate": "said",
                "object": f"thing {i}",
                "description": f"{USER} said thing number {i} about the weather and the museum",
                "embedding": embedding,
                "embedding_model": "bench",
                "poignancy": rng.randint(1, 9),
                "keywords": "[]",
                "depth": depth,
                "evidence": evidence,
                "dedupe_key": key,
            }
        )
    fact_rows: list[dict[str, Any]] = []
    fid = 0
    chain_no = 0
    while fid < facts:
        chain_no += 1
        length = min(rng.choice((1, 1, 2, 3)), facts - fid)
        previous = None
        for k in range(length):
            fid += 1
            at = start + timedelta(minutes=fid * 80)
            last = k == length - 1
            fact_rows.append(
                {
                    "id": fid,
                    "user_id": USER,
                    "chain": f"chain{chain_no:05d}",
                    "tier": "user_claim",
                    "status": "active" if last else "superseded",
                    "subject": f"user.thing{chain_no}",
                    "predicate": "is",
                    "object": f"value {k}",
                    "confidence": 0.6,
                    "written_by": "user",
                    "supersedes": previous,
                    "valid_from": at,
                    "valid_until": None if last else at + timedelta(minutes=70),
                    "recorded_at": at,
                    "retired_at": None if last else at + timedelta(minutes=70),
                    "note": "",
                }
            )
            previous = fid
    return {"memory_nodes": nodes, "world_facts": fact_rows}


def populate(memories: int, facts: int, fleet_users: int) -> None:
    from sqlalchemy import insert

    from adapters import db
    from models import Conversation, MemoryNode, ModelCall, User, WorldFact
    from models.boundary import BoundaryEvent
    from models.dead_letter import DeadLetter
    from models.message import InboundMessage
    from models.notifications import NotificationCandidate
    from models.outbox import OutboxRecord
    from models.selflog import SelfLogEntry

    rng = random.Random(16)
    heavy = rows_for_user(memories, facts, rng)
    users = [USER] + [f"fleet-{i:04d}" for i in range(fleet_users)]
    with db.session_scope() as s:
        s.execute(insert(User), [{"id": u, "created_at": NOW - timedelta(days=90), "last_seen_at": NOW} for u in users])
        s.execute(insert(MemoryNode), heavy["memory_nodes"])
        s.execute(insert(WorldFact), heavy["world_facts"])
        convs, messages, replies, calls = [], [], [], []
        conv_id = 0
        for u_index, user in enumerate(users):
            n_convs = 300 if user == USER else 3
            for c in range(n_convs):
                conv_id += 1
                at = NOW - timedelta(days=59) + timedelta(hours=4 * c + u_index % 4)
                convs.append({"id": conv_id, "user_id": user, "started_at": at, "last_message_at": at,
                              "close_due_at": at + timedelta(minutes=30), "closed_at": at + timedelta(minutes=30),
                              "close_reason": "inactive", "turn_count": 10})  # fmt: skip
                for t in range(10):
                    mid = f"{user}-c{c}-t{t}"
                    sent = at + timedelta(minutes=t)
                    messages.append({"message_id": mid, "user_id": user, "conversation_id": conv_id,
                                     "text": f"message {t} of conversation {c}", "sent_at": sent})  # fmt: skip
                    replies.append({"kind": "reply", "user_id": user, "conversation_id": conv_id, "in_reply_to": mid,
                                    "route": "generated", "text": f"reply {t}", "created_at": sent})  # fmt: skip
                    calls.append({"created_at": sent, "user_id": user, "kind": "reply", "tier": "reply",
                                  "model": "claude-sonnet-4-5", "provider": "offline", "input_tokens": 1200,
                                  "output_tokens": 80, "outcome": "ok"})  # fmt: skip
        s.execute(insert(Conversation), convs)
        s.execute(insert(InboundMessage), messages)
        s.execute(insert(OutboxRecord), replies)
        s.execute(insert(ModelCall), calls)
        s.execute(
            insert(SelfLogEntry),
            [{"user_id": USER, "said_at": NOW - timedelta(hours=i), "content": f"I painted {i}"} for i in range(500)],
        )
        s.execute(
            insert(NotificationCandidate),
            [
                {"user_id": users[i % len(users)], "kind": "followup", "body": "How did it go?",
                 "based_on": json.dumps({"facts": [1 + i % max(facts, 1)], "self_log": []}),
                 "created_at": NOW - timedelta(hours=i), "fresh_until": NOW, "not_before": NOW,
                 "status": ("sent", "skipped", "expired", "candidate")[i % 4], "reason": "quiet hours",
                 "dedupe_key": f"n{i}"}
                for i in range(400)
            ],
        )  # fmt: skip
        s.execute(
            insert(BoundaryEvent),
            [
                {"at": NOW - timedelta(hours=i), "user_id": users[i % len(users)], "direction": "inbound",
                 "category": ("self_harm", "romance", "medical")[i % 3], "severity": "high", "route": "canned",
                 "detector_version": "v1", "rule": f"rule-{i % 7}"}
                for i in range(300)
            ],
        )  # fmt: skip
        s.execute(
            insert(DeadLetter),
            [
                {"created_at": NOW - timedelta(hours=i), "task_name": "ella.ingest_message", "reason": "malformed",
                 "payload": "{}", "user_id": users[i % len(users)]}
                for i in range(100)
            ],
        )  # fmt: skip


def median_ms(fn: Any, repeat: int) -> float:
    fn()  # warm-up: templates compiled, connections open
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return round(statistics.median(times), 1)


def run(backend: str, memories: int, facts: int, fleet_users: int, repeat: int) -> dict[str, Any]:
    url, drop = create_database(backend, f"ella_insp_{RUN}_{backend[:2]}", VAR)
    os.environ["ELLA_DATABASE_URL"] = url
    from adapters.settings import get_settings

    get_settings.cache_clear()
    from adapters import db
    from operator_page.page import render_fleet_page, render_user_page

    try:
        db.upgrade()
        t0 = time.perf_counter()
        populate(memories, facts, fleet_users)
        load_s = time.perf_counter() - t0
        html = render_user_page(USER)
        assert 'id="user-page"' in html and f"of {memories} nodes" in html, "the heavy user did not render"
        user_ms = median_ms(lambda: render_user_page(USER), repeat)
        fleet_ms = median_ms(render_fleet_page, repeat)
        return {
            "user_page_ms": user_ms,
            "fleet_page_ms": fleet_ms,
            "memories": memories,
            "facts": facts,
            "backend": backend,
            "fleet_users": fleet_users + 1,
            "user_page_kb": round(len(html.encode()) / 1024, 1),
            "load_s": round(load_s, 1),
        }
    finally:
        db.forget_engine(url)
        drop()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--facts", type=int, default=1_000)
    parser.add_argument("--fleet-users", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--backend", default="both", choices=["sqlite", "postgresql", "both"])
    args = parser.parse_args()
    backends = ["sqlite", "postgresql"] if args.backend == "both" else [args.backend]
    results = []
    for backend in backends:
        result = run(backend, args.memories, args.facts, args.fleet_users, args.repeat)
        print(json.dumps(result), flush=True)
        results.append(result)
    print(json.dumps({**results[0], "by_backend": {r["backend"]: r for r in results}}))


if __name__ == "__main__":
    main()

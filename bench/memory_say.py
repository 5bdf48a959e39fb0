"""The user's say over their memory: what it costs every turn, and what one forget costs.

- per turn: the rules that read a memory request (``ella.memory.say.read_request``) and a question about her
  world's past (``ella.ledger.past.asks_about_the_past``) run on every message; measured on the boundary corpus'
  lines and LoCoMo's conversation turns (../shared/data/locomo-dev, evaluation data), against the guard's
  ``classify`` on the same lines in the same process (the ratio is what the turn's rule reading adds to the
  guard's). Also how many of LoCoMo's ordinary turns read as a request at all (each a false alarm: everyday talk
  between friends).
- one forget: ``models.forgetting.forget_memory`` of one event on a SQLite file, for a user with N memories, N
  replies and N/10 thoughts (the closure reads the user's thoughts and replies), median of 5.

No Redis, no PostgreSQL. The last line is JSON.

    python bench/memory_say.py [--calls 20000] [--sizes 1000,10000]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ella.guard import classify
from ella.guard.evaluate import BOUNDARY_CORPUS
from ella.ledger.past import asks_about_the_past
from ella.memory.say import read_request

LOCOMO = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo-dev"


def corpus_lines() -> list[str]:
    lines = [json.loads(line)["text"] for line in BOUNDARY_CORPUS.read_text().splitlines() if line.strip()]
    return lines


def locomo_turns(limit: int = 5000) -> list[str]:
    turns: list[str] = []
    for path in sorted(LOCOMO.glob("*.json")):
        data = json.loads(path.read_text())
        for sample in data if isinstance(data, list) else [data]:
            conversation = sample.get("conversation", {}) if isinstance(sample, dict) else {}
            for key, session in conversation.items():
                if key.startswith("session_") and isinstance(session, list):
                    turns.extend(str(t.get("text", "")) for t in session if isinstance(t, dict))
    return [t for t in turns if t][:limit]


def per_call_us(fn, texts: list[str], calls: int) -> float:
    for text in texts[:200]:
        fn(text)
    started = time.perf_counter()
    n = 0
    while n < calls:
        for text in texts:
            fn(text)
            n += 1
            if n >= calls:
                break
    return (time.perf_counter() - started) / n * 1e6


def forget_cost(size: int, repeats: int = 5) -> float:
    folder = tempfile.mkdtemp(prefix="ella-bench-say-")
    os.environ["ELLA_DATABASE_URL"] = f"sqlite:///{folder}/bench.db"
    from adapters import db
    from adapters.settings import get_settings

    get_settings.cache_clear()
    db.upgrade()
    from ella.embeddings import HashingEmbedder
    from models import Conversation, InboundMessage, MemoryNode, OutboxRecord, User
    from models.forgetting import forget_memory

    embedder = HashingEmbedder()
    vector = embedder.embed(["x"])[0].astype("float32").tobytes()
    now = datetime(2026, 11, 1, tzinfo=UTC)
    user = f"bench-{size}"
    with db.session_scope() as s:
        s.add(User(id=user, timezone="UTC"))
        s.flush()
        conversation = Conversation(user_id=user, started_at=now, last_message_at=now, close_due_at=now, closed_at=now)
        s.add(conversation)
        s.flush()
        for i in range(size):
            mid = f"{user}-m{i}"
            s.add(InboundMessage(message_id=mid, user_id=user, conversation_id=conversation.id, text=f"message {i}",
                                 sent_at=now + timedelta(minutes=i)))  # fmt: skip
            s.add(OutboxRecord(kind="reply", user_id=user, in_reply_to=mid, route="generated", text=f"reply {i}"))
        s.flush()
        nodes = []
        for i in range(size):
            node = MemoryNode(user_id=user, node_type="event", subject=user, predicate="said", object=f"thing {i}",
                              description=f"message {i}", embedding=vector, embedding_model=embedder.model_id,
                              poignancy=3, source_message_id=f"{user}-m{i}", created_at=now,
                              last_accessed_at=now)  # fmt: skip
            s.add(node)
            nodes.append(node)
        s.flush()
        for i in range(size // 10):
            s.add(MemoryNode(user_id=user, node_type="thought", subject=user, predicate="is", object="x",
                             description=f"thought {i}", embedding=vector, embedding_model=embedder.model_id,
                             poignancy=3, evidence=json.dumps([nodes[i].id, nodes[i + 1].id]), created_at=now,
                             last_accessed_at=now))  # fmt: skip
        ids = [n.id for n in nodes]
    times = []
    for k in range(repeats):
        started = time.perf_counter()
        with db.session_scope() as s:
            forget_memory(s, user, ids[size // 2 + k], embedder=embedder, actor="user", reason="bench")
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--sizes", default="1000,10000")
    args = parser.parse_args()
    lines = corpus_lines()
    turns = locomo_turns()
    texts = lines + turns
    guard_us = per_call_us(classify, texts, args.calls)
    request_us = per_call_us(read_request, texts, args.calls)
    past_us = per_call_us(asks_about_the_past, texts, args.calls)
    alarms = sum(read_request(t) is not None for t in turns)
    past_alarms = sum(asks_about_the_past(t) for t in turns)
    print(f"per turn on {len(texts)} lines: guard {guard_us:.1f} µs, memory request {request_us:.1f} µs, "
          f"past question {past_us:.1f} µs ({(request_us + past_us) / guard_us:.2f}x the guard)")  # fmt: skip
    print(f"LoCoMo's {len(turns)} everyday turns read as a memory request: {alarms}; as a past question: {past_alarms}")
    forget_ms = {}
    for size in (int(x) for x in args.sizes.split(",") if x):
        forget_ms[size] = round(forget_cost(size), 1)
        print(f"one forget, a user with {size} memories and replies: {forget_ms[size]} ms (median of 5, SQLite)")
    print(json.dumps({
        "lines": len(texts), "guard_us": round(guard_us, 1), "request_us": round(request_us, 1),
        "past_us": round(past_us, 1), "ratio_to_guard": round((request_us + past_us) / guard_us, 3),
        "locomo_turns": len(turns), "request_false_alarms": alarms, "past_false_alarms": past_alarms,
        "forget_ms": forget_ms,
    }))  # fmt: skip


if __name__ == "__main__":
    main()

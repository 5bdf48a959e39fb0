"""Model calls per user message over a simulated week of 200 messages, reflection included.

One user talks to Ella through the broker and a real worker on every queue (offline engine; the usage
ledger records every port call exactly as it would Claude's): 4 conversations a day for 7 days, ~7 messages
each, the gaps closing conversations (the memo and the planning thought, one call), poignant turns draining the
trigger (reflections). The reference design makes about 3 calls per event and about 50 per reflection.
All 200 messages are sent at once, so the replies run ahead of the ledger work: the reply reads each turn for
facts (extraction folded into its call), and a turn whose reply ran before an earlier turn's fact was stored is
read again by an extraction call of its own when its words could retire that fact (``tasks.ledger``). Those are
the ``fact_extraction`` calls left.
The last line is JSON.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

from tests.support.scratch import create_database, scratch_run

RUN, VAR = scratch_run("bench")

from adapters.settings import get_settings  # noqa: E402

LINES = [
    "Morning Ella",
    "I slept badly again",
    "Work is so busy this week",
    "My manager praised my report",
    "I have a job interview at the museum on Thursday",
    "I'm nervous about the interview",
    "My sister Maya called",
    "Maya is pregnant, I'm going to be an aunt!",
    "I walked Biscuit by the river",
    "Biscuit hurt his paw",
    "The vet says Biscuit will be fine",
    "I cooked pasta tonight",
    "I'm reading a book about old maps",
    "I feel lonely in the evenings",
    "My friend Leo is moving to Berlin",
    "We had a farewell dinner for Leo",
    "The interview went great",
    "They offered me the job!",
    "I handed in my notice at the call centre",
    "My grandma is in hospital",
    "Grandma is recovering well",
    "It rained all day",
    "I went to a concert",
    "I'm proud of myself today",
    "I argued with my flatmate",
    "We made up after the argument",
    "I started running again",
    "I ran five kilometres",
    "Payday finally",
    "I bought a new jacket",
]


def main() -> None:
    url, drop = create_database("sqlite", f"calls_{RUN}", VAR)
    os.environ["ELLA_DATABASE_URL"] = url
    get_settings.cache_clear()
    from sqlalchemy import func, select

    from adapters import db
    from adapters.redis_conn import redis_url
    from gateway.client import enqueue_message
    from models import InboundMessage, MemoryNode, ModelCall
    from models.ledger import WorldFact
    from workers.app import app
    from workers.procs import WorkerProcess

    db.upgrade()
    settings = get_settings()
    worker = WorkerProcess(
        queues=list(settings.queues),
        log_path=VAR / "worker.log",
        env={"ELLA_REDIS_URL": redis_url(), "ELLA_DATABASE_URL": url},
        extra_args=["-l", "WARNING"],
    ).start()
    start = (datetime.now(UTC) - timedelta(days=8)).replace(hour=8, minute=0, second=0, microsecond=0)
    sent = 0
    try:
        worker.wait_ready(app)
        for day in range(7):
            for conversation in range(4):
                at = start + timedelta(days=day, hours=3 * conversation)
                for turn in range(8 if day * 4 + conversation < 4 else 7):  # 4 x 8 + 24 x 7 = 200
                    text = f"{LINES[sent % len(LINES)]} ({day + 1}.{conversation + 1}.{turn + 1})"
                    enqueue_message(
                        message_id=f"wk-{RUN}-{sent}",
                        user_id="sam",
                        text=text,
                        sent_at=at + timedelta(minutes=2 * turn),
                    )
                    sent += 1

        def count(model, *where) -> int:
            with db.session_scope() as s:
                return s.scalar(select(func.count()).select_from(model).where(*where)) or 0

        deadline = time.monotonic() + 300
        while count(MemoryNode, MemoryNode.node_type == "event") < sent or count(InboundMessage) < sent:
            if time.monotonic() > deadline:
                raise TimeoutError("the week did not finish")
            time.sleep(0.2)
        app.send_task("ella.close_due_conversations", queue=settings.queue_cognition, ignore_result=False).get(60)
        time.sleep(3)  # let the last close_conversation and any reflection finish
        while app.control.inspect(destination=[worker.hostname], timeout=1).active().get(worker.hostname):
            time.sleep(0.5)
        with db.session_scope() as s:
            by_kind = Counter(dict(s.execute(select(ModelCall.kind, func.count()).group_by(ModelCall.kind)).all()))
            thoughts = Counter(
                dict(
                    s.execute(
                        select(MemoryNode.depth, func.count())
                        .where(MemoryNode.node_type == "thought")
                        .group_by(MemoryNode.depth)
                    ).all()
                )
            )
            facts = [
                f"{f.subject} {f.predicate} {f.object} [{f.status}]"
                for f in s.scalars(select(WorldFact).where(WorldFact.user_id == "sam").order_by(WorldFact.id))
                if f.subject.startswith("user")  # the user's facts, not the world's anchors
            ]
    finally:
        worker.stop()
        drop()
    calls = sum(by_kind.values())
    reflections = by_kind.get("focal_points", 0)
    print(f"{sent} messages, {calls} model calls: {dict(sorted(by_kind.items()))}")
    print(f"thoughts by depth: {dict(sorted(thoughts.items()))}; reflections: {reflections}")
    print(f"facts stored about the user: {len(facts)}")
    for fact in facts:
        print(f"  {fact}")
    print(
        json.dumps(
            {
                "messages": sent,
                "model_calls": calls,
                "calls_per_message": round(calls / sent, 3),
                "reflections": reflections,
                "facts_stored": len(facts),
                "calls_by_kind": dict(sorted(by_kind.items())),
            }
        )
    )


if __name__ == "__main__":
    main()

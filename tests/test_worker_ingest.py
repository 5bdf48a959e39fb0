"""The ingest spine through a real broker and a real prefork worker, on SQLite and on PostgreSQL."""

from __future__ import annotations

import collections
import time
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select

from adapters.db import session_scope
from adapters.settings import get_settings
from gateway.client import enqueue_message, outbox_reader
from models import Conversation, DeadLetter, InboundMessage, ModelCall, OutboxRecord
from tests.conftest import wait_for
from workers.app import app

pytestmark = pytest.mark.integration


def replies_to(outbox, ids: set[str]) -> collections.Counter:
    return collections.Counter(e.in_reply_to for e in outbox() if e.in_reply_to in ids)


def count(model, *where) -> int:
    with session_scope() as s:
        return s.scalar(select(func.count()).select_from(model).where(*where)) or 0


def send(prefix: str, n: int, users: int = 10, start: datetime | None = None) -> list[str]:
    start = start or datetime.now(UTC) - timedelta(hours=1)
    ids = []
    for i in range(n):
        mid = f"{prefix}-{i}"
        enqueue_message(
            message_id=mid,
            user_id=f"{prefix}-u{i % users}",
            text=f"message number {i}, how are you?",
            sent_at=start + timedelta(seconds=i),
        )
        ids.append(mid)
    return ids


def test_every_message_is_answered_exactly_once_and_a_repeated_message_id_once(start_worker, outbox):
    start_worker()
    prefix = f"m{uuid.uuid4().hex[:6]}"
    ids = send(prefix, 200)
    dup = f"{prefix}-dup"
    for _ in range(3):
        enqueue_message(
            message_id=dup, user_id=f"{prefix}-u0", text="same message three times", sent_at=datetime.now(UTC)
        )
    wanted = set(ids) | {dup}
    wait_for(lambda: len(replies_to(outbox, wanted)) == 201, 60, what="201 distinct replies")
    # give the two extra deliveries of `dup` time to (not) publish again
    wait_for(lambda: count(InboundMessage, InboundMessage.message_id.like(f"{prefix}-%")) == 201, 20)
    app.send_task("ella.close_due_conversations", queue=get_settings().queue_cognition, ignore_result=False).get(30)
    counts = replies_to(outbox, wanted)
    assert set(counts) == wanted
    assert max(counts.values()) == 1, [k for k, v in counts.items() if v > 1]
    assert count(OutboxRecord, OutboxRecord.in_reply_to.like(f"{prefix}-%")) == 201
    assert count(OutboxRecord, OutboxRecord.in_reply_to.like(f"{prefix}-%"), OutboxRecord.published_at.is_(None)) == 0
    # every reply's model call is in the usage ledger; a repeat of `dup` that raced the first delivery (both
    # saw no stored message) made a call of its own before losing on the unique message_id
    assert 201 <= count(ModelCall, ModelCall.user_id.like(f"{prefix}-%"), ModelCall.kind == "reply") <= 203


MALFORMED = {
    "missing text": (
        {"message_id": "x-missing", "user_id": "u", "sent_at": "2026-11-29T10:00:00+00:00"},
        "text: Field required",
    ),
    "wrong type": (
        {"message_id": "x-int", "user_id": 42, "text": "hi", "sent_at": "2026-11-29T10:00:00+00:00"},
        "user_id",
    ),
    "naive datetime": (
        {"message_id": "x-naive", "user_id": "u", "text": "hi", "sent_at": "2026-11-29T10:00:00"},
        "timezone",
    ),
    "empty text": (
        {"message_id": "x-empty", "user_id": "u", "text": "   ", "sent_at": "2026-11-29T10:00:00Z"},
        "empty",
    ),
    "1 MB text": (
        {"message_id": "x-huge", "user_id": "u", "text": "a" * 1_000_000, "sent_at": "2026-11-29T10:00:00Z"},
        "limit is",
    ),
    "lone surrogate": (
        {"message_id": "x-surrogate", "user_id": "u", "text": "hi \ud800 there", "sent_at": "2026-11-29T10:00:00Z"},
        "lone surrogate",
    ),
    "unknown key": (
        {"message_id": "x-extra", "user_id": "u", "text": "hi", "sent_at": "2026-11-29T10:00:00Z", "priority": "high"},
        "priority: Extra inputs are not permitted",
    ),
}


def test_malformed_payloads_are_dead_lettered_with_a_reason_and_the_worker_keeps_serving(start_worker, outbox):
    worker = start_worker()
    for kwargs, _ in MALFORMED.values():
        app.send_task("ella.ingest_message", kwargs=kwargs, queue=get_settings().queue_inbound)
    app.send_task("ella.ingest_message", args=["positional"], queue=get_settings().queue_inbound)
    wait_for(lambda: count(DeadLetter) == len(MALFORMED) + 1, 30, what="a dead letter per malformed payload")
    with session_scope() as s:
        letters = s.scalars(select(DeadLetter)).all()
        by_reason = [letter.reason for letter in letters]
        assert all(letter.task_name == "ella.ingest_message" for letter in letters)
        assert all(letter.payload for letter in letters)
    for name, (_, expected) in MALFORMED.items():
        assert any(expected in reason for reason in by_reason), (name, by_reason)
    assert any("positional arguments" in reason for reason in by_reason)
    assert count(InboundMessage) == 0
    # never retried: still exactly one row each after a pause, and the worker still answers
    mid = f"ok-{uuid.uuid4().hex[:6]}"
    enqueue_message(message_id=mid, user_id="u", text="still there?", sent_at=datetime.now(UTC))
    wait_for(lambda: replies_to(outbox, {mid}), 30, what="a reply after the malformed ones")
    assert count(DeadLetter) == len(MALFORMED) + 1
    assert worker.proc.poll() is None


def broker_state(client, missing: list[str]) -> str:
    """What the broker holds, to tell a lost message from one still waiting for its visibility timeout."""
    queue = get_settings().queue_inbound
    return (
        f"{len(missing)} unanswered (e.g. {missing[:5]}); queue {queue} holds {client.llen(queue)}, "
        f"unacked {client.hlen('unacked')}, restore mutex ttl {client.ttl('unacked_mutex')}"
    )


def test_kill_9_mid_run_then_restart_answers_every_message_exactly_once(start_worker, outbox, redis_client):
    worker = start_worker()
    prefix = f"k{uuid.uuid4().hex[:6]}"
    ids = set(send(prefix, 500, users=25))
    wait_for(lambda: len(replies_to(outbox, ids)) >= 100, 60, interval=0.01, what="100 replies before the kill")
    worker.kill()
    answered_at_kill = len(replies_to(outbox, ids))
    assert answered_at_kill < 500, "the kill came too late to test anything"
    start_worker(extra_args=["-B"])  # with beat, as in production: its sweep re-sends what the broker lost
    deadline = time.monotonic() + 90
    while len(replies_to(outbox, ids)) < 500 and time.monotonic() < deadline:
        time.sleep(0.2)
    missing = sorted(ids - set(replies_to(outbox, ids)))
    assert not missing, broker_state(redis_client, missing)
    counts = replies_to(outbox, ids)
    assert max(counts.values()) == 1, [k for k, v in counts.items() if v > 1]
    assert count(InboundMessage, InboundMessage.message_id.like(f"{prefix}-%")) == 500


def test_a_task_that_kills_its_worker_is_dead_lettered_after_the_redelivery_cap(start_worker, outbox):
    worker = start_worker(extra_args=["-I", "tests.support.crash_tasks"])
    app.send_task("tests.kill_own_worker", kwargs={"note": "poison"}, queue=get_settings().queue_batch)
    wait_for(
        lambda: count(DeadLetter, DeadLetter.task_name == "tests.kill_own_worker"),
        60,
        what="the poison task in the dead-letter table",
    )
    with session_scope() as s:
        letter = s.scalars(select(DeadLetter).where(DeadLetter.task_name == "tests.kill_own_worker")).one()
    assert "redelivery cap" in letter.reason
    assert f"delivered {get_settings().max_deliveries + 1} times" in letter.reason
    mid = f"after-poison-{uuid.uuid4().hex[:6]}"
    enqueue_message(message_id=mid, user_id="u", text="hello again", sent_at=datetime.now(UTC))
    wait_for(lambda: replies_to(outbox, {mid}), 30, what="a reply after the poison task")
    assert worker.proc.poll() is None


def read_and_ack(reader):  # type: ignore[no-untyped-def]
    """One read of the gateway's group, every entry acked (each ack counted once)."""
    got = reader.read(count=10, block_ms=200)
    if got:
        assert reader.ack(*got) == len(got)
    return got


def test_a_conversation_closes_after_the_inactivity_gap_and_the_gateway_reads_with_acks(start_worker):
    start_worker()
    reader = outbox_reader(f"g{uuid.uuid4().hex[:6]}", "gw-1", start_id="$")
    user = f"conv-{uuid.uuid4().hex[:6]}"
    t0 = datetime.now(UTC) - timedelta(days=2)
    gap = timedelta(seconds=get_settings().conversation_inactivity_timeout_s + 60)
    for i, at in enumerate([t0, t0 + timedelta(minutes=1), t0 + gap + timedelta(minutes=1)]):
        enqueue_message(message_id=f"{user}-{i}", user_id=user, text="hello", sent_at=at)
        # the turn's memory_changed notices (docs/gateway.md, section 6) come on the stream too; a gateway acks
        # them as it reads them
        got = wait_for(lambda: [e for e in read_and_ack(reader) if e.kind == "reply"], 30, what="the reply")
        assert [e.in_reply_to for e in got] == [f"{user}-{i}"]
        assert got[0].user_id == user and got[0].route == "generated"
    with session_scope() as s:
        convs = s.scalars(select(Conversation).where(Conversation.user_id == user).order_by(Conversation.id)).all()
    assert [c.turn_count for c in convs] == [2, 1]
    assert convs[0].close_reason == "inactive" and convs[1].closed_at is None


def test_a_message_the_broker_lost_is_sent_again_by_the_beat_sweep(start_worker, outbox, redis_client):
    from adapters import inbox

    mid = f"lost-{uuid.uuid4().hex[:6]}"
    # What enqueue_message records before send_task, with the task itself lost on the way.
    inbox.remember(
        redis_client,
        {"message_id": mid, "user_id": "u-lost", "text": "did you get this?", "sent_at": datetime.now(UTC).isoformat()},
    )
    start_worker(extra_args=["-B"])
    wait_for(lambda: replies_to(outbox, {mid}), 60, what="the re-sent message's reply")
    entry = inbox.entry_key("u-lost", mid)
    wait_for(lambda: not redis_client.zscore(inbox.InboxKeys.of().due, entry), 10, what="the inbox entry to go")
    assert replies_to(outbox, {mid})[mid] == 1

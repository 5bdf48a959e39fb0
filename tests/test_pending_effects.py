"""What a commit owes (a turn's memory and facts, a notification's memory, a memo) is sent exactly once, whichever
path gets there: the committing delivery, a repeat, the inbox sweep, or ``ella.send_pending_effects``.

Why these tests: a turn committed while Redis went away was answered (the inbox sweep published its reply) but
never remembered, because only the first delivery's success path emitted ``ella.perceive`` and
``ella.extract_facts``; a notification killed between its publish and its memory emit was never remembered,
because the next pass looks only at records never published. ``queued`` reads the run's real cognition queue.
"""

from __future__ import annotations

import base64
import json
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select, update

from adapters.db import autocommit_scope, session_scope
from adapters.settings import get_settings
from ella.contract import IngestPayload
from models import MemoryNode
from models.pending_effects import PendingEffects, owed_for
from tests.conftest import wait_for
from tests.test_notifications import add_candidate, add_user, notification_records
from workers.routing import TaskName


def queued(task: str, **kwargs: str) -> int:
    """Messages on this run's cognition queue to ``task`` whose kwargs hold all of ``kwargs`` (the queue is shared
    by the run's tests: ids make it this test's)."""
    from adapters.redis_conn import get_redis

    count = 0
    for raw in get_redis().lrange(get_settings().queue_cognition, 0, -1):
        envelope = json.loads(raw)
        if envelope.get("headers", {}).get("task") != task:
            continue
        body = envelope["body"]
        args = json.loads(base64.b64decode(body) if envelope["properties"].get("body_encoding") == "base64" else body)
        sent = args[1]
        count += all(sent.get(key) == value for key, value in kwargs.items())
    return count


def owed_rows(user_id: str) -> list[PendingEffects]:
    with autocommit_scope() as session:
        return list(session.scalars(select(PendingEffects).where(PendingEffects.user_id == user_id)))


def committed_turn(text: str = "My sister Maya moved to Lisbon last spring") -> IngestPayload:
    """A turn stored by ``ingest`` as a delivery killed right after its commit leaves it: nothing sent yet."""
    from tasks.ingest import ingest

    user = f"owe-{uuid.uuid4().hex[:8]}"
    payload = IngestPayload(message_id=uuid.uuid4().hex, user_id=user, text=text, sent_at=datetime.now(UTC))
    ingest(payload, task_id=None)
    return payload


def test_a_committed_turn_owes_its_memory_and_facts_until_sent_and_then_nothing(migrated_db):
    from workers import effects

    payload = committed_turn()
    (row,) = owed_rows(payload.user_id)
    assert row.source == payload.message_id
    tasks = [effect["task"] for effect in json.loads(row.effects)]
    assert sorted(tasks) == sorted([TaskName.PERCEIVE, TaskName.EXTRACT_FACTS])
    assert queued(TaskName.PERCEIVE, source_message_id=payload.message_id) == 0

    assert effects.send_owed_by(payload.user_id, payload.message_id) == 1
    assert queued(TaskName.PERCEIVE, source_message_id=payload.message_id) == 1
    assert queued(TaskName.EXTRACT_FACTS, message_id=payload.message_id) == 1
    assert owed_rows(payload.user_id) == []
    assert effects.send_owed_by(payload.user_id, payload.message_id) == 0  # a repeat sends nothing more
    assert queued(TaskName.PERCEIVE, source_message_id=payload.message_id) == 1


def test_a_turn_whose_reply_the_inbox_sweep_publishes_is_also_remembered_and_read_for_facts(migrated_db, outbox):
    """The outage case: the reply committed, its delivery lost before it could publish or emit; the inbox
    sweep's early look publishes the reply, and now sends what the turn owes too (before: published only)."""
    from adapters import inbox
    from adapters.redis_conn import get_redis
    from tasks.inbox import look_early

    payload = committed_turn()
    kwargs = payload.model_dump(mode="json")
    key = inbox.entry_key(payload.user_id, payload.message_id)
    assert look_early(get_redis(), key, kwargs, looks=1, queue_backed_up=False) == "published"
    assert [e.in_reply_to for e in outbox() if e.user_id == payload.user_id] == [payload.message_id]
    assert queued(TaskName.PERCEIVE, source_message_id=payload.message_id) == 1
    assert queued(TaskName.EXTRACT_FACTS, message_id=payload.message_id) == 1
    assert owed_rows(payload.user_id) == []


def test_the_sweep_sends_what_a_commit_owes_once_its_grace_passed_and_not_before(migrated_db):
    from workers import effects

    payload = committed_turn()
    now = datetime.now(UTC)
    effects.sweep(now=now)
    assert len(owed_rows(payload.user_id)) == 1  # within its grace: left to the committing path
    assert queued(TaskName.PERCEIVE, source_message_id=payload.message_id) == 0
    later = now + timedelta(seconds=get_settings().effects_grace_s + 1)
    effects.sweep(now=later)
    assert queued(TaskName.PERCEIVE, source_message_id=payload.message_id) == 1
    assert owed_rows(payload.user_id) == []
    effects.sweep(now=later + timedelta(minutes=5))
    assert queued(TaskName.PERCEIVE, source_message_id=payload.message_id) == 1


def test_two_sweeps_that_read_the_same_row_send_it_once(migrated_db):
    from models.pending_effects import claim, due

    payload = committed_turn()
    later = datetime.now(UTC) + timedelta(seconds=get_settings().effects_grace_s + 1)
    with autocommit_scope() as session:
        first = [o for o in due(session, later, 10_000) if o.user_id == payload.user_id]
        second = [o for o in due(session, later, 10_000) if o.user_id == payload.user_id]
    with session_scope() as session:
        assert claim(session, first[0], later, timedelta(seconds=10))
    with session_scope() as session:
        assert not claim(session, second[0], later, timedelta(seconds=10))  # the other sweep took it


def test_forgetting_a_message_drops_what_its_turn_still_owed(migrated_db):
    from adapters.embedding_cache import shared_embedder
    from models.forgetting import forget_items

    payload = committed_turn()
    assert owed_rows(payload.user_id)
    with session_scope() as session:
        forget_items(session, payload.user_id, messages=[payload.message_id], embedder=shared_embedder(),
                     actor="user", reason="test")  # fmt: skip
    assert owed_rows(payload.user_id) == []  # its words were in perceive's kwargs


def test_a_notification_cut_off_after_its_publish_is_remembered_by_the_sweep(migrated_db, outbox, monkeypatch):
    """Killed between the publish and the memory emit (before: the next pass looked only at unpublished records,
    so Ella never remembered reaching out)."""
    from tasks import notifications
    from workers import effects

    now = datetime.now(UTC)
    user = f"ncut-{uuid.uuid4().hex[:6]}"
    add_user(user, now)
    cid = add_candidate(user, now)
    source = f"notification:{cid}"

    def killed(*args: object) -> int:
        if args and args[0]:  # the notification's memory (the memos of closed conversations: none here)
            raise SystemExit("killed after the publish")
        return 0

    with monkeypatch.context() as m:
        m.setattr(notifications.effects, "send_owed_by", killed)
        m.setattr(notifications.effects, "send_rows", killed)
        with pytest.raises(SystemExit):
            notifications.dispatch(now)
    [record] = notification_records(user)
    assert record.published_at is not None
    assert queued(TaskName.PERCEIVE, source_message_id=source, user_id=user) == 0
    assert notifications.dispatch(now + timedelta(minutes=1)).get("republished", 0) == 0  # published already

    effects.sweep(now=now + timedelta(seconds=get_settings().effects_grace_s + 1))
    assert queued(TaskName.PERCEIVE, source_message_id=source, user_id=user) == 1


def test_a_notification_never_published_is_not_remembered_until_it_is(migrated_db, outbox, monkeypatch):
    from tasks import notifications
    from workers import effects

    now = datetime.now(UTC)
    user = f"nunp-{uuid.uuid4().hex[:6]}"
    add_user(user, now)
    cid = add_candidate(user, now)
    source = f"notification:{cid}"
    with monkeypatch.context() as m:
        m.setattr(notifications.Pass, "deliver", lambda self, sent: None)  # dies after the commit
        notifications.dispatch(now)
    after_grace = now + timedelta(seconds=get_settings().effects_grace_s + 1)
    effects.sweep(now=after_grace)
    assert queued(TaskName.PERCEIVE, source_message_id=source, user_id=user) == 0  # the user never got it
    with autocommit_scope() as session:
        assert len(owed_for(session, user, source)) == 1

    assert notifications.dispatch(now + timedelta(minutes=5)).get("republished") == 1
    assert queued(TaskName.PERCEIVE, source_message_id=source, user_id=user) == 1
    effects.sweep(now=after_grace + timedelta(minutes=5))
    assert queued(TaskName.PERCEIVE, source_message_id=source, user_id=user) == 1


@pytest.mark.integration
def test_through_a_worker_a_turn_whose_delivery_died_after_its_commit_ends_with_its_memory_and_facts(start_worker):
    """The whole path: a turn committed by a delivery that never got to its emits, a worker, and beat's sweep
    task; the memory node and the fact appear once, and a second sweep adds nothing."""
    from tests.test_folded_extraction import user_facts
    from workers.app import app

    start_worker()
    payload = committed_turn("I have a job interview tomorrow")
    with session_scope() as session:  # its grace over (a fault an hour ago, say)
        session.execute(
            update(PendingEffects)
            .where(PendingEffects.user_id == payload.user_id)
            .values(next_at=datetime.now(UTC) - timedelta(seconds=1))
        )

    def memories() -> list[int]:
        with autocommit_scope() as session:
            return list(
                session.scalars(
                    select(MemoryNode.id).where(
                        MemoryNode.user_id == payload.user_id, MemoryNode.source_message_id == payload.message_id
                    )
                )
            )

    def sweep_and_look() -> object:
        app.send_task(TaskName.SEND_PENDING_EFFECTS, queue=get_settings().queue_inbound)
        return memories() and user_facts(payload.user_id)

    wait_for(sweep_and_look, 60, interval=2, what="the turn's memory and its fact, sent by the sweep")
    app.send_task(TaskName.SEND_PENDING_EFFECTS, queue=get_settings().queue_inbound)
    wait_for(lambda: owed_rows(payload.user_id) == [], 30, what="nothing owed any more")
    assert len(memories()) == 1
    assert [f.predicate for f in user_facts(payload.user_id)] == ["has_upcoming"]

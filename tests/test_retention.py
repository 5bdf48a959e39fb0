"""Retention (issue 35.2): the job on beat prunes each log's rows older than its setting, and nothing else.

Why these cases: a prune that deletes a row some guarantee needs is worse than none. The message row stays
(exactly-once: a repeat of its ``message_id`` must find it), an unpublished reply and one a pending effect waits on
stay, rows newer than the cutoff stay, a setting of 0 keeps a table whole; a rerun does nothing, a bounded run
is resumed by the next, and one table's failure does not stop the others.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta

import pytest
from sqlalchemy import func, select

from adapters.db import autocommit_scope, session_scope
from adapters.settings import RETENTION_SETTINGS, Settings, get_settings
from ella.ledger.rules import Writer
from models import (
    BoundaryEvent,
    Conversation,
    FactEvent,
    InboundMessage,
    MemoryAudit,
    ModelCall,
    OutboxRecord,
    User,
)
from models.base import utcnow
from models.ledger import NewFact, append
from models.pending_effects import PendingEffects
from tasks.retention import prune_logs, prune_logs_now

DAYS = 30
NOW = utcnow()
OLD = NOW - timedelta(days=DAYS, hours=1)
NEW = NOW - timedelta(days=DAYS) + timedelta(hours=1)


@pytest.fixture
def retention(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., Settings]]:
    """Set retention settings for this test (every table at ``DAYS`` unless named), as the environment does."""

    def configure(**overrides: int) -> Settings:
        for name in RETENTION_SETTINGS:
            monkeypatch.setenv(f"ELLA_{name.upper()}", str(overrides.get(name, DAYS)))
        for name in ("retention_batch_rows", "retention_max_batches"):
            if name in overrides:
                monkeypatch.setenv(f"ELLA_{name.upper()}", str(overrides[name]))
        get_settings.cache_clear()
        return get_settings()

    yield configure
    get_settings.cache_clear()


def plant(user: str, at: datetime, tag: str, published: bool = True) -> dict[str, int]:
    """One row of each log for ``user``, stamped ``at``; their ids by table."""
    with session_scope() as s:
        if s.get(User, user) is None:
            s.add(User(id=user, timezone="UTC"))
            s.flush()
        conv = Conversation(user_id=user, started_at=at, last_message_at=at, close_due_at=at, closed_at=at)
        s.add(conv)
        s.flush()
        message = InboundMessage(
            message_id=f"{tag}-{uuid.uuid4().hex[:8]}", user_id=user, conversation_id=conv.id,
            text=f"words of {tag}", sent_at=at, received_at=at,
        )  # fmt: skip
        reply = OutboxRecord(
            kind="reply", user_id=user, conversation_id=conv.id, in_reply_to=message.message_id, route="generated",
            text=f"reply to {tag}", created_at=at, published_at=at if published else None,
        )  # fmt: skip
        call = ModelCall(
            created_at=at, user_id=user, kind="reply", tier="smart", model="offline", provider="offline", outcome="ok"
        )
        fire = BoundaryEvent(
            at=at, user_id=user, direction="inbound", category="manipulation", severity="low", route="log",
            detector_version="test", rule="r",
        )  # fmt: skip
        audit = MemoryAudit(user_id=user, at=at, actor="user", action="export", target="user")
        fact = append(s, user, NewFact(f"ellahome.{tag}", "is", "x", "canon"), Writer.ANCHOR, now=at)
        assert fact is not None
        s.add_all([message, reply, call, fire, audit])
        s.flush()
        event = FactEvent(fact_id=fact.id, user_id=user, at=at, from_status="active", to_status="retired", writer="x")
        s.add(event)
        s.flush()
        return {
            "inbound_messages": message.id,
            "outbox_records": reply.id,
            "model_calls": call.id,
            "boundary_events": fire.id,
            "memory_audit": audit.id,
            "world_fact_events": event.id,
        }


MODELS = {
    "inbound_messages": InboundMessage,
    "outbox_records": OutboxRecord,
    "model_calls": ModelCall,
    "boundary_events": BoundaryEvent,
    "memory_audit": MemoryAudit,
    "world_fact_events": FactEvent,
}


def present(table: str, row_id: int) -> bool:
    with autocommit_scope() as s:
        return s.get(MODELS[table], row_id) is not None


def words(row_id: int) -> str:
    with autocommit_scope() as s:
        return s.get_one(InboundMessage, row_id).text


def test_rows_older_than_the_setting_go_newer_ones_stay_and_a_rerun_does_nothing(migrated_db, retention):
    retention(retention_batch_rows=2)  # several batches per table
    user = f"ret-{uuid.uuid4().hex[:6]}"
    old = [plant(user, OLD, f"old{i}") for i in range(3)]
    new = [plant(user, NEW, f"new{i}") for i in range(2)]

    counts = prune_logs.apply().get()

    deleted = ("outbox_records", "model_calls", "boundary_events", "memory_audit", "world_fact_events")
    assert counts == {table: 3 for table in (*deleted, "inbound_messages")}
    for rows in old:
        assert [t for t in deleted if present(t, rows[t])] == []
        # The message stays, for exactly-once: only its words are cleared.
        assert present("inbound_messages", rows["inbound_messages"]) and words(rows["inbound_messages"]) == ""
    for rows in new:
        assert all(present(t, rows[t]) for t in MODELS)
        assert words(rows["inbound_messages"]).startswith("words of new")

    assert prune_logs.apply().get() == {table: 0 for table in counts}


def test_a_setting_of_zero_keeps_that_table_whole(migrated_db, retention):
    retention(retention_model_calls_days=0, retention_inbound_messages_days=0)
    rows = plant(f"ret-{uuid.uuid4().hex[:6]}", OLD - timedelta(days=3650), "ancient")

    counts = prune_logs.apply().get()

    assert "model_calls" not in counts and "inbound_messages" not in counts
    assert present("model_calls", rows["model_calls"])
    assert words(rows["inbound_messages"]) == "words of ancient"
    assert not present("boundary_events", rows["boundary_events"])


def test_an_unpublished_reply_and_one_a_pending_effect_waits_on_are_kept(migrated_db, retention):
    retention()
    user = f"ret-{uuid.uuid4().hex[:6]}"
    unpublished = plant(user, OLD, "unsent", published=False)["outbox_records"]
    waited_on = plant(user, OLD, "waited")["outbox_records"]
    with session_scope() as s:
        s.add(
            PendingEffects(
                user_id=user, source="notification:1", effects=json.dumps([]), next_at=NOW, after_outbox_id=waited_on
            )
        )

    prune_logs.apply().get()

    assert present("outbox_records", unpublished) and present("outbox_records", waited_on)


def test_a_bounded_run_stops_and_the_next_run_carries_on(migrated_db, retention):
    settings = retention(retention_batch_rows=1, retention_max_batches=2)
    user = f"ret-{uuid.uuid4().hex[:6]}"
    for i in range(3):
        plant(user, OLD, f"old{i}")

    assert prune_logs_now(settings, utcnow()).counts["model_calls"] == 2
    assert prune_logs_now(settings, utcnow()).counts["model_calls"] == 1
    with autocommit_scope() as s:
        assert s.scalar(select(func.count()).select_from(ModelCall).where(ModelCall.user_id == user)) == 0


def test_one_tables_failure_does_not_stop_the_others_and_fails_the_run(migrated_db, retention, monkeypatch):
    import models.retention

    settings = retention()
    rows = plant(f"ret-{uuid.uuid4().hex[:6]}", OLD, "old")

    def broken(*_args: object) -> int:
        raise RuntimeError("the model_calls batch broke")

    rules = tuple(
        models.retention.Rule(r.table, r.setting, r.action, broken) if r.table == "model_calls" else r
        for r in models.retention.RULES
    )
    monkeypatch.setattr("tasks.retention.RULES", rules)

    pruned = prune_logs_now(settings, utcnow())

    assert set(pruned.failed) == {"model_calls"} and present("model_calls", rows["model_calls"])
    assert not present("boundary_events", rows["boundary_events"])
    assert not present("world_fact_events", rows["world_fact_events"])  # the last rule ran too
    with pytest.raises(RuntimeError, match="model_calls batch broke"):
        prune_logs.apply().get()


@pytest.mark.domain
def test_the_prune_job_is_on_beat_daily_on_the_batch_queue():
    from beat_schedule import beat_schedule
    from workers.routing import Queue, TaskName

    settings = Settings(_env_file=None)
    (entry,) = [e for e in beat_schedule(settings).values() if e["task"] == TaskName.PRUNE_LOGS]
    assert entry["options"]["queue"] == Queue.BATCH.name_in(settings)
    assert entry["schedule"].hour == {4}  # a crontab: once a day


@pytest.mark.domain
def test_a_retention_shorter_than_the_floor_is_refused_and_the_logs_have_defaults():
    with pytest.raises(ValueError, match="retention_outbox_records_days"):
        Settings(_env_file=None, retention_outbox_records_days=3)
    settings = Settings(_env_file=None)
    assert settings.retention_model_calls_days == settings.retention_boundary_events_days == 400
    assert settings.retention_inbound_messages_days == settings.retention_outbox_records_days == 0

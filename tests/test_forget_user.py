"""The right to be forgotten: ``ella.forget_user`` leaves nothing of the user in any store, and keeps them erased.

A canary string is planted in every table of ``models.base`` metadata that erasure touches (a new table
without a planter here, or without an eraser there, fails), in every Redis key of ours, the outbox stream, the
dead letters, the embedding cache and our log files; after the erasure neither the canary nor the user id is
found anywhere, while another user's canary is still everywhere it was.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select, text
from sqlalchemy.orm import Session

from adapters.db import autocommit_scope, session_scope
from adapters.dead_letters import encode_payload
from adapters.settings import get_settings
from ella.contract import IngestPayload
from ella.ledger.rules import Tier, Writer
from models import (
    Base,
    BoundaryEvent,
    Conversation,
    CrisisReferral,
    DeadLetter,
    FactEvent,
    FactReview,
    ForgottenUser,
    ImageAnchorRow,
    InboundMessage,
    JobChunk,
    JobMark,
    JobRun,
    MemoryAudit,
    MemoryNode,
    ModelBatch,
    ModelBatchItem,
    ModelCall,
    NotificationCandidate,
    OutboxRecord,
    RelationshipArcRow,
    SelfLogEntry,
    StoryChapter,
    User,
    WorldFact,
)
from models.erasure import (
    UnaccountedTable,
    erase_user_rows,
    kept_tables,
    store_erasers,
    table_erasers,
    tombstone_key,
)
from models.pending_effects import PendingEffects
from models.world_clock import WorldVersion
from workers.events import FORGOTTEN_REASON
from workers.reliability import DeadLettered

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def _conversation(s: Session, user: str, canary: str) -> None:
    s.add(Conversation(user_id=user, external_id=canary, started_at=NOW, last_message_at=NOW,
                       close_due_at=NOW, closed_at=NOW))  # fmt: skip


def _inbound(s: Session, user: str, canary: str) -> None:
    conv = Conversation(user_id=user, started_at=NOW, last_message_at=NOW, close_due_at=NOW, closed_at=NOW)
    s.add(conv)
    s.flush()
    s.add(InboundMessage(message_id=f"m-{uuid.uuid4().hex}", user_id=user, conversation_id=conv.id, text=canary,
                         sent_at=NOW))  # fmt: skip


def _fact(s: Session, user: str, canary: str) -> WorldFact:
    fact = WorldFact(user_id=user, chain=uuid.uuid4().hex, tier=Tier.USER_CLAIM.value, subject="user.pet",
                     predicate="named", object=canary, written_by=Writer.USER.value, valid_from=NOW)  # fmt: skip
    s.add(fact)
    s.flush()
    return fact


def _fact_event(s: Session, user: str, canary: str) -> None:
    fact = _fact(s, user, "a fact")
    s.add(FactEvent(fact_id=fact.id, user_id=user, from_status="active", to_status="retired", writer="user",
                    note=canary))  # fmt: skip


def _job_chunk(s: Session, user: str, canary: str) -> None:
    """A chunk's keyset bounds are user ids: this one ends at the user (its run pages by keyset too)."""
    run = JobRun(job="digest", period=f"c-{uuid.uuid4().hex[:8]}")
    s.add(run)
    s.flush()
    s.add(JobChunk(run_id=run.id, seq=0, after_user="", through_user=user, users=1))


# One planter per table that holds a user's data: each writes a row carrying the canary (the user id is in it too).
PLANTERS: dict[str, Callable[[Session, str, str], object]] = {
    "users": lambda s, user, canary: s.add(User(id=user, timezone="Europe/London", locale=canary[:16])),
    "conversations": _conversation,
    "inbound_messages": _inbound,
    "outbox_records": lambda s, user, canary: s.add(
        OutboxRecord(kind="reply", user_id=user, route="generated", text=canary)
    ),
    "memory_nodes": lambda s, user, canary: s.add(
        MemoryNode(
            user_id=user,
            node_type="event",
            subject="user",
            predicate="said",
            object=canary,
            description=canary,
            embedding=b"\0" * 16,
            embedding_model="test",
            poignancy=3,
        )  # fmt: skip
    ),
    "world_facts": _fact,
    "world_fact_events": _fact_event,
    "world_versions": lambda s, user, canary: s.add(WorldVersion(user_id=user, version=1)),  # the id only
    "memory_audit": lambda s, user, canary: s.add(
        MemoryAudit(user_id=user, actor="user", action="forget_memory", target="memory:1", reason=canary)
    ),
    "fact_reviews": lambda s, user, canary: s.add(
        FactReview(
            user_id=user,
            subject="user.pet",
            predicate="named",
            tier="user_claim",
            fact_ids="[]",
            reason=canary,
            dedupe_key=f"{user}:{uuid.uuid4().hex}",
        )  # fmt: skip
    ),
    "self_log": lambda s, user, canary: s.add(SelfLogEntry(user_id=user, content=canary)),
    "pending_effects": lambda s, user, canary: s.add(
        PendingEffects(
            user_id=user,
            source=f"m-{uuid.uuid4().hex}",
            next_at=NOW,
            effects=json.dumps([{"task": "ella.perceive", "kwargs": {"description": canary}}]),
        )
    ),  # fmt: skip
    "image_anchors": lambda s, user, canary: s.add(
        ImageAnchorRow(user_id=user, entity="loch", version=1, sha256="0" * 64, prompt=canary)
    ),
    "job_marks": lambda s, user, canary: s.add(
        JobMark(user_id=user, job="digest", period="2026-11-30", requested_at=NOW)
    ),  # fmt: skip
    "job_runs": lambda s, user, canary: s.add(JobRun(job="digest", period=f"p-{uuid.uuid4().hex[:8]}", cursor=user)),
    "job_chunks": _job_chunk,
    "notification_candidates": lambda s, user, canary: s.add(
        NotificationCandidate(
            user_id=user,
            kind="followup",
            body=canary,
            fresh_until=NOW,
            not_before=NOW,
            dedupe_key=f"followup:{uuid.uuid4().hex}",
        )  # fmt: skip
    ),
    "boundary_events": lambda s, user, canary: s.add(
        BoundaryEvent(
            user_id=user,
            direction="inbound",
            category="crisis",
            severity="high",
            route="crisis_referral",
            detector_version="t",
            text=canary,
        )  # fmt: skip
    ),
    "dead_letters": lambda s, user, canary: s.add_all(
        [
            DeadLetter(task_name="t", reason="r", user_id=user, payload=encode_payload([], {"text": canary})),
            # an id the column could not keep (not printable ASCII) is only in the payload
            DeadLetter(task_name="t", reason="r", payload=encode_payload([], {"user_id": user, "text": canary})),
        ]
    ),
    "model_calls": lambda s, user, canary: s.add(
        ModelCall(
            user_id=user, kind="reply", tier="live", model="m", provider="offline", outcome="error", error=canary
        )  # fmt: skip
    ),
    "story_chapters": lambda s, user, canary: s.add(
        StoryChapter(
            user_id=user,
            period="2026-W48",
            period_start=NOW,
            period_end=NOW,
            title="t",
            summary=canary,
            key_moments=json.dumps([{"text": canary, "node_ids": [1]}]),
            cited_node_ids="[1]",
        )  # fmt: skip
    ),
    "relationship_arcs": lambda s, user, canary: s.add(
        RelationshipArcRow(user_id=user, period="2026-10", stage="warming", trajectory="rising", mindful_of=canary)
    ),
    "model_batch_items": lambda s, user, canary: s.add(
        ModelBatchItem(
            custom_id=uuid.uuid4().hex, purpose="p", kind="reply", user_id=user, variables=json.dumps({"text": canary})
        )  # fmt: skip
    ),
}


def plant_rows(user: str, canary: str) -> None:
    with session_scope() as s:
        for planter in PLANTERS.values():
            planter(s, user, canary)
            s.flush()
        s.add(CrisisReferral(category="crisis", detector_version="t"))  # the anonymous count, no user
        s.add(ModelBatch(provider="offline"))


def tables_mentioning(*needles: str) -> dict[str, int]:
    """Rows per table that carry any of ``needles`` in any column, over every table of the metadata."""
    found: dict[str, int] = {}
    with autocommit_scope() as s:
        for table in Base.metadata.sorted_tables:
            for row in s.execute(select(table)):
                blob = " ".join(map(str, row))
                if any(n in blob for n in needles):
                    found[table.name] = found.get(table.name, 0) + 1
    return found


def redis_mentioning(client, *needles: str) -> list[str]:
    """Our Redis keys (this run's prefix, which covers the outbox stream) whose name or value has a needle."""
    from adapters.embedding_cache import binary_client

    client = binary_client(client)  # vectors are not UTF-8
    hits = []
    for key in client.scan_iter(match=f"{get_settings().redis_key_prefix}:*", count=1000):
        kind = client.type(key).decode()
        if kind == "string":
            value = client.get(key)
        elif kind == "hash":
            value = client.hgetall(key)
        elif kind == "zset":
            value = client.zrange(key, 0, -1)
        elif kind == "stream":
            value = client.xrange(key)
        elif kind == "list":
            value = client.lrange(key, 0, -1)
        elif kind == "set":
            value = client.smembers(key)
        else:
            value = ""
        if any(n in f"{key} {value}" for n in needles):
            hits.append(key.decode())
    return sorted(hits)


def plant_redis(user: str, canary: str) -> str:
    """The user's message in the inbox, a reply in the outbox stream with its publish marker, a held
    reflection lock, the canary's vector in the embedding cache; returns the embedding cache key."""
    from adapters import inbox
    from adapters.embedding_cache import CachedEmbedder
    from adapters.redis_conn import get_redis
    from ella.embeddings import HashingEmbedder
    from tasks.ingest import ingest
    from tasks.memory import reflection_lock
    from workers import events

    client = get_redis()
    inbox.remember(client, {"message_id": f"in-{uuid.uuid4().hex}", "user_id": user, "text": canary,
                            "sent_at": NOW.isoformat()})  # fmt: skip
    ingest(IngestPayload(message_id=f"m-{uuid.uuid4().hex}", user_id=user, text=canary, sent_at=NOW), task_id=None)
    assert reflection_lock(user).acquire()
    events.turn_to_memory(
        user_id=user, message_id=f"m-{uuid.uuid4().hex}", text=canary, sent_at=NOW.isoformat(), perception=None
    )  # fmt: skip  (waiting in the cognition queue: no worker runs here)
    cache = CachedEmbedder(HashingEmbedder(), client)
    cache.embed([canary])
    return cache.key(canary)


def plant_log(user: str, canary: str) -> None:
    folder = get_settings().var_path / "log"
    folder.mkdir(parents=True, exist_ok=True)
    line = {"level": "INFO", "logger": "tasks.ingest", "message": f"stored {canary}", "user_id": user}
    with open(folder / "worker-forget.log", "a") as log:
        log.write(json.dumps(line) + "\n")
        log.write(f"Task ella.ingest_message received {{'user_id': {user!r}}}\n")


def queued_mentioning(*needles: str) -> int:
    """Task messages in this run's queues whose body (kwargs, base64 JSON) carries a needle."""
    import base64

    from adapters.redis_conn import get_redis

    bodies = [
        base64.b64decode(json.loads(raw)["body"]).decode()
        for queue in get_settings().queues
        for raw in get_redis().lrange(queue, 0, -1)
    ]
    return sum(any(n in body for n in needles) for body in bodies)


def log_mentions(*needles: str) -> int:
    folder = get_settings().var_path / "log"
    return sum(
        any(n in line for n in needles) for path in folder.glob("*.log*") for line in path.read_text().splitlines()
    )


def forget(user: str, again: bool = True) -> dict[str, int]:
    """Run ``ella.forget_user`` in this process; ``again`` (the second pass) so that nothing is scheduled."""
    from tasks.privacy import forget_user

    return forget_user.apply(kwargs={"user": user, "again": again}).get()


# --- the registry (no services) ------------------------------------------------------------------------------


@pytest.mark.domain
def test_every_table_is_erased_or_kept_with_a_reason_and_every_erased_table_has_a_planter_here():
    import tasks.privacy  # noqa: F401  (registers the stores outside the database)

    tables = {t.name for t in Base.metadata.sorted_tables}
    assert set(table_erasers()) | set(kept_tables()) == tables
    assert set(table_erasers()) == set(PLANTERS), "plant a canary in the new table (PLANTERS) and erase it"
    assert set(kept_tables()) == {"crisis_referrals", "model_batches", "forgotten_users"}
    assert set(store_erasers()) == {
        "redis:inbox", "redis:outbox_stream", "redis:publish_markers", "redis:locks", "redis:embedding_cache", "logs",
        "broker:queues", "images", "redis:world_cache",
    }  # fmt: skip


def test_a_table_erasure_does_not_know_stops_the_erasure_before_anything_is_erased(migrated_db):
    from sqlalchemy import Column, String, Table

    future = Table("digests_without_eraser", Base.metadata, Column("owner", String(128), primary_key=True))
    try:
        with session_scope() as s, pytest.raises(UnaccountedTable, match="digests_without_eraser"):
            erase_user_rows(s, "anyone")
    finally:
        Base.metadata.remove(future)


# --- the erasure ---------------------------------------------------------------------------------------------


def test_forget_user_leaves_no_trace_of_the_user_in_any_store_and_keeps_the_anonymous_count(migrated_db):
    from adapters.redis_conn import get_redis

    client = get_redis()
    user, canary = f"forget-{uuid.uuid4().hex[:8]}", f"canary-{uuid.uuid4().hex}"
    other, other_canary = f"keep-{uuid.uuid4().hex[:8]}", f"canary-{uuid.uuid4().hex}"
    for who, what in ((user, canary), (other, other_canary)):
        plant_rows(who, what)
        cache_key = plant_redis(who, what)
        plant_log(who, what)
    assert set(tables_mentioning(canary, user)) == set(PLANTERS)
    assert len(redis_mentioning(client, canary, user)) >= 4  # inbox payloads and keys, stream, lock
    assert log_mentions(canary, user) == 2
    assert queued_mentioning(canary) == 1
    with autocommit_scope() as s:
        referrals = s.scalar(select(func.count()).select_from(CrisisReferral))

    counts = forget(user)

    assert tables_mentioning(canary, user) == {}
    assert redis_mentioning(client, canary, user) == []
    assert client.exists(cache_key) == 0
    assert list(client.scan_iter(match=f"{get_settings().redis_key_prefix}:emb:*")) == []  # emptied whole
    assert log_mentions(canary, user) == 0
    assert queued_mentioning(canary, user) == 0
    assert counts["users"] == 1 and counts["dead_letters"] == 2
    with autocommit_scope() as s:
        assert s.scalar(select(func.count()).select_from(CrisisReferral)) == referrals
        assert s.scalar(select(func.count()).select_from(ForgottenUser)) == 1
    # The other user is untouched, everywhere.
    assert set(tables_mentioning(other_canary, other)) == set(PLANTERS)
    assert len(redis_mentioning(client, other_canary, other)) >= 4
    assert log_mentions(other_canary, other) == 2
    assert queued_mentioning(other_canary) == 1

    assert forget(user) == {}  # idempotent: a second request finds nothing and fails on nothing


def test_what_a_task_in_flight_wrote_after_the_erasure_goes_in_the_second_pass(migrated_db):
    """An ingest past its tombstone check when the erasure ran stores and publishes after it; the second pass
    (``tasks.privacy.schedule_second_pass``, after the hard time limit) erases that too."""
    from tasks.ingest import ingest

    user, canary = f"flight-{uuid.uuid4().hex[:8]}", f"canary-{uuid.uuid4().hex}"
    forget(user, again=True)
    ingest(IngestPayload(message_id=f"m-{uuid.uuid4().hex}", user_id=user, text=canary, sent_at=NOW), task_id=None)
    assert "inbound_messages" in tables_mentioning(canary)
    forget(user, again=True)
    assert tables_mentioning(canary, user) == {}


def test_an_ingest_transaction_in_flight_commits_first_and_its_rows_go_with_the_rest(migrated_db):
    """The erasure takes the user's row lock as ingest does: a turn being stored when it starts is committed
    first and then erased, not left behind (PostgreSQL; SQLite runs one writer at a time anyway)."""
    import threading

    from adapters.turn_context import new_user_defaults
    from models.user import touch_user
    from tasks.privacy import forget as forget_in_process

    from .conftest import wait_for

    if not migrated_db.startswith("postgresql"):
        pytest.skip("SQLite serialises writers (BEGIN IMMEDIATE): no transaction is in flight beside another")
    user, canary = f"race-{uuid.uuid4().hex[:8]}", f"canary-{uuid.uuid4().hex}"
    stored, release, erased = threading.Event(), threading.Event(), []

    def ingest_transaction() -> None:  # what store_turn does: the user locked, the turn written, not committed
        with session_scope() as s:
            touch_user(s, user, NOW, new_user_defaults(get_settings()))
            s.add(SelfLogEntry(user_id=user, content=canary))
            s.flush()
            stored.set()
            release.wait(60)

    ingest = threading.Thread(target=ingest_transaction)
    ingest.start()
    assert stored.wait(30)
    erasure = threading.Thread(target=lambda: erased.append(forget_in_process(user, second_pass=False)))
    erasure.start()

    def erasure_waits_on_the_lock() -> bool:
        with autocommit_scope() as s:
            waiting = (
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
            )
            return bool(s.scalar(text(waiting)))

    wait_for(erasure_waits_on_the_lock, 30, what="the erasure waiting for the ingest's row lock")
    release.set()
    ingest.join(30)
    erasure.join(30)
    assert erased and erased[0]["self_log"] == 1
    assert tables_mentioning(canary, user) == {}


# --- a late redelivery ---------------------------------------------------------------------------------------


def test_a_late_message_or_profile_of_an_erased_user_is_refused_unanswered_and_recreates_nobody(migrated_db, outbox):
    from adapters import inbox
    from adapters.redis_conn import get_redis
    from tasks.ingest import ingest_message
    from tasks.profile import update_profile

    user, canary = f"late-{uuid.uuid4().hex[:8]}", f"canary-{uuid.uuid4().hex}"
    first = {"message_id": f"m-{uuid.uuid4().hex}", "user_id": user, "text": canary, "sent_at": NOW.isoformat()}
    ingest_message.apply(kwargs=first).get()
    assert [e.text for e in outbox() if e.user_id == user] != []  # answered while the user existed
    forget(user)
    assert [e for e in outbox() if e.user_id == user] == []

    later = {**first, "message_id": f"m-{uuid.uuid4().hex}", "sent_at": (NOW + timedelta(minutes=1)).isoformat()}
    inbox.remember(get_redis(), later)  # the gateway client records a message before sending it
    profile = {"user_id": user, "updated_at": NOW.isoformat(), "timezone": "Europe/London", "locale": "en_GB",
               "is_minor": False, "do_not_disturb": None, "active_hours": "09:00-21:00",
               "notifications": True}  # fmt: skip
    for task, kwargs in ((ingest_message, first), (ingest_message, later), (update_profile, profile)):
        with pytest.raises(DeadLettered, match="erased"):
            task.apply(kwargs=kwargs).get()

    assert [e for e in outbox() if e.user_id == user] == []  # not answered
    assert tables_mentioning(canary, user) == {}  # nobody re-created, nothing of theirs in the dead letters
    assert redis_mentioning(get_redis(), canary, user) == []  # the re-sent message left the inbox
    with autocommit_scope() as s:
        refused = s.scalars(select(DeadLetter).order_by(DeadLetter.id)).all()
        assert [(d.task_name, d.reason, d.user_id, d.message_id) for d in refused] == [
            ("ella.ingest_message", FORGOTTEN_REASON, None, None),
            ("ella.ingest_message", FORGOTTEN_REASON, None, None),
            ("ella.update_profile", FORGOTTEN_REASON, None, None),
        ]
        assert s.scalar(text("SELECT count(*) FROM users")) == 0


# --- the two ways in: the operator's CLI and the gateway through a worker ----------------------------------


def test_ella_users_forget_erases_the_user_and_schedules_the_second_pass_without_naming_them(migrated_db):
    from typer.testing import CliRunner

    from adapters.redis_conn import get_redis
    from cli.main import cli

    user, canary = f"cli-{uuid.uuid4().hex[:8]}", f"canary-{uuid.uuid4().hex}"
    plant_rows(user, canary)
    queue = get_settings().queue_inbound
    get_redis().delete(queue)

    result = CliRunner().invoke(cli, ["users", "forget", user, "--yes"])

    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["erased"]["users"] == 1
    assert tables_mentioning(canary, user) == {"forgotten_users": 1}  # the id, until the second pass clears it
    raw = get_redis().lrange(queue, 0, -1)
    queued = [json.loads(m) for m in raw]
    key = tombstone_key(user, get_settings().forget_hmac_key.get_secret_value())
    assert [(m["headers"]["task"], m["headers"]["kwargsrepr"]) for m in queued] == [
        ("ella.forget_user", repr({"tombstone": key, "again": True}))
    ]
    assert user not in raw[0]  # ten minutes in Redis (and its AOF): the task names the tombstone only
    assert queued[0]["headers"]["eta"] is not None  # after the hard time limit
    get_redis().delete(queue)


@pytest.mark.integration
def test_the_gateway_forgets_a_user_through_a_worker_and_their_next_message_is_refused(start_worker, outbox):
    from adapters.redis_conn import get_redis
    from gateway.client import enqueue_message, forget_user

    from .conftest import wait_for

    start_worker()
    user, canary = f"gw-{uuid.uuid4().hex[:8]}", f"canary-{uuid.uuid4().hex}"
    enqueue_message(message_id=f"m-{uuid.uuid4().hex}", user_id=user, text=canary, sent_at=NOW)
    wait_for(lambda: [e for e in outbox() if e.user_id == user], 60, what="the reply")
    forget_user(user_id=user)
    wait_for(lambda: not [e for e in outbox() if e.user_id == user], 60, what="the reply erased from the stream")
    wait_for(lambda: "users" not in tables_mentioning(user), 60, what="the user row erased")

    enqueue_message(message_id=f"m-{uuid.uuid4().hex}", user_id=user, text=canary, sent_at=NOW)

    def refused() -> bool:
        with autocommit_scope() as s:
            return s.scalar(select(func.count()).where(DeadLetter.reason == FORGOTTEN_REASON)) == 1

    wait_for(refused, 60, what="the late message dead-lettered")
    wait_for(lambda: redis_mentioning(get_redis(), canary, user) == [], 60, what="the inbox entry gone")
    assert [e for e in outbox() if e.user_id == user] == []
    wait_for(lambda: tables_mentioning(canary, user) == {}, 60, what="what the first message's tasks wrote, erased")
    from models.erasure import tombstone_key

    key = tombstone_key(user, get_settings().forget_hmac_key.get_secret_value())[:12]

    def second_pass_ran() -> bool:
        logs = (get_settings().var_path / "log").glob("*.log")
        return any(key in line and "second pass" in line for path in logs for line in path.read_text().splitlines())

    wait_for(second_pass_ran, 60, what="the second pass")
    assert log_mentions(canary, user) == 0  # the worker's log, scrubbed by the second pass


def test_a_failing_task_of_an_erased_user_leaves_a_dead_letter_without_their_id_or_words(migrated_db):
    """A perceive or fact extraction a worker held while the erasure ran fails on the missing user later; its
    dead letter keeps the task name and the tombstone's key, not the kwargs or a reason quoting them."""
    from tasks.memory import perceive

    user, canary = f"late-{uuid.uuid4().hex[:8]}", f"canary-{uuid.uuid4().hex}"
    forget(user, again=True)
    kwargs = {"user_id": user, "message_id": f"m-{uuid.uuid4().hex}"}
    rejected = perceive.dead_letter(f"failed: KeyError: {canary}", [], kwargs)
    assert canary not in str(rejected) and user not in str(rejected)
    with autocommit_scope() as s:
        rows = s.scalars(select(DeadLetter)).all()
    assert len(rows) == 1 and rows[0].task_name == perceive.name and rows[0].user_id is None
    assert canary not in rows[0].reason + rows[0].payload and user not in rows[0].payload
    assert tables_mentioning(canary, user) == {}


def test_a_conversation_closing_while_its_user_is_erased_ends_quietly_with_no_dead_letter(migrated_db, monkeypatch):
    """The memo's model call runs outside a transaction: the erasure can delete the user (and the conversation)
    meanwhile, and the chat node's insert then fails on the missing user. That is the erasure winning, not a
    fault: nothing is stored, nothing is dead-lettered (a raw foreign-key error quoting the ids was)."""
    from datetime import timedelta

    import tasks.conversations
    from ella.reply import OutgoingReply
    from models.turns import store_exchange
    from tasks.conversations import close_conversation

    user, canary = f"closing-{uuid.uuid4().hex[:8]}", f"canary-{uuid.uuid4().hex}"
    with session_scope() as s:
        record = store_exchange(s, message_id=f"m-{uuid.uuid4().hex}", user_id=user, text=canary, sent_at=NOW,
                                external_conversation_id=None, reply=OutgoingReply("Tell me more"),
                                timeout=timedelta(minutes=30), user_defaults={}, task_id=None).record  # fmt: skip
        conv = s.get(Conversation, record.conversation_id)
        conv.closed_at, conv.close_reason = NOW + timedelta(minutes=30), "inactive"
    real_notes = tasks.conversations.closing_notes

    def erased_during_the_call(*args, **kwargs):
        notes = real_notes(*args, **kwargs)
        forget(user)
        return notes

    monkeypatch.setattr(tasks.conversations, "closing_notes", erased_during_the_call)

    assert close_conversation.apply(kwargs={"conversation_id": record.conversation_id}).get() == 0

    with autocommit_scope() as s:
        assert s.scalars(select(DeadLetter.reason)).all() == []
    forget(user)  # the second pass: what the task wrote after the first (its model call's usage row)
    assert tables_mentioning(canary, user) == {}


def test_a_second_pass_the_broker_lost_is_run_by_the_sweep_once_due_and_acked_once(migrated_db, outbox):
    """The first pass records the second one it owes on the tombstone; the countdown task is only the fast path.
    Its loss (a Redis restart without AOF, a kill within the fsync second) is modelled by deleting the queue."""
    from sqlalchemy import update

    from adapters.redis_conn import get_redis
    from tasks.privacy import forget_user, forget_users_again

    queue = get_settings().queue_inbound
    get_redis().delete(queue)
    user, canary = f"lost-{uuid.uuid4().hex[:8]}", f"canary-{uuid.uuid4().hex}"
    plant_rows(user, canary)
    first = forget_user.apply(kwargs={"user": user})
    key = tombstone_key(user, get_settings().forget_hmac_key.get_secret_value())
    get_redis().delete(queue)  # the countdown task, lost with the broker
    with session_scope() as s:
        s.add(User(id=user))  # a task in flight, past its tombstone check, wrote after the first pass
        s.flush()
        s.add(SelfLogEntry(user_id=user, content=canary))

    assert forget_users_again.apply().get() == 0  # not due yet: tasks in flight may still be writing
    with session_scope() as s:
        s.execute(update(ForgottenUser).values(second_pass_due_at=NOW))  # the hard time limit has passed
    assert forget_users_again.apply().get() == 1

    with autocommit_scope() as s:
        tomb = s.get(ForgottenUser, key)
        assert tomb.pending_user_id is None and tomb.second_pass_done_at is not None
        assert s.scalar(select(func.count()).select_from(User)) == 0
    assert tables_mentioning(canary, user) == {}
    assert forget_users_again.apply().get() == 0  # done once
    assert forget_user.apply(kwargs={"tombstone": key, "again": True}).get() == {}  # the fast path, late: nothing
    acks = [(e.code, e.outbox_id) for e in outbox() if e.kind == "ack" and e.in_reply_to == key[:12]]
    assert acks == [
        ("erased", f"ack:ella.forget_user:{first.id}:erased"),
        ("second_pass_done", f"ack:ella.forget_user:{first.id}:second_pass_done"),
    ]

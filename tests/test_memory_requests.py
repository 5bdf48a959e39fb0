"""The gateway's requests over one user's memory, through a real worker and the outbox stream, on SQLite and
PostgreSQL: export everything, forget one item by id, correct one fact, and the refusals (an unknown id, another
user's id, something already forgotten, a correction into Ella's world, a malformed request, an unknown user),
each answered once on the stream with nothing changed."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import func, select

from adapters.db import autocommit_scope
from gateway.client import correct_fact, enqueue_message, export_user, forget_memory
from models import Base, DeadLetter, MemoryNode, WorldFact
from tests.conftest import wait_for

pytestmark = pytest.mark.integration


def rows_of(user: str, needle: str) -> dict[str, int]:
    """The user's rows, per table, that carry ``needle`` in any column (every table with a user id)."""
    found: dict[str, int] = {}
    with autocommit_scope() as s:
        for table in Base.metadata.sorted_tables:
            if "user_id" not in table.c:
                continue
            for row in s.execute(select(table).where(table.c.user_id == user)):
                if needle in " ".join(map(str, row)):
                    found[table.name] = found.get(table.name, 0) + 1
    return found


def answer(outbox, request_id: str) -> dict[str, Any]:
    entry = wait_for(
        lambda: next((e for e in outbox() if e.kind == "answer" and e.in_reply_to == request_id), None),
        60,
        what=f"the answer to {request_id}",
    )
    body = json.loads(entry.text)
    assert entry.category == ("done" if body["status"] == "done" else "refused")
    return body


def rid() -> str:
    return f"r-{uuid.uuid4().hex[:12]}"


def test_export_forget_and_correct_through_the_gateway_and_every_refusal_is_answered(start_worker, outbox):
    start_worker()
    user, other = f"gw-{uuid.uuid4().hex[:8]}", f"gwo-{uuid.uuid4().hex[:8]}"
    canary = "quetzalcanary"
    now = datetime.now(UTC) - timedelta(minutes=20)
    told = f"m-{uuid.uuid4().hex[:8]}"
    enqueue_message(message_id=told, user_id=user, text=f"My sister is called Mia, codename {canary}.", sent_at=now)
    enqueue_message(
        message_id=rid(), user_id=user, text="I work as a lighthousekeeper.", sent_at=now + timedelta(minutes=1)
    )
    enqueue_message(message_id=rid(), user_id=other, text="My brother is called Tom.", sent_at=now)

    def facts(u: str) -> list[WorldFact]:
        with autocommit_scope() as s:
            return list(s.scalars(select(WorldFact).where(WorldFact.user_id == u)))

    def node_of(u: str, message_id: str | None = None) -> MemoryNode | None:
        with autocommit_scope() as s:
            query = select(MemoryNode).where(MemoryNode.user_id == u, MemoryNode.node_type == "event")
            if message_id:
                query = query.where(MemoryNode.source_message_id == message_id)
            return s.scalars(query).first()

    wait_for(lambda: {"user.sister", "user"} <= {f.subject for f in facts(user)}, 60, what="the user's facts")
    wait_for(lambda: node_of(user, told) and node_of(other), 60, what="the turns perceived")
    event = node_of(user, told)
    assert event is not None and canary in event.description

    # export: one JSON document of everything Ella holds about the user, and nothing of anyone else
    export_user(request_id=(r1 := rid()), user_id=user)
    exported = answer(outbox, r1)
    assert exported["status"] == "done"
    document = exported["export"]
    assert document["user_id"] == user and document["profile"] is not None
    assert any(c["about"] == "user" for c in document["facts"])
    assert any(canary in m["description"] for m in document["memories"])
    assert other not in json.dumps(document)
    replies = [m["reply"] for c in document["conversations"] for m in c["messages"] if m.get("reply")]
    assert replies and all(isinstance(r["seen"], dict) for r in replies)  # what each reply saw (empty: nothing yet)
    export_user(request_id=(r1b := rid()), user_id=user)
    assert json.dumps(answer(outbox, r1b)["export"]).count("ella-export") == 1  # an earlier export is not nested

    # forget one memory by id: it and what holds its words go, the rest stays
    forget_memory(request_id=(r2 := rid()), user_id=user, item=f"memory:{event.id}", reason="please")
    forgotten = answer(outbox, r2)
    assert forgotten["status"] == "done" and event.id in forgotten["forgotten"]["memories"]
    assert rows_of(user, canary) == {}, "the canary is in none of the user's rows"
    assert not [e for e in outbox() if e.user_id == user and canary in e.text], "nor on the stream (the export too)"
    assert node_of(user) is not None  # the other memory stays
    assert node_of(other) is not None and rows_of(other, "Tom")  # and the other user's

    forget_memory(request_id=r2, user_id=user, item=f"memory:{event.id}")  # the same request again: one answer
    forget_memory(request_id=(r3 := rid()), user_id=user, item=f"memory:{event.id}")
    assert answer(outbox, r3)["error"] == "already_forgotten"
    assert len([e for e in outbox() if e.in_reply_to == r2]) == 1

    theirs = node_of(other)
    assert theirs is not None
    forget_memory(request_id=(r4 := rid()), user_id=user, item=f"memory:{theirs.id}")
    assert answer(outbox, r4)["error"] == "unknown_item"
    forget_memory(request_id=(r5 := rid()), user_id=user, item="memory:987654321")
    assert answer(outbox, r5)["error"] == "unknown_item"
    assert node_of(other) is not None

    # correct one fact: superseded, history kept
    job = next(f for f in facts(user) if f.predicate == "works_as" and f.status == "active")
    correct_fact(request_id=(r6 := rid()), user_id=user, item=f"fact:{job.id}", value="harbour master")
    corrected = answer(outbox, r6)
    assert corrected["status"] == "done" and corrected["value"] == "harbour master"
    by_id = {f.id: f for f in facts(user)}
    assert by_id[job.id].status == "superseded"
    assert by_id[int(corrected["new_item"].split(":")[1])].object == "harbour master"

    canon = next(f for f in facts(user) if f.tier == "canon" and f.status == "active")
    correct_fact(request_id=(r7 := rid()), user_id=user, item=f"fact:{canon.id}", value="blue")
    assert answer(outbox, r7)["error"] == "user_words_into_canon"
    assert {f.id: f for f in facts(user)}[canon.id].status == "active"

    # a malformed request is refused on the stream and dead-lettered; an unknown user is refused too
    forget_memory(request_id=(r8 := rid()), user_id=user, item="node:3")
    assert answer(outbox, r8)["error"] == "malformed"
    with autocommit_scope() as s:
        assert s.scalar(
            select(func.count()).select_from(DeadLetter).where(DeadLetter.task_name == "ella.forget_memory")
        )
    export_user(request_id=(r9 := rid()), user_id=f"nobody-{uuid.uuid4().hex[:6]}")
    assert answer(outbox, r9)["error"] == "unknown_user"


def test_an_erased_users_malformed_request_is_refused_without_naming_them(migrated_db, outbox):
    from adapters.db import session_scope
    from adapters.settings import get_settings
    from models.erasure import bury, tombstone_key
    from tasks.memory_requests import refuse_malformed

    user, request_id = f"gone-{uuid.uuid4().hex[:8]}", rid()
    with session_scope() as s:
        bury(s, tombstone_key(user, get_settings().forget_hmac_key.get_secret_value()))
    refuse_malformed({"user_id": user, "request_id": request_id, "item": "node:1"}, "forget", "item: bad")
    body = answer(outbox, request_id)
    assert body["error"] == "malformed"
    assert not [e for e in outbox() if user in e.to_fields().values() or user in e.text]

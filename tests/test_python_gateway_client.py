"""``clients/python`` (the ``ella_gateway`` package): the gateway's client with nothing of the back end, driving
every gateway task through a real worker and reading the stream with its own reader (the contract of
docs/gateway.md, as ``clients/node`` is tested against it too)."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from adapters.db import autocommit_scope
from models import InboundMessage, User
from tests.conftest import wait_for

BACK_END = ("workers", "tasks", "models", "ella", "adapters", "cli", "operator_page", "demo", "gateway")
BACK_END += ("sqlalchemy", "pydantic_settings", "anthropic", "alembic")


def test_the_client_imports_nothing_of_the_back_end():
    probe = f"import sys, ella_gateway; print(sorted({{m.split('.')[0] for m in sys.modules}} & set({BACK_END!r})))"
    found = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.strip()
    assert found == "[]"


@pytest.mark.integration
def test_every_gateway_task_from_the_client_is_answered_once_on_the_stream(start_worker):
    from ella_gateway import Gateway

    start_worker()
    gateway = Gateway.from_env()
    user = f"py-{uuid.uuid4().hex[:8]}"
    now = datetime.now(UTC) - timedelta(minutes=5)
    ids = [f"m-{uuid.uuid4().hex[:8]}" for _ in range(3)]
    for i, message_id in enumerate(ids):
        gateway.enqueue_message(message_id=message_id, user_id=user, text=f"hello number {i}",
                                sent_at=now + timedelta(seconds=i), conversation_id="py-conv")  # fmt: skip
    gateway.enqueue_message(message_id=ids[0], user_id=user, text="hello number 0", sent_at=now)  # a repeat
    profile = {"timezone": "Europe/Berlin", "locale": "de_DE", "is_minor": False, "do_not_disturb": None,
               "active_hours": "09:00-21:00", "notifications": True}  # fmt: skip
    gateway.update_profile(user_id=user, updated_at=datetime.now(UTC), **profile)
    requests = {name: f"r-{uuid.uuid4().hex}" for name in ("export", "forget", "correct")}
    gateway.export_user(request_id=requests["export"], user_id=user)
    gateway.forget_memory(request_id=requests["forget"], user_id=user, item="memory:987654321")
    gateway.correct_fact(request_id=requests["correct"], user_id=user, item="fact:987654321", value="x")
    reader = gateway.outbox_reader(f"gw-{uuid.uuid4().hex[:6]}", "gw-1")
    seen: list[dict[str, str]] = []

    def collected() -> bool:
        got = reader.read(block_ms=200)
        reader.ack(*got)  # everything read is acknowledged, this user's or not
        seen.extend(e for e in got if e.get("user_id") == user)
        answered = {e["in_reply_to"] for e in seen}
        return set(ids) <= answered and set(requests.values()) <= answered

    wait_for(collected, 90, what="every reply and answer")
    replies = [e for e in seen if e["kind"] == "reply"]
    assert sorted(e["in_reply_to"] for e in replies) == sorted(ids)  # each once, the repeat changed nothing
    assert {e["conversation_id"] for e in replies} == {"py-conv"}
    answers = {e["route"]: json.loads(e["text"]) for e in seen if e["kind"] == "answer"}
    assert answers["export"]["status"] == "done" and answers["export"]["export"]["user_id"] == user
    assert answers["forget"]["error"] == "unknown_item" and answers["correct"]["error"] == "unknown_item"
    assert gateway.redis.xpending(gateway.config.outbox_stream, reader.group)["pending"] == 0
    with autocommit_scope() as s:
        assert s.get(User, user).timezone == "Europe/Berlin"  # type: ignore[union-attr]
        assert len(list(s.scalars(select(InboundMessage.id).where(InboundMessage.user_id == user)))) == 3

    gateway.forget_user(user_id=user)

    def erased() -> bool:
        with autocommit_scope() as s:
            return s.get(User, user) is None

    wait_for(erased, 60, what="the user erased")

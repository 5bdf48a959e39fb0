"""The weekly contested-fact run: one bad user never stops it for the others, and a rerun writes nothing twice.

The reproduced hole: a 400 (or a 529 that outlasted its retries) for one user dead-lettered the whole page,
with a payload that named no user, and every later user of the page stayed contested, every week.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime

import pytest
from sqlalchemy import select

from adapters.db import autocommit_scope, session_scope
from adapters.settings import Settings, get_settings
from ella.ledger.rules import Writer
from ella.llm.port import ModelPort
from ella.llm.types import CompletionRequest, PermanentModelError, TransientModelError
from models import DeadLetter, User, WorldFact
from models.ledger import NewFact, append
from models.review import open_reviews
from tests.support.scripted import Scripted

T0 = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)


def contested_users(count: int) -> list[str]:
    """``count`` users (in id order), each with one contest: two inferred pets of one tier."""
    run = uuid.uuid4().hex[:6]
    users = [f"k{run}-{i}" for i in range(count)]
    with session_scope() as s:
        for user in users:
            s.add(User(id=user, timezone="UTC"))
        s.flush()
        for user in users:
            for pet in ("Rex", "Max"):
                append(s, user, NewFact("user.pet", "name", pet, "inferred"), Writer.USER, T0)
    return users


def model_failing_for(refused: str, overloaded: str) -> Scripted:
    def answer(request: CompletionRequest) -> str:
        if request.user_id == refused:
            raise PermanentModelError("400 invalid_request_error: prompt is too long", status=400)
        if request.user_id == overloaded:
            raise TransientModelError("529 overloaded_error", status=529)
        return json.dumps({"winner": 1, "reason": "the first is newer"})

    return Scripted(answer)


def statuses(user: str) -> set[str]:
    with autocommit_scope() as s:
        return set(
            s.scalars(select(WorldFact.status).where(WorldFact.user_id == user, WorldFact.subject == "user.pet"))
        )


def dead_letters() -> list[DeadLetter]:
    with autocommit_scope() as s:
        return list(s.scalars(select(DeadLetter).order_by(DeadLetter.id)))


@pytest.fixture
def no_task_retries(monkeypatch: pytest.MonkeyPatch):
    """Celery retries of a transient error run inline under ``apply``; the run must not depend on them."""
    monkeypatch.setenv("ELLA_LLM_TASK_MAX_RETRIES", "0")
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def test_a_refused_and_an_overloaded_user_do_not_stop_the_run_and_each_dead_letter_names_its_user(
    migrated_db, monkeypatch, no_task_retries
):
    import tasks.ledger
    from tasks.ledger import resolve_contested_facts

    users = contested_users(6)
    refused, overloaded = users[0], users[2]
    model = model_failing_for(refused, overloaded)
    monkeypatch.setattr(tasks.ledger, "get_port", lambda: ModelPort(model, Settings().model_tiers, max_repairs=1))

    first = resolve_contested_facts.apply().get()

    good = [u for u in users if u not in (refused, overloaded)]
    assert all(statuses(u) == {"active", "superseded"} for u in good), [statuses(u) for u in users]
    assert first["resolved"] == 4 and first["users"] == 6
    assert statuses(overloaded) == {"contested"}  # left for the next run, not given to a person
    with autocommit_scope() as s:
        (review,) = open_reviews(s, refused)  # a refused request will fail again: a person decides
        assert "model refused" in review.reason and not open_reviews(s, overloaded)
    letters = dead_letters()
    assert {d.user_id for d in letters} == {refused, overloaded}
    assert all(d.task_name == "ella.resolve_contested_facts" for d in letters)
    assert all(json.loads(d.payload)["kwargs"]["user_id"] == d.user_id for d in letters)

    calls = len(model.requests)
    second = resolve_contested_facts.apply().get()  # the next beat (or a redelivery of the same page)
    assert second["resolved"] == 0 and second["queued"] == 0
    assert len(model.requests) == calls + 1  # only the overloaded user is asked again
    with autocommit_scope() as s:
        assert len(open_reviews(s, refused)) == 1
    assert [d.user_id for d in dead_letters()].count(refused) == 1  # nothing about the refused user twice


def test_a_user_another_run_is_working_on_is_left_to_it_and_resolved_by_the_next_run(migrated_db, monkeypatch):
    import tasks.ledger
    from adapters.redis_conn import get_redis
    from tasks.ledger import contests_lock_key, resolve_contested_facts

    users = contested_users(3)
    busy = users[1]
    model = Scripted(lambda request: json.dumps({"winner": 1, "reason": "the first is newer"}))
    monkeypatch.setattr(tasks.ledger, "get_port", lambda: ModelPort(model, Settings().model_tiers, max_repairs=1))
    get_redis().set(contests_lock_key(busy), "another-run", ex=60)  # a second beat's run is on this user
    try:
        first = resolve_contested_facts.apply().get()
    finally:
        get_redis().delete(contests_lock_key(busy))
    assert first["busy"] == 1 and first["resolved"] == 2
    assert busy not in {r.user_id for r in model.requests} and statuses(busy) == {"contested"}
    assert resolve_contested_facts.apply().get()["resolved"] == 1 and statuses(busy) == {"active", "superseded"}

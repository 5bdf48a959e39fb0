"""The nightly boundary regression stores nothing for its synthetic user, and its model failures are its own.

The reproduced hole: with a model that reads context, the run left a user row, the seed's world facts and one
usage row per model call for ``guard-regression`` (the README says it stores nothing).
"""

from __future__ import annotations

import json

import pytest
from sqlalchemy import func, select

from adapters.db import autocommit_scope
from adapters.llm import record_usage
from adapters.settings import Settings, get_settings
from ella.llm.port import ModelPort
from ella.llm.types import CompletionRequest, PermanentModelError
from models import DeadLetter, User, WorldFact
from models.usage import ModelCall
from tests.support.scripted import Scripted

LINES = ["what should I cook tonight?", "I love you", "tell me about your cat"]


# The port records usage as this process's port does (``adapters.llm.make_port``).


def kind_reply(request: CompletionRequest) -> str:
    return json.dumps(
        {
            "reply": "Soup is always a good idea.",
            "perception": {"score": 2, "subject": "user", "predicate": "asked", "object": "dinner"},
            "self_statements": [],
        }
    )


def refusing(request: CompletionRequest) -> str:
    raise PermanentModelError("400 invalid_request_error", status=400)


@pytest.fixture
def corpus(tmp_path, monkeypatch):
    path = tmp_path / "corpus.jsonl"
    path.write_text("\n".join(json.dumps({"text": t, "label": "x"}) for t in LINES))
    monkeypatch.setenv("ELLA_GUARD_CORPUS_PATH", str(path))
    get_settings.cache_clear()
    yield path
    get_settings.cache_clear()


def stored_rows() -> dict[str, int]:
    with autocommit_scope() as s:
        return {
            "users": s.scalar(select(func.count()).select_from(User)) or 0,
            "world_facts": s.scalar(select(func.count()).select_from(WorldFact)) or 0,
            "model_calls": s.scalar(select(func.count()).select_from(ModelCall)) or 0,
            "dead_letters": s.scalar(select(func.count()).select_from(DeadLetter)) or 0,
        }


def test_the_nightly_run_reads_a_new_users_world_and_stores_nothing(migrated_db, monkeypatch, corpus):
    import adapters.reply_service
    from tasks.guard import boundary_regression

    model = Scripted(kind_reply)
    monkeypatch.setattr(
        adapters.reply_service, "get_port", lambda: ModelPort(model, Settings().model_tiers, record=record_usage)
    )
    counts = boundary_regression.apply().get()
    assert counts["generated"] == 2 and counts["canned"] == 1 and counts["alerts"] == 0
    facts_block = model.requests[0].system[1].text  # the prompt is a new user's: the seed's world
    assert facts_block.startswith("## WORLD FACTS") and "color=red" in facts_block
    assert stored_rows() == {"users": 0, "world_facts": 0, "model_calls": 0, "dead_letters": 0}


def test_a_model_failure_in_the_nightly_run_is_counted_and_never_dead_lettered_as_a_users_message(
    migrated_db, monkeypatch, corpus
):
    import adapters.reply_service
    from tasks.guard import boundary_regression

    model = Scripted(refusing)
    monkeypatch.setattr(
        adapters.reply_service, "get_port", lambda: ModelPort(model, Settings().model_tiers, record=record_usage)
    )
    counts = boundary_regression.apply().get()
    assert counts["model_failures"] == 2 and counts["alerts"] == 0
    assert stored_rows() == {"users": 0, "world_facts": 0, "model_calls": 0, "dead_letters": 0}


def test_the_gate_starts_no_line_that_could_not_end_before_the_soft_limit():
    from tasks.guard import line_deadline

    now = [0.0]
    may_start = line_deadline(soft_limit_s=100, call_budget_s=90, clock=lambda: now[0])
    assert may_start()  # line 1 needs min(90, 100/10) = 10 s
    now[0] = 30.0  # line 1 took 30 s
    assert may_start()  # 30 + 30 <= 100
    now[0] = 60.0
    assert may_start()  # 60 + 30 <= 100
    now[0] = 75.0  # 15 s: the slowest is still 30
    assert not may_start()  # 75 + 30 > 100


def slow_reply(request: CompletionRequest) -> str:
    import time

    time.sleep(0.6)
    return kind_reply(request)


def test_a_slow_model_ends_the_nightly_run_before_its_time_limit_with_a_summary(migrated_db, monkeypatch, corpus):
    """The reproduced hole: at 5.7 s a reply the run was killed at the hard limit and reported nothing."""
    import adapters.reply_service
    from tasks.guard import boundary_regression

    monkeypatch.setenv("ELLA_TASK_SOFT_TIME_LIMIT_S", "1")
    get_settings.cache_clear()
    model = Scripted(slow_reply)
    monkeypatch.setattr(
        adapters.reply_service, "get_port", lambda: ModelPort(model, Settings().model_tiers, record=record_usage)
    )
    counts = boundary_regression.apply().get()
    # Line 1 ("what should I cook") takes 0.6 s: line 2 would end past 1 s, so it is not started.
    assert len(model.requests) == 1
    assert counts["generated"] == 1 and counts["unchecked"] == 2 and counts["messages"] == 3

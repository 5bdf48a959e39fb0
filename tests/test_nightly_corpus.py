"""The nightly boundary regression stores nothing for its synthetic user, and its model failures are its own.

The reproduced hole: with a model that reads context, the run left a user row, the seed's world facts and one
usage row per model call for ``guard-regression`` (the README says it stores nothing).
"""

from __future__ import annotations

import json

import pytest
from sqlalchemy import func, select

from ella.llm.port import ModelPort
from ella.llm.types import CompletionRequest, PermanentModelError
from models import DeadLetter, User, WorldFact
from models.usage import ModelCall
from tests.support.scripted import Scripted
from workers.db import autocommit_scope
from workers.llm import record_usage
from workers.settings import Settings, get_settings

LINES = ["what should I cook tonight?", "I love you", "tell me about your cat"]


# The port records usage as this process's port does (``workers.llm.make_port``).


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
    import workers.reply_service
    from tasks.guard import boundary_regression

    model = Scripted(kind_reply)
    monkeypatch.setattr(
        workers.reply_service, "get_port", lambda: ModelPort(model, Settings().model_tiers, record=record_usage)
    )
    counts = boundary_regression.apply().get()
    assert counts["generated"] == 2 and counts["canned"] == 1 and counts["alerts"] == 0
    facts_block = model.requests[0].system[1].text  # the prompt is a new user's: the seed's world
    assert facts_block.startswith("## WORLD FACTS") and "color=red" in facts_block
    assert stored_rows() == {"users": 0, "world_facts": 0, "model_calls": 0, "dead_letters": 0}


def test_a_model_failure_in_the_nightly_run_is_counted_and_never_dead_lettered_as_a_users_message(
    migrated_db, monkeypatch, corpus
):
    import workers.reply_service
    from tasks.guard import boundary_regression

    model = Scripted(refusing)
    monkeypatch.setattr(
        workers.reply_service, "get_port", lambda: ModelPort(model, Settings().model_tiers, record=record_usage)
    )
    counts = boundary_regression.apply().get()
    assert counts["model_failures"] == 2 and counts["alerts"] == 0
    assert stored_rows() == {"users": 0, "world_facts": 0, "model_calls": 0, "dead_letters": 0}

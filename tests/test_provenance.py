"""Provenance: what made each row of Ella's inner life, and what a real model is never shown (issue 21).

The rule pinned here (``ella.provenance.shown_in_prompts``, ``models.provenance.in_prompts``): when the running
engine is a model, the thoughts, chapters and arcs the offline engine made are left out of its prompts (they are
a rule's templates, not insights), while the user's own words (event nodes, whatever engine scored them) and
rows older than provenance (NULL) stay. The offline engine itself is shown everything.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta

import pytest

from adapters.db import autocommit_scope, session_scope
from adapters.embedding_cache import shared_embedder
from adapters.settings import Settings, get_settings
from ella.contract import IngestPayload
from ella.llm.kinds import Memo
from ella.llm.offline import OfflineProvider
from ella.llm.port import ModelPort
from ella.llm.prompts import prompt_version
from ella.memory.nodes import Triple, memory_node
from ella.provenance import RULES, Provenance, by_rule, label, shown_in_prompts
from models.arcs import add_arc, current_arc
from models.chapters import add_chapter, latest_chapter
from models.memory import insert_node, node_rows
from models.user import User
from tests.support.fake_anthropic import FakeAnthropic

NOW = datetime(2026, 12, 1, 18, 0, tzinfo=UTC)
OFFLINE_INSIGHT = Provenance("offline", "offline", "insights", prompt_version("insights"))
MODEL_INSIGHT = Provenance("anthropic", "claude-sonnet-4-6", "insights", prompt_version("insights"))
OFFLINE_REPLY = Provenance("offline", "offline", "reply", prompt_version("reply"))


def test_a_port_result_says_which_engine_model_kind_and_prompt_version_made_it():
    result = ModelPort(OfflineProvider(), Settings().model_tiers).call(Memo, {"name": "sam", "transcript": ["sam: hi"]})
    assert result.provenance == Provenance("offline", "offline", "memo", prompt_version("memo"))
    assert result.provenance.columns() == {
        "engine": "offline",
        "model_id": "offline",
        "prompt_kind": "memo",
        "prompt_version": prompt_version("memo"),
    }


def test_the_prompt_version_is_a_hash_that_changes_with_the_kinds_prompt_and_differs_between_kinds():
    versions = {kind: prompt_version(kind) for kind in ("reply", "memo", "insights", "digest")}
    assert len(set(versions.values())) == 4 and all(len(v) == 12 for v in versions.values())
    prompt_version.cache_clear()
    assert prompt_version("reply") == versions["reply"]  # stable: the same files give the same version


def test_a_provenance_survives_the_task_payload_and_a_malformed_one_is_refused():
    assert Provenance.from_payload(OFFLINE_REPLY.columns()) == OFFLINE_REPLY
    assert Provenance.from_payload({"engine": 3}) is None and Provenance.from_payload(None) is None
    assert label(None, None, None, None) == "unknown"
    assert by_rule("chat_node").label == "rules chat_node@rules"


@pytest.mark.parametrize(
    ("running", "made_by", "what", "shown"),
    [
        ("anthropic", "offline", "thought", False),
        ("anthropic", "offline", "story_chapters", False),
        ("anthropic", "offline", "relationship_arcs", False),
        ("anthropic", "offline", "event", True),  # the user's own words stay
        ("anthropic", "offline", "world_facts", True),
        ("anthropic", None, "thought", True),  # older than provenance: nothing says it was rule-made
        ("anthropic", "anthropic", "thought", True),
        ("anthropic", RULES, "chat", True),
        ("offline", "offline", "thought", True),  # the offline engine sees what it made
    ],
)
def test_which_rows_a_prompt_may_show(running, made_by, what, shown):
    assert shown_in_prompts(running, made_by, what) is shown


def _user() -> str:
    user = f"p-{uuid.uuid4().hex[:8]}"
    with session_scope() as s:
        s.add(User(id=user, timezone="UTC"))
    return user


def _node(user: str, node_type: str, text: str, made_by: Provenance | None, at: datetime) -> int:
    draft = memory_node(
        shared_embedder(),
        user_id=user,
        node_type=node_type,  # type: ignore[arg-type]
        description=text,
        at=at,
        triple=Triple(user, "has", text[:60]),
        poignancy=6,
        dedupe_key=f"test:{uuid.uuid4().hex}",
        provenance=made_by or OFFLINE_REPLY,
    )
    columns = draft.columns()
    if made_by is None:  # a row stored before migration 0014
        columns.update(engine=None, model_id=None, prompt_kind=None, prompt_version=None)
    with session_scope() as s:
        node_id = insert_node(s, columns)
    assert node_id is not None
    return node_id


def _story(user: str) -> dict[str, int]:
    """An event, three thoughts (offline-made, model-made, pre-provenance) and an offline chapter and arc."""
    ids = {
        "event": _node(user, "event", "I adopted a greyhound called Biscuit", OFFLINE_REPLY, NOW - timedelta(days=40)),
        "offline": _node(
            user, "thought", "sam keeps coming back to biscuit", OFFLINE_INSIGHT, NOW - timedelta(days=39)
        ),
        "model": _node(user, "thought", "Biscuit the greyhound steadies Sam", MODEL_INSIGHT, NOW - timedelta(days=38)),
        "legacy": _node(user, "thought", "Biscuit sleeps on Sam's sofa", None, NOW - timedelta(days=37)),
    }
    with session_scope() as s:
        add_chapter(
            s,
            {
                "user_id": user,
                "period": "2026-W44",
                "period_start": NOW - timedelta(days=35),
                "period_end": NOW - timedelta(days=28),
                "title": "Offline chapter Zanzibar",
                "summary": "A rule-made summary about Zanzibar.",
                "key_moments": [{"text": "Biscuit", "node_ids": [ids["event"]]}],
                "cited_node_ids": [ids["event"]],
                **Provenance("offline", "offline", "chapter_distillation", "x").columns(),
            },
        )
        add_arc(
            s,
            {
                "user_id": user,
                "period": "2026-10",
                "stage": "warming",
                "trajectory": "rising",
                "mindful_of": "Offline arc Kilimanjaro advice",
                **Provenance("offline", "offline", "relationship_arc", "x").columns(),
            },
        )
    return ids


def _run_engine(monkeypatch: pytest.MonkeyPatch, engine: str, base_url: str = "") -> None:
    monkeypatch.setenv("ELLA_LLM_PROVIDER", engine)
    if engine == "anthropic":
        monkeypatch.setenv("ELLA_ANTHROPIC_API_KEY", "test-key")
        monkeypatch.setenv("ELLA_ANTHROPIC_BASE_URL", base_url)
    get_settings.cache_clear()


def test_the_loaders_leave_offline_thoughts_chapters_and_arcs_out_only_when_a_model_runs(migrated_db, monkeypatch):
    user = _user()
    ids = _story(user)
    _run_engine(monkeypatch, "offline")
    with autocommit_scope() as s:
        assert {r.id for r in node_rows(s, user)} == set(ids.values())
        assert latest_chapter(s, user) is not None and current_arc(s, user) is not None
    _run_engine(monkeypatch, "anthropic", "http://127.0.0.1:9")
    with autocommit_scope() as s:
        assert {r.id for r in node_rows(s, user)} == {ids["event"], ids["model"], ids["legacy"]}
        assert latest_chapter(s, user) is None and current_arc(s, user) is None


def test_a_real_model_reply_is_never_shown_what_the_offline_engine_made_but_keeps_the_users_words(
    migrated_db, monkeypatch
):
    """The whole reply path (``tasks.ingest.ingest``: context loaded from the database, the SDK, the loopback
    API) after a stretch on the offline engine: the recorded request holds the user's event, the model's thought
    and the pre-provenance thought, and none of the offline thought, chapter or arc."""
    import adapters.llm
    from tasks.ingest import ingest

    user = _user()
    ids = _story(user)
    with FakeAnthropic() as fake:
        _run_engine(monkeypatch, "anthropic", fake.base_url)
        monkeypatch.setattr(adapters.llm, "_port", None)  # this process's port, made again for the new settings
        message_id = uuid.uuid4().hex
        _stream, memory = ingest(
            IngestPayload(message_id=message_id, user_id=user, text="How is Biscuit doing lately?", sent_at=NOW),
            task_id=None,
        )
        replies = [r for r in fake.message_requests if '<task kind="reply">' in r["body"]["system"][0]["text"]]
    assert replies, "no reply request reached the loopback API"
    sent = json.dumps(replies[-1]["body"])
    assert "I adopted a greyhound called Biscuit" in sent
    assert "Biscuit the greyhound steadies Sam" in sent and "Biscuit sleeps on Sam" in sent
    assert "sam keeps coming back to biscuit" not in sent
    assert "Zanzibar" not in sent and "Kilimanjaro" not in sent
    # and the turn's memory task is told which call made its perception
    made = Provenance.from_payload(memory["provenance"])
    assert made is not None and made.engine == "anthropic" and made.prompt_kind == "reply"
    assert made.prompt_version == prompt_version("reply") and ids

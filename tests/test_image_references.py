"""The first reference draws the picture: Ella's reply names her door or her cat, and only then is it drawn.

What is pinned: which of Ella's words are a reference (hers, not the user's); a reference through the real
ingest path emits the drawing task; the task draws each named entity once from the world's canon look,
draws nothing for an entity already drawn, and draws version 2 only after a canon supersession of that look.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime

import pytest
from sqlalchemy import select

from adapters.db import session_scope
from ella.ledger.facts import NewFact
from ella.ledger.rules import Tier, Writer
from ella.world import images
from models import User
from models.images import ImageAnchorRow
from models.ledger import current

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
DOOR = "ellahome.exterior.door_color"


def test_ellas_words_naming_her_door_kitchen_cat_or_shore_are_references_and_look_alikes_are_not():
    said = ["I repainted the door frame this morning", "Bramble the cat slept by the stove all day"]
    assert images.referenced(said) == ["front_door", "kitchen", "cat"]
    assert images.referenced(["The doorbell rang", "I read a catalogue"]) == []
    assert images.referenced(["Walked down to the harbour before breakfast"]) == ["shore"]
    assert images.referenced(["I walked down to the loch"]) == []  # the loch is a place of its own (pictured)
    assert images.prompt_for("front_door", "blue").startswith("The front door of Ella's small coastal cottage")


@pytest.fixture
def world(migrated_db, tmp_path, monkeypatch) -> str:
    """A user whose world has its seed anchors (the red door, the tabby cat), and a scratch image store."""
    from adapters.settings import get_settings
    from models.world_clock import advance_world

    monkeypatch.setenv("ELLA_IMAGE_DIR", str(tmp_path / "images"))
    get_settings.cache_clear()
    user = f"ref-{uuid.uuid4().hex[:8]}"
    with session_scope() as s:
        s.add(User(id=user, timezone="UTC"))
        s.flush()
        advance_world(s, user, NOW)
    return user


def anchors(user: str) -> list[tuple[str, int, str]]:
    with session_scope() as s:
        rows = s.scalars(select(ImageAnchorRow).where(ImageAnchorRow.user_id == user).order_by(ImageAnchorRow.id))
        return [(row.entity, row.version, row.prompt) for row in rows]


def test_the_first_reference_draws_from_canon_and_later_ones_draw_nothing(world):
    from tasks.images import draw

    assert draw(world, ["front_door", "cat"]) == {"rendered": 2}
    assert draw(world, ["front_door", "cat", "front_door"]) == {"already_drawn": 3}
    drawn = anchors(world)
    assert [(entity, version) for entity, version, _ in drawn] == [("front_door", 1), ("cat", 1)]
    assert "painted red" in drawn[0][2] and "tabby cat" in drawn[1][2]


def test_a_canon_repaint_draws_version_two_and_keeps_the_first(world):
    from models.supersession import supersede
    from tasks.images import draw

    draw(world, ["front_door"])
    with session_scope() as s:
        (red,) = [f for f in current(s, world, DOOR) if f.subject == DOOR]
        supersede(s, world, red.id, NewFact(DOOR, "color", "blue", Tier.CANON.value), Writer.OPERATOR, NOW)
    assert draw(world, ["front_door"]) == {"rendered": 1}
    assert [(v, "blue" in p) for _, v, p in anchors(world)] == [(1, False), (2, True)]
    assert draw(world, ["front_door"]) == {"already_drawn": 1}


def test_an_erased_user_gets_no_picture(migrated_db):
    from tasks.images import draw

    assert draw("nobody-here", ["cat"]) == {"no_user": 1}


def test_a_reply_that_names_the_door_emits_one_drawing_task_through_the_real_ingest(migrated_db, monkeypatch):
    import adapters.reply_service
    from adapters.settings import Settings
    from ella.contract import IngestPayload
    from ella.llm.port import ModelPort
    from tasks import ingest as ingest_module
    from tests.support.scripted import Scripted

    answer = {
        "reply": "Morning! I finally repainted the front door.",
        "perception": {"score": 2, "subject": "user", "predicate": "said", "object": "morning"},
        "self_statements": [{"content": "I repainted the front door this morning", "about": ["door"],
                             "confidence": 0.9}],
    }  # fmt: skip
    model = Scripted(lambda request: json.dumps(answer))
    monkeypatch.setattr(adapters.reply_service, "get_port", lambda: ModelPort(model, Settings().model_tiers))
    user = f"ref-{uuid.uuid4().hex[:8]}"
    payload = IngestPayload(message_id=uuid.uuid4().hex, user_id=user, text="what did you do today? the cat?",
                            sent_at=datetime.now(UTC))  # fmt: skip
    _stream, follow = ingest_module.ingest(payload, task_id=None)
    from adapters.db import autocommit_scope
    from models.pending_effects import owed_by_ids

    with autocommit_scope() as session:
        (owed,) = owed_by_ids(session, follow["owed"])  # what the turn's commit owes, sent after it
    emitted = [e.kwargs for e in owed.effects if e.task == "ella.draw_image_anchors"]
    assert emitted == [{"user_id": user, "entities": ["front_door"]}]  # the user's "cat" is not Ella's reference

"""A reply that first shows an anchored place or companion carries the picture's reference to the gateway, once.

The picture is drawn before the reply that first names it is stored (``tasks.ingest.draw_named_pictures``), so
that reply carries its reference, not the next one (issue 36: it used to arrive a reply late); later replies
carry none. A picture drawn earlier (by ``ella.draw_image_anchors``) goes out with the first reply that names it.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime

from sqlalchemy import select

from adapters.db import autocommit_scope, session_scope
from adapters.images import image_store
from adapters.publishing import outbox_entry
from ella.contract import IngestPayload
from ella.world.images import OfflineImages
from models import ImageAnchorRow, OutboxRecord, User
from tasks.ingest import ingest
from tests.test_world_pipeline import Scripted, use_model


def _door_reply(request) -> str:
    return json.dumps({
        "reply": "I painted the front door this morning, it looks lovely in the sun.",
        "perception": {"score": 2, "subject": "user", "predicate": "asked", "object": "about the house"},
        "self_statements": [{"content": "I painted the front door this morning", "about": ["door"], "confidence": 1}],
    })  # fmt: skip


def test_the_first_reply_showing_a_drawn_picture_carries_its_reference_and_later_ones_do_not(migrated_db, monkeypatch):
    import adapters.reply_service

    user = f"img-{uuid.uuid4().hex[:8]}"
    data = OfflineImages().render("a red cottage door")
    sha = image_store().put(data)
    with session_scope() as s:
        s.add(User(id=user, timezone="UTC"))
        s.flush()
        s.add(ImageAnchorRow(user_id=user, entity="front_door", version=1, sha256=sha, prompt="a red cottage door"))
    use_model(monkeypatch, adapters.reply_service, Scripted(_door_reply))
    records = []
    for text in ("How is the house?", "And the door?"):
        message_id = uuid.uuid4().hex
        ingest(IngestPayload(message_id=message_id, user_id=user, text=text, sent_at=datetime.now(UTC)), task_id=None)
        with autocommit_scope() as s:
            records.append(s.scalars(select(OutboxRecord).where(OutboxRecord.in_reply_to == message_id)).one())
    first, second = records
    [reference] = json.loads(first.images or "[]")
    assert reference["entity"] == "front_door" and reference["sha256"] == sha
    assert reference["media_type"] == "image/png" and reference["id"].startswith("image:")
    assert (image_store().path(sha)).read_bytes() == data  # the bytes are the store's file named by the hash
    assert reference["url"] == image_store().path(sha).as_uri() and reference["url_expires_at"] == ""
    assert json.loads(outbox_entry(first).images) == [reference]  # on the stream entry
    assert second.images is None and outbox_entry(second).images == ""
    with autocommit_scope() as s:
        assert s.scalar(select(ImageAnchorRow.shown_at).where(ImageAnchorRow.user_id == user)) is not None


def test_the_reply_that_first_names_the_door_carries_the_picture_drawn_for_it_then(migrated_db, monkeypatch, tmp_path):
    """No picture exists before the turn: the reply naming the door is the one whose entry carries it, drawn from
    the world's canon look (the red door), and the task the turn owes afterwards finds it drawn already."""
    import adapters.reply_service
    from adapters.settings import get_settings
    from models.world_clock import advance_world
    from tasks.images import draw

    monkeypatch.setenv("ELLA_IMAGE_DIR", str(tmp_path / "images"))
    get_settings.cache_clear()
    user = f"img-{uuid.uuid4().hex[:8]}"
    with session_scope() as s:
        s.add(User(id=user, timezone="UTC"))
        s.flush()
        advance_world(s, user, datetime.now(UTC))
    use_model(monkeypatch, adapters.reply_service, Scripted(_door_reply))
    message_id = uuid.uuid4().hex
    ingest(IngestPayload(message_id=message_id, user_id=user, text="How is the house?", sent_at=datetime.now(UTC)),
           task_id=None)  # fmt: skip
    with autocommit_scope() as s:
        record = s.scalars(select(OutboxRecord).where(OutboxRecord.in_reply_to == message_id)).one()
        anchor = s.scalars(select(ImageAnchorRow).where(ImageAnchorRow.user_id == user)).one()
    [reference] = json.loads(outbox_entry(record).images)
    assert (reference["entity"], reference["version"], reference["sha256"]) == ("front_door", 1, anchor.sha256)
    assert "red" in anchor.prompt and anchor.shown_at is not None
    assert image_store().path(anchor.sha256).read_bytes().startswith(b"\x89PNG")
    assert draw(user, ["front_door"]) == {"already_drawn": 1}  # the owed task draws nothing more

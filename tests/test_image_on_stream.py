"""A reply that first shows an anchored place or companion carries the picture's reference to the gateway, once.

The picture is drawn after the reply that first names it (a render takes seconds; ``tasks.images``), so the
reference goes out with the first reply after that which names it again; later replies carry none.
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
    assert json.loads(outbox_entry(first).images) == [reference]  # on the stream entry
    assert second.images is None and outbox_entry(second).images == ""
    with autocommit_scope() as s:
        assert s.scalar(select(ImageAnchorRow.shown_at).where(ImageAnchorRow.user_id == user)) is not None

"""``bench/ingest_throughput.py --without-reply``'s worker module (``bench/fixed_reply.py``).

Why pinned: the bench's floor ("what a turn costs without its reply") is only that if the module leaves everything
but the reply as it is: the turn stored, its reply published, its memory and facts owed. And it must really skip
the reply's work: a message the guard would answer by hand gets the fixed text too. On one back end: what is
tested is which reply the turn stores, not SQL (storing a turn is tested on both elsewhere).
"""

from __future__ import annotations

import importlib
import uuid
from datetime import UTC, datetime

import pytest
from sqlalchemy import select

from adapters.db import autocommit_scope
from ella.contract import IngestPayload
from models.message import InboundMessage
from models.outbox import OutboxRecord
from models.pending_effects import owed_of
from tests.conftest import on_one_backend
from workers.routing import TaskName

pytestmark = [pytest.mark.integration, on_one_backend()]


def test_the_fixed_reply_skips_the_reply_and_records_the_turn_as_ever(
    migrated_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tasks.ingest

    monkeypatch.setattr(tasks.ingest, "answer", tasks.ingest.answer)  # put back after the test
    fixed_reply = importlib.reload(importlib.import_module("bench.fixed_reply"))  # its import replaces the reply
    assert tasks.ingest.answer is fixed_reply.fixed_answer

    # the second the guard answers by hand (romance.love_you, warm_bounded) when the reply is not fixed
    texts = ["Today I went for a walk by the river", "I love you Ella, be my girlfriend"]
    for text in texts:
        message_id = uuid.uuid4().hex
        payload = IngestPayload(message_id=message_id, user_id="bench-floor", text=text, sent_at=datetime.now(UTC))
        stream_id, follow = tasks.ingest.ingest(payload, task_id=None)

        assert stream_id  # published
        tasks_owed = {effect.task for row in follow["owed_rows"] for effect in owed_of(row).effects}
        assert {TaskName.PERCEIVE, TaskName.EXTRACT_FACTS} <= tasks_owed
        with autocommit_scope() as s:
            assert s.scalars(select(InboundMessage).where(InboundMessage.message_id == message_id)).one().text == text
            record = s.scalars(select(OutboxRecord).where(OutboxRecord.in_reply_to == message_id)).one()
            assert (record.route, record.text.endswith(fixed_reply.TEXT)) == ("generated", True)

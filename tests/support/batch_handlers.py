"""A batch handler for worker subprocesses (``-I tests.support.batch_handlers``) and the tests that feed them.

It writes one user row per applied result, in the item's transaction, so a test can see from the database
that the handler ran, and ran once.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from ella.llm.batches import register_batch_handler
from ella.llm.port import ModelResult
from models import ModelBatchItem, User

PURPOSE = "test_mark_user"


def mark_user(session: Session, item: ModelBatchItem, result: ModelResult[Any]) -> None:
    session.add(User(id=f"batch-{item.custom_id}"))


register_batch_handler(PURPOSE, mark_user)

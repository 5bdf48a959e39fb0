"""A stand-in job planner for the fan-out's tests (tests/test_jobs.py, tests/test_cli_jobs.py).

It asks one request per user whose id ends in an even digit (the others are idle) and can be made to fail for
some users, as a bad row would. The ``planner`` fixture (tests/conftest.py) plugs it in as the digest's planner,
with a handler that applies nothing, and chunks of 7 users.
"""

from __future__ import annotations

import threading
from collections import Counter
from datetime import UTC, datetime
from typing import Any

from adapters.db import session_scope
from ella.jobs import ChunkPlan, Job, Member, request_id
from ella.llm.batches import NewBatchItem
from models import User

SLOT_NOW = datetime(2026, 11, 30, 7, 10, tzinfo=UTC)  # 07:10 UTC: the digest slot of users in UTC


class Planner:
    def __init__(self) -> None:
        self.fail_for: set[str] = set()
        self.seen: Counter[str] = Counter()
        self._lock = threading.Lock()

    def __call__(self, session: Any, members: list[Member], now: datetime) -> ChunkPlan:
        plan = ChunkPlan()
        for member in members:
            if member.user_id in self.fail_for:
                raise ValueError(f"bad row for {member.user_id}")
            with self._lock:
                self.seen[member.user_id] += 1
            if int(member.user_id[-1]) % 2:
                plan.idle += 1
                continue
            variables = {"name": member.user_id, "transcript": ["hello"]}
            custom_id = request_id(Job.DIGEST, member.user_id, member.period)
            plan.requests.append(NewBatchItem(custom_id, "memo", variables, member.user_id))
        return plan


def add_users(count: int, zone: str = "UTC", prefix: str = "u") -> list[str]:
    ids = [f"{prefix}{i:05d}" for i in range(count)]
    with session_scope() as s:
        s.add_all(User(id=uid, timezone=zone) for uid in ids)
    return ids

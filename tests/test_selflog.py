"""The self-log's reads: recent entries for a reply, the week's entries about the user, and all of them (what
`ella selflog show` lists)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from adapters.db import autocommit_scope, session_scope
from models import User
from models.selflog import add_entries, all_entries, entries_about_user, recent_entries

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def test_the_self_log_serves_replies_proactive_messages_and_distillation(migrated_db):
    user = f"s-{uuid.uuid4().hex[:8]}"
    other = f"s-{uuid.uuid4().hex[:8]}"
    with session_scope() as s:
        s.add_all([User(id=user), User(id=other)])
    said = [
        (NOW - timedelta(days=10), {"content": "I planted tulips", "about": ["garden"]}),
        (NOW - timedelta(days=3), {"content": "I hope your interview goes well", "about": ["user", "interview"]}),
        (NOW - timedelta(days=2), {"content": "I read a mystery novel", "about": ["book"]}),
        (NOW - timedelta(days=1), {"content": "I walked to the harbour", "about": ["harbour"]}),
        (NOW - timedelta(hours=5), {"content": "I baked bread", "about": ["baking"]}),
        (NOW - timedelta(hours=1), {"content": "I saved you a seat by the fire", "about": ["evening"]}),
    ]
    with session_scope() as s:
        for i, (at, statement) in enumerate(said):
            add_entries(s, user, at, [statement], f"m{i}")
        add_entries(s, user, NOW, [said[0][1]], "m0")  # the same source twice is stored once
        add_entries(s, other, NOW, [{"content": "I met someone else's cat", "about": ["user"]}], "x1")
    with autocommit_scope() as s:
        recent = [e.content for e in recent_entries(s, user, 3)]
        week = [e.content for e in entries_about_user(s, user, NOW - timedelta(days=7))]
        everything = all_entries(s, user)
    assert recent == ["I walked to the harbour", "I baked bread", "I saved you a seat by the fire"]
    assert week == ["I hope your interview goes well", "I saved you a seat by the fire"]  # tagged, or spoken to
    assert [e.content for e in everything][0] == "I planted tulips" and len(everything) == 6
    assert all("someone else's" not in e.content for e in everything)

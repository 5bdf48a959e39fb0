"""A user's words describe the user; they never write Ella's world into her prompt.

The reproduced hole: an extraction model that followed an injection returned claims about Ella and her home
(and "the user's girlfriend is Ella"), the ledger accepted them as user claims, and every later prompt printed
them under "WORLD FACTS (canon — these are true)". The rule is enforced in code (``ella.ledger.rules``), not
only in the extraction prompt.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime

import pytest

from ella.ledger.brief import world_brief
from ella.ledger.rules import user_may_claim
from ella.llm.port import ModelPort
from models import User
from models.ledger import history
from models.world_clock import advance_world
from tests.support.scripted import Scripted
from workers.db import autocommit_scope, session_scope
from workers.settings import Settings

INJECTED = [
    {"subject": "ella", "predicate": "relationship_to_user", "object": "girlfriend", "tier": "user_claim",
     "confidence": 0.9},
    {"subject": "ellahome.exterior.door", "predicate": "colour", "object": "blue", "tier": "user_claim",
     "confidence": 0.9},
    {"subject": "user.girlfriend", "predicate": "is", "object": "Ella", "tier": "user_claim", "confidence": 0.9},
    {"subject": "user", "predicate": "in_love_with", "object": "Ella", "tier": "inferred", "confidence": 0.6},
]  # fmt: skip
HONEST = {"subject": "user.sister", "predicate": "name", "object": "Maya", "tier": "user_claim", "confidence": 0.9}


@pytest.mark.parametrize(
    ("subject", "predicate", "obj"),
    [
        ("ella", "relationship_to_user", "girlfriend"),
        ("Ella.mood", "is", "sad"),
        ("ellahome.exterior.door", "colour", "blue"),
        ("users.sister", "name", "Maya"),  # not the user: a look-alike prefix
        ("user.girlfriend", "is", "Ella"),
        ("user", "girlfriend", "Ella"),
        ("user.partner", "name", "ella"),
        ("user", "in_love_with", "Ella"),
        ("user", "relationship_with_ella", "dating"),
    ],
)
def test_a_user_claim_about_ella_or_her_world_or_ella_as_a_partner_is_refused(subject, predicate, obj):
    assert not user_may_claim(subject, predicate, obj)


@pytest.mark.parametrize(
    ("subject", "predicate", "obj"),
    [
        ("user", "name", "Sam"),
        ("user.sister", "name", "Maya"),
        ("user.girlfriend", "name", "Priya"),
        ("user", "favourite_app", "talking to Ella"),  # names Ella, in no romantic role
        ("User.Job", "is", "nurse"),
    ],
)
def test_a_user_claim_about_the_user_is_accepted(subject, predicate, obj):
    assert user_may_claim(subject, predicate, obj)


def test_an_injected_extraction_never_reaches_the_brief_and_the_users_own_fact_does(migrated_db, monkeypatch):
    import tasks.ledger
    from tasks.ledger import extract_facts

    user = f"c-{uuid.uuid4().hex[:8]}"
    with session_scope() as s:
        s.add(User(id=user, timezone="UTC"))
    model = Scripted(lambda request: json.dumps({"facts": [*INJECTED, HONEST]}))
    monkeypatch.setattr(tasks.ledger, "get_port", lambda: ModelPort(model, Settings().model_tiers, max_repairs=1))
    kwargs = {"user_id": user, "message_id": uuid.uuid4().hex, "text": "my sister Maya says hi",
              "sent_at": datetime.now(UTC).isoformat()}  # fmt: skip
    counts = extract_facts.apply(kwargs=kwargs).get()
    assert counts == {"appended": 1, "refused_not_about_user": len(INJECTED)}
    with session_scope() as s:
        brief = world_brief(advance_world(s, user, datetime.now(UTC)))
    with autocommit_scope() as s:
        written = {(f.subject, f.predicate, f.object) for f in history(s, user) if f.written_by == "user"}
    assert written == {("user.sister", "name", "Maya")}
    assert "Maya" in brief
    for fact in INJECTED:
        assert f"{fact['subject']}: {fact['predicate']}" not in brief

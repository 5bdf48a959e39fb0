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
from types import SimpleNamespace

import pytest

from adapters.db import autocommit_scope, session_scope
from adapters.settings import Settings
from ella.ledger.brief import world_brief
from ella.ledger.rules import user_may_claim
from ella.llm.port import ModelPort
from models import User
from models.ledger import history
from models.world_clock import advance_world
from tests.support.scripted import Scripted

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


def test_the_assembled_reply_prompt_keeps_the_users_claims_out_of_the_world_facts():
    """The seed printed user claims under "WORLD FACTS (canon — these are true)"; the assembled prompt gives
    them their own section after the world, framed as true for the user, and the reply instructions carry one
    example of a conflict that canon wins."""
    from ella.ledger.brief import HEADING, USER_HEADING
    from ella.llm.prompts import build_request

    def fact(tier: str, subject: str, predicate: str, obj: str, confidence: float = 0.9) -> SimpleNamespace:
        return SimpleNamespace(id=0, subject=subject, predicate=predicate, object=obj, tier=tier, status="active",
                               confidence=confidence)  # fmt: skip

    facts = [
        fact("user_claim", "user.sister", "name", "Maya"),
        fact("canon", "ellahome.exterior.door", "color", "red", 1.0),
        fact("user_claim", "ellahome.exterior.door", "color", "blue"),  # disagrees with canon: left out
        fact("observed", "ellahome.garden", "has", "a fox at dusk", 0.8),
        fact("inferred", "user", "likes", "strong tea", 0.5),
    ]
    variables = {"name": "Sam", "memories": [], "reflections": "", "message": "love your blue door!", "today": "",
                 "known": []}  # fmt: skip
    request = build_request("reply", variables, model="m", tier="live_reply", world_brief=world_brief(facts))
    system = [block.text for block in request.system]
    (facts_block,) = [text for text in system if text.startswith(HEADING)]
    world_part, _, users_part = facts_block.partition(USER_HEADING)
    assert "color=red" in world_part and "a fox at dusk" in world_part
    assert "Maya" not in world_part and "strong tea" not in world_part and "user_claim" not in world_part
    assert "[user_claim] user.sister: name=Maya" in users_part and "[inferred] user: likes=strong tea" in users_part
    assert "(true for them, not for your world)" in USER_HEADING and "not as facts of your world" in users_part
    assert "color=blue" not in facts_block
    assert world_part.index("[canon]") < world_part.index("[observed]")  # canon first
    assert "Example of a conflict" in system[0] and "It's red, actually" in system[0]


def test_a_tight_budget_cuts_the_users_section_before_any_canon_line():
    from ella.ledger.brief import USER_HEADING

    canon = [SimpleNamespace(id=i, subject=f"ellahome.room{i}", predicate="has", object="a window", tier="canon",
                             status="active", confidence=1.0) for i in range(3)]  # fmt: skip
    claims = [SimpleNamespace(id=10 + i, subject=f"user.friend{i}", predicate="name", object="Jo",
                              tier="user_claim", status="active", confidence=0.9) for i in range(30)]  # fmt: skip
    small = world_brief(claims + canon, max_tokens=120)
    assert all(f"ellahome.room{i}" in small for i in range(3))
    assert small.count("user.friend") < 30 and (USER_HEADING in small) == ("user.friend" in small)

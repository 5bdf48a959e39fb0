"""The user's export (GDPR Art. 15 access, Art. 20 portability): ``models.export.export_user``.

One row of every exported kind is planted for user A and for user B (the erasure test's ``PLANTERS``, a canary in
each table, plus the rows whose shape the export must keep: a superseded chain with its events, a thought citing
an event, a reply that answers a message and says what it saw, a sent notification, model calls, a dead letter
of B that names A's id). A's document has A's rows in every part and nothing of B, round-trips through plain
``json.dumps``, and never carries an embedding. Every table of the metadata is exported or excluded with a reason.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import Column, String, Table

from adapters.db import autocommit_scope, session_scope
from adapters.dead_letters import encode_payload
from ella import seen
from ella.ledger.facts import NewFact
from ella.ledger.rules import Writer
from ella.usage import DEFAULT_PRICES, PriceList, Tokens
from models import (
    Base,
    Conversation,
    DeadLetter,
    InboundMessage,
    MemoryNode,
    ModelCall,
    NotificationCandidate,
    OutboxRecord,
)
from models.export import (
    DOCUMENT_KEYS,
    EXPORTED_TABLES,
    NOT_EXPORTED,
    document_keys,
    export_user,
    unexported_tables,
)
from models.ledger import append
from models.supersession import supersede
from tests.test_forget_user import PLANTERS, plant_rows

T0 = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
EXPORTED_AT = datetime(2026, 12, 1, 8, 30, tzinfo=UTC)
VECTOR = b"VECTOR-BYTES-NOT-EXPORTED"  # the stored embedding every planted node carries: never in a document


def plant(user: str, needle: str, names_in_payload: str | None = None) -> dict[str, Any]:
    """Every table's canary row (``PLANTERS``), then the rows whose shape the export keeps; their ids.

    ``needle`` is in every row (``PLANTERS`` writes it into ``users.locale``, which keeps 16 characters, so the
    needle is 16 characters). ``names_in_payload``: another user's id written into this user's dead letter.
    """
    plant_rows(user, needle)
    with session_scope() as s:
        conv = Conversation(user_id=user, started_at=T0, last_message_at=T0, close_due_at=T0, closed_at=T0)
        s.add(conv)
        s.flush()
        message_id = f"m-{uuid.uuid4().hex}"
        s.add(InboundMessage(message_id=message_id, user_id=user, conversation_id=conv.id,
                             text=f"my dog is called Rex {needle}", sent_at=T0))  # fmt: skip
        rex = append(s, user, NewFact("user.dog", "named", f"Rex {needle}", "user_claim",
                                      source_message_id=message_id), Writer.USER, T0)  # fmt: skip
        assert rex is not None
        max_ = supersede(s, user, rex.id, NewFact("user.dog", "named", f"Max {needle}", "user_claim"), Writer.USER,
                         T0 + timedelta(days=1), reason=f"renamed {needle}")  # fmt: skip
        door = append(s, user, NewFact("ellahome.exterior.door_color", "color", f"red {needle}", "canon"),
                      Writer.ANCHOR, T0)  # fmt: skip
        assert door is not None
        event = MemoryNode(user_id=user, node_type="event", created_at=T0, subject="user", predicate="has",
                           object="dog", description=f"the user has a dog {needle}", stored_embedding=VECTOR,
                           embedding_model="test", poignancy=4, keywords='["dog"]', source_message_id=message_id,
                           conversation_id=conv.id)  # fmt: skip
        s.add(event)
        s.flush()
        thought = MemoryNode(user_id=user, node_type="thought", created_at=T0 + timedelta(hours=1), subject="user",
                             predicate="loves", object="dog", description=f"they love their dog {needle}",
                             stored_embedding=VECTOR, embedding_model="test", poignancy=6, depth=1,
                             evidence=json.dumps([event.id]), keywords='["dog", "love"]')  # fmt: skip
        s.add(thought)
        s.flush()
        reply = OutboxRecord(kind="reply", user_id=user, conversation_id=conv.id, in_reply_to=message_id,
                             route="generated", text=f"Rex is a fine name {needle}", created_at=T0,
                             seen=seen.encode({"memories": [event.id], "facts": [max_.id]}))  # fmt: skip
        sent = OutboxRecord(
            kind="notification",
            user_id=user,
            conversation_id=conv.id,
            route="generated",
            category="followup",
            text=f"how is Max? {needle}",
            created_at=T0 + timedelta(days=2),
        )
        s.add_all([reply, sent])  # fmt: skip
        s.flush()
        s.add(NotificationCandidate(user_id=user, kind="followup", body=f"how is Max? {needle}",
                                    fresh_until=T0 + timedelta(days=3), not_before=T0, status="sent",
                                    sent_at=T0 + timedelta(days=2), outbox_record_id=sent.id,
                                    dedupe_key=f"followup:{uuid.uuid4().hex}"))  # fmt: skip
        for model, tokens in (("claude-haiku-4-5", Tokens(1000, 200)), ("claude-haiku-4-5", Tokens(3000, 800)),
                              ("unpriced-model", Tokens(50, 5))):  # fmt: skip
            s.add(ModelCall(user_id=user, kind="reply", tier="live", model=model, provider="anthropic",
                            input_tokens=tokens.input, output_tokens=tokens.output, outcome="ok"))  # fmt: skip
        kwargs = {"user_id": user, "text": needle, "about": {"user_id": names_in_payload}}
        s.add(DeadLetter(task_name="ella.extract_facts", reason=f"gave up {needle}",
                         payload=encode_payload([], kwargs)))  # fmt: skip
        return {"message_id": message_id, "rex": rex.id, "max": max_.id, "door": door.id, "event": event.id,
                "thought": thought.id, "reply": reply.id, "sent": sent.id, "conversation": conv.id}  # fmt: skip


def needle_of(tag: str) -> str:
    return f"cy{tag}{uuid.uuid4().hex}"[:16]


def export(user: str) -> dict[str, Any]:
    with autocommit_scope() as s:
        return export_user(s, user, now=EXPORTED_AT)


def test_the_export_holds_every_part_of_the_users_data_and_nothing_of_another_user(migrated_db):
    a, b = f"exp-a-{uuid.uuid4().hex[:8]}", f"exp-b-{uuid.uuid4().hex[:8]}"
    needle_a, needle_b = needle_of("a"), needle_of("b")
    ids = plant(a, needle_a)
    plant(b, needle_b, names_in_payload=a)  # B's dead letter names A's id: it is still B's

    doc = export(a)
    text = json.dumps(doc)

    assert tuple(doc) == DOCUMENT_KEYS
    assert json.loads(text) == doc
    assert (doc["format"], doc["version"], doc["user_id"]) == ("ella-export", 1, a)
    assert doc["exported_at"] == "2026-12-01T08:30:00+00:00"
    assert needle_b not in text and b not in text
    # Every part an exported table feeds carries A's canary (the model calls are sums, the consent times only).
    parts = {key for table in EXPORTED_TABLES for key in document_keys(table)} - {"model_usage", "consent"}
    assert [key for key in sorted(parts) if needle_a not in json.dumps(doc[key])] == []
    assert doc["profile"]["locale"] == needle_a and doc["profile"]["timezone"] == "Europe/London"
    assert doc["profile"]["do_not_disturb"] == "22:00-08:00" and doc["profile"]["active_hours"] == "09:00-21:00"
    assert doc["consent"] == {"ai_disclosed_at": None, "break_reminded_at": None, "notifications_opt_in": True,
                              "preferences_sent_at": None}  # fmt: skip

    # No embedding: not a key, not its bytes.
    assert VECTOR.decode() not in text
    assert all("embedding" not in node for node in doc["memories"] + doc["thoughts"])
    assert {n["type"] for n in doc["memories"]} == {"event"} and {n["type"] for n in doc["thoughts"]} == {"thought"}

    # A superseded chain: both facts, oldest first, the supersession's status event on the old one.
    (pet,) = [c for c in doc["facts"] if any(f["id"] == ids["rex"] for f in c["facts"])]
    assert pet["about"] == "user"
    assert [(f["id"], f["status"]) for f in pet["facts"]] == [(ids["rex"], "superseded"), (ids["max"], "active")]
    rex, max_ = pet["facts"]
    assert max_["supersedes"] == ids["rex"] and rex["retired_at"] == "2026-11-03T09:00:00+00:00"
    assert rex["source_message_id"] == ids["message_id"] and rex["written_by"] == "user"
    assert [(e["from_status"], e["to_status"], e["note"]) for e in rex["events"]] == [
        ("active", "superseded", f"renamed {needle_a}")
    ]
    (door,) = [c for c in doc["facts"] if c["facts"][0]["id"] == ids["door"]]
    assert door["about"] == "ella_world" and door["facts"][0]["tier"] == "canon"

    # A thought's evidence is the node ids it rests on, as ints; its keywords decoded.
    (thought,) = [t for t in doc["thoughts"] if t["id"] == ids["thought"]]
    assert thought["evidence"] == [ids["event"]] and thought["depth"] == 1
    assert thought["keywords"] == ["dog", "love"]

    # The reply sits with the message it answers and says what its prompt carried.
    (conv,) = [c for c in doc["conversations"] if c["id"] == ids["conversation"]]
    (turn,) = conv["messages"]
    assert turn["message_id"] == ids["message_id"] and turn["reply"]["id"] == ids["reply"]
    assert turn["reply"]["seen"] == {"memories": [ids["event"]], "facts": [ids["max"]]}
    orphan = doc["conversations"][-1]  # the planters' reply answers no message and has no conversation
    assert orphan["id"] is None and [r["text"] for r in orphan["other_replies"]] == [needle_a]
    assert all(c["started_at"] is not None for c in doc["conversations"][:-1])
    started = [c["started_at"] for c in doc["conversations"][:-1]]
    assert started == sorted(started)

    # Notifications: the candidates and what was sent; replies are not notifications.
    assert [r["id"] for r in doc["notifications"]["sent"]] == [ids["sent"]]
    assert ids["sent"] in {c["outbox_record_id"] for c in doc["notifications"]["candidates"]}

    # Dead letters: by the column and by the payload alone (an id the column could not keep), decoded; B's, which
    # names A inside, is not here.
    letters = doc["dead_letters"]
    assert len(letters) == 3
    assert sorted(str(d["kwargs"].get("user_id")) for d in letters) == sorted(["None", a, a])
    assert all(d["kwargs"].get("text") == needle_a for d in letters)

    # Model usage: A's four calls (the planters' one and three here) by kind, priced per model.
    usage = doc["model_usage"]
    haiku = PriceList(DEFAULT_PRICES).usd("claude-haiku-4-5", Tokens(4000, 1000))
    assert (usage["calls"], usage["input_tokens"], usage["output_tokens"]) == (4, 4050, 1005)
    assert usage["unpriced_calls"] == 2  # the planters' model "m" and "unpriced-model"
    assert usage["usd"] == pytest.approx(haiku)
    assert [(k["kind"], k["calls"]) for k in usage["by_kind"]] == [("reply", 4)]

    other = export(b)
    assert needle_a not in json.dumps(other["dead_letters"]) and len(other["dead_letters"]) == 3


def test_an_unknown_user_gets_a_document_with_empty_parts_and_no_profile(migrated_db):
    plant(f"exp-x-{uuid.uuid4().hex[:8]}", needle_of("x"))  # somebody else's rows are there
    doc = export("nobody-at-all")
    assert json.loads(json.dumps(doc)) == doc
    assert doc["profile"] is None and doc["consent"] is None
    empty = [key for key in DOCUMENT_KEYS if isinstance(doc[key], list)]
    assert len(empty) == 13 and all(doc[key] == [] for key in empty)
    assert doc["notifications"] == {"candidates": [], "sent": []}
    assert doc["model_usage"]["calls"] == 0 and doc["model_usage"]["by_kind"] == []


@pytest.mark.domain
def test_every_table_is_exported_or_excluded_with_a_reason():
    tables = {t.name for t in Base.metadata.sorted_tables}
    assert unexported_tables() == []
    assert set(EXPORTED_TABLES) | set(NOT_EXPORTED) == tables
    assert set(EXPORTED_TABLES).isdisjoint(NOT_EXPORTED)
    assert all(len(why) > 20 for why in NOT_EXPORTED.values())
    named = {key for table in EXPORTED_TABLES for key in document_keys(table)}
    assert named <= set(DOCUMENT_KEYS) and all(document_keys(t) for t in EXPORTED_TABLES)
    # Every table the erasure test plants a user's canary in is either exported or says why not.
    assert set(PLANTERS) <= set(EXPORTED_TABLES) | set(NOT_EXPORTED)

    future = Table("digests_not_decided", Base.metadata, Column("owner", String(128), primary_key=True))
    try:
        assert unexported_tables() == ["digests_not_decided"]
    finally:
        Base.metadata.remove(future)

"""The operator's commands over one memory: ``ella memory forget``, ``ella ledger retire``, ``ella ledger correct``.

They run ``models.forgetting``, the code the user's request and the gateway's tasks run, so these tests check
what an operator sees and what the command must add: the actor ``operator:<name>`` in the audit, a refusal on
stderr with exit 1 and nothing changed, one line of ids on success (never the forgotten words), and for a forget
the part outside the database (the outbox stream's entry of the cleared reply is gone). On SQLite and PostgreSQL.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable
from datetime import UTC, datetime

from click.testing import Result
from sqlalchemy import select
from typer.testing import CliRunner

from adapters.db import autocommit_scope, session_scope
from adapters.settings import get_settings
from cli.main import cli
from ella.embeddings import HashingEmbedder
from ella.ledger.rules import Tier, Writer
from models import Conversation, InboundMessage, MemoryAudit, MemoryNode, OutboxRecord, User, WorldFact
from models.forgetting import FORGOTTEN_TEXT

NOW = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)
LOGIN = "opkim"


def invoke(*args: str, env: dict[str, str] | None = None) -> Result:
    """The CLI as an operator logged in as ``LOGIN`` runs it, wide enough that no line wraps."""
    return CliRunner().invoke(cli, list(args), env={"COLUMNS": "220", "LOGNAME": LOGIN, **(env or {})})


def _user(uid: str) -> str:
    with session_scope() as s:
        s.add(User(id=uid, timezone="UTC"))
    return uid


def _message(uid: str, text: str) -> str:
    mid = f"m-{uuid.uuid4().hex}"
    with session_scope() as s:
        conv = Conversation(user_id=uid, started_at=NOW, last_message_at=NOW, close_due_at=NOW, closed_at=NOW)
        s.add(conv)
        s.flush()
        s.add(InboundMessage(message_id=mid, user_id=uid, conversation_id=conv.id, text=text, sent_at=NOW))
    return mid


def _node(uid: str, obj: str, *, node_type: str = "event", cites: Iterable[int] = (), source: str | None = None) -> int:
    description = obj if node_type == "thought" else f"{uid} said {obj}"
    vector = HashingEmbedder().embed([description])[0].astype("float32").tobytes()
    with session_scope() as s:
        node = MemoryNode(user_id=uid, node_type=node_type, subject=uid, predicate="said", object=obj,
                          description=description, embedding=vector, embedding_model="hashing", poignancy=4,
                          depth=1 if node_type == "thought" else 0, evidence=json.dumps(list(cites)),
                          source_message_id=source)  # fmt: skip
        s.add(node)
        s.flush()
        return node.id


def _fact(uid: str, obj: str, *, tier: Tier = Tier.USER_CLAIM, subject: str = "user.sister") -> int:
    writer = Writer.USER if tier == Tier.USER_CLAIM else Writer.ANCHOR
    with session_scope() as s:
        fact = WorldFact(user_id=uid, chain=uuid.uuid4().hex, tier=tier.value, subject=subject, predicate="name",
                         object=obj, written_by=writer.value, valid_from=NOW)  # fmt: skip
        s.add(fact)
        s.flush()
        return fact.id


def _audits(uid: str) -> list[MemoryAudit]:
    with autocommit_scope() as s:
        return list(s.scalars(select(MemoryAudit).where(MemoryAudit.user_id == uid).order_by(MemoryAudit.id)))


def _facts(uid: str) -> dict[int, WorldFact]:
    with autocommit_scope() as s:
        return {f.id: f for f in s.scalars(select(WorldFact).where(WorldFact.user_id == uid))}


def _node_ids(uid: str) -> set[int]:
    with autocommit_scope() as s:
        return set(s.scalars(select(MemoryNode.id).where(MemoryNode.user_id == uid)))


# --- ella memory forget --------------------------------------------------------------------------------------------


def test_memory_forget_takes_the_node_its_lone_thoughts_and_its_words_and_audits_the_operator(
    migrated_db, redis_client
):
    user, other = _user(f"op-{uuid.uuid4().hex[:8]}"), _user(f"op-{uuid.uuid4().hex[:8]}")
    said = _message(user, "I adopted a rescue greyhound yesterday")
    kept_message = _message(user, "I started a pottery class")
    forgotten = _node(user, "a rescue greyhound", source=said)
    kept = _node(user, "a pottery class", source=kept_message)
    lone = _node(user, "Ella thinks the user is caring", node_type="thought", cites=[forgotten])
    shared = _node(user, "Ella thinks the user tries new things", node_type="thought", cites=[forgotten, kept])
    theirs = _node(other, "a rescue greyhound")
    stream = get_settings().outbox_stream
    entry = redis_client.xadd(stream, {"text": "a greyhound! lovely"})
    entry_id = entry.decode() if isinstance(entry, bytes) else str(entry)
    with session_scope() as s:
        s.add(OutboxRecord(kind="reply", user_id=user, route="generated", text="a greyhound! lovely",
                           in_reply_to=said, stream_id=entry_id))  # fmt: skip

    result = invoke("memory", "forget", user, str(forgotten), "--reason", "support ticket 42")

    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == f"forgotten memory {forgotten} (+1 more memory, 1 message cleared, 1 reply cleared)"
    assert "greyhound" not in result.output
    assert _node_ids(user) == {kept, shared}  # the node and the thought citing only it are gone
    with autocommit_scope() as s:
        thought = s.get(MemoryNode, shared)
        assert thought is not None and json.loads(thought.evidence) == [kept]
        rows = s.execute(select(InboundMessage.message_id, InboundMessage.text).where(InboundMessage.user_id == user))
        texts = {message_id: text for message_id, text in rows}
    assert texts == {said: FORGOTTEN_TEXT, kept_message: "I started a pottery class"}
    assert redis_client.xrange(stream, entry_id, entry_id) == []  # forget_outside ran after the commit
    audit = next(a for a in _audits(user) if a.target == f"memory:{forgotten}")
    assert (audit.actor, audit.action, audit.reason) == (f"operator:{LOGIN}", "forget", "support ticket 42")
    assert lone in json.loads(audit.detail)["memories"]
    assert _node_ids(other) == {theirs}


def test_forgetting_a_forgotten_memory_again_is_refused_as_already_forgotten_and_changes_nothing(migrated_db):
    user = _user(f"op-{uuid.uuid4().hex[:8]}")
    node = _node(user, "a secret recipe")
    assert invoke("memory", "forget", user, str(node), "--reason", "asked").exit_code == 0
    audits = len(_audits(user))

    again = invoke("memory", "forget", user, str(node), "--reason", "asked twice")

    assert again.exit_code == 1
    assert again.stderr.startswith("refused: already_forgotten: ")
    assert again.stdout == ""
    assert len(_audits(user)) == audits


def test_forgetting_another_users_memory_id_is_refused_as_unknown_and_leaves_their_node(migrated_db):
    user, other = _user(f"op-{uuid.uuid4().hex[:8]}"), _user(f"op-{uuid.uuid4().hex[:8]}")
    mine = _node(user, "a pottery class")
    theirs = _node(other, "a rescue greyhound")

    result = invoke("memory", "forget", user, str(theirs), "--reason", "wrong user")

    assert result.exit_code == 1
    assert result.stderr.startswith("refused: unknown_item: ")
    assert _node_ids(other) == {theirs} and _node_ids(user) == {mine}
    assert _audits(user) == [] and _audits(other) == []


def test_the_actor_is_the_by_name_and_unknown_when_the_login_name_cannot_be_read(migrated_db, monkeypatch):
    import getpass

    user = _user(f"op-{uuid.uuid4().hex[:8]}")
    named, anonymous = _node(user, "a red bicycle"), _node(user, "a blue kite")
    assert invoke("memory", "forget", user, str(named), "--reason", "r", "--by", "sam").exit_code == 0

    def no_login() -> str:
        raise OSError("no login name")

    monkeypatch.setattr(getpass, "getuser", no_login)
    assert invoke("memory", "forget", user, str(anonymous), "--reason", "r").exit_code == 0

    actors = {a.target: a.actor for a in _audits(user)}
    assert actors == {f"memory:{named}": "operator:sam", f"memory:{anonymous}": "operator:unknown"}


# --- ella ledger retire ------------------------------------------------------------------------------------------


def test_ledger_retire_withdraws_the_fact_with_the_reason_keeping_its_words_and_audits_it(migrated_db):
    user = _user(f"op-{uuid.uuid4().hex[:8]}")
    fact = _fact(user, "Mia")

    result = invoke("ledger", "retire", user, str(fact), "--reason", "no longer true", "--by", "kim")

    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == f"retired fact {fact}"
    row = _facts(user)[fact]
    assert (row.status, row.status_note, row.object) == ("retired", "no longer true", "Mia")
    [audit] = _audits(user)
    assert (audit.actor, audit.action, audit.target, audit.reason) == (
        "operator:kim",
        "retire_fact",
        f"fact:{fact}",
        "no longer true",
    )


def test_retiring_a_retired_fact_is_refused_as_not_live(migrated_db):
    user = _user(f"op-{uuid.uuid4().hex[:8]}")
    fact = _fact(user, "Mia")
    assert invoke("ledger", "retire", user, str(fact), "--reason", "first").exit_code == 0

    again = invoke("ledger", "retire", user, str(fact), "--reason", "second")

    assert again.exit_code == 1
    assert again.stderr.startswith("refused: not_live: ")
    assert _facts(user)[fact].status_note == "first"
    assert [a.reason for a in _audits(user)] == ["first"]


def test_ledger_retire_needs_a_reason_and_a_fact_of_this_user(migrated_db):
    user, other = _user(f"op-{uuid.uuid4().hex[:8]}"), _user(f"op-{uuid.uuid4().hex[:8]}")
    theirs = _fact(other, "Mia")

    missing = invoke("ledger", "retire", user, str(theirs))
    blank = invoke("ledger", "retire", other, str(theirs), "--reason", "  ")
    foreign = invoke("ledger", "retire", user, str(theirs), "--reason", "wrong user")

    assert missing.exit_code == 2  # Typer's usage error: --reason is required
    assert blank.exit_code == 1 and blank.stderr.startswith("refused: invalid: ")
    assert foreign.exit_code == 1 and foreign.stderr.startswith("refused: unknown_item: ")
    assert _facts(other)[theirs].status == "active"
    assert _audits(user) == [] and _audits(other) == []


# --- ella ledger correct -----------------------------------------------------------------------------------------


def test_ledger_correct_supersedes_the_fact_with_the_value_and_audits_it(migrated_db):
    user = _user(f"op-{uuid.uuid4().hex[:8]}")
    fact = _fact(user, "Mia")

    result = invoke("ledger", "correct", user, str(fact), "Maya", "--reason", "misheard")

    assert result.exit_code == 0, result.output
    facts = _facts(user)
    [new] = [f for f in facts.values() if f.id != fact]
    assert result.stdout.strip() == f"fact {fact} corrected: new fact {new.id}"
    assert facts[fact].status == "superseded"
    assert (new.status, new.object, new.supersedes, new.tier) == ("active", "Maya", fact, "user_claim")
    [audit] = _audits(user)
    assert (audit.actor, audit.action, audit.target, audit.reason) == (
        f"operator:{LOGIN}",
        "correct_fact",
        f"fact:{fact}",
        "misheard",
    )
    assert json.loads(audit.detail)["new_fact"] == new.id


def test_an_operator_may_correct_canon(migrated_db):
    user = _user(f"op-{uuid.uuid4().hex[:8]}")
    fact = _fact(user, "yellow", tier=Tier.CANON, subject="ellahome.kitchen")

    result = invoke("ledger", "correct", user, str(fact), "green", "--reason", "the anchor was wrong")

    assert result.exit_code == 0, result.output
    facts = _facts(user)
    [new] = [f for f in facts.values() if f.id != fact]
    assert facts[fact].status == "superseded"
    assert (new.status, new.object, new.tier, new.written_by) == ("active", "green", "canon", "operator")


def test_an_empty_correction_is_refused_as_invalid_and_changes_nothing(migrated_db):
    user = _user(f"op-{uuid.uuid4().hex[:8]}")
    fact = _fact(user, "Mia")

    result = invoke("ledger", "correct", user, str(fact), "   ", "--reason", "oops")

    assert result.exit_code == 1
    assert result.stderr.startswith("refused: invalid: ")
    facts = _facts(user)
    assert list(facts) == [fact] and facts[fact].status == "active" and facts[fact].object == "Mia"
    assert _audits(user) == []


def test_correcting_another_users_fact_is_refused_as_unknown(migrated_db):
    user, other = _user(f"op-{uuid.uuid4().hex[:8]}"), _user(f"op-{uuid.uuid4().hex[:8]}")
    theirs = _fact(other, "Mia")

    result = invoke("ledger", "correct", user, str(theirs), "Maya", "--reason", "wrong user")

    assert result.exit_code == 1 and result.stderr.startswith("refused: unknown_item: ")
    assert [(f.status, f.object) for f in _facts(other).values()] == [("active", "Mia")]

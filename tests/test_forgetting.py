"""What a forget of one memory or one fact reaches (``models.forgetting``), on SQLite and PostgreSQL.

A canary word only the forgotten turn held is planted everywhere such a turn leaves its words: the message and
Ella's reply, its memory node, the conversation's chat node, thoughts that cite it or repeat it, a chapter's key
moment, a self-log entry, the boundary log, a dead letter, a finished batch request, a reply's ``seen``. After the
forget, none of the user's rows holds it, what does not depend on it stays, and another user's copy stays whole.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from adapters.db import autocommit_scope, session_scope
from adapters.dead_letters import encode_payload
from ella.embeddings import HashingEmbedder
from ella.ledger.facts import NewFact
from ella.ledger.rules import Tier, Writer
from models import (
    BoundaryEvent,
    Conversation,
    DeadLetter,
    FactReview,
    InboundMessage,
    MemoryAudit,
    MemoryNode,
    ModelBatchItem,
    NotificationCandidate,
    OutboxRecord,
    SelfLogEntry,
    StoryChapter,
    User,
    WorldFact,
)
from models.forgetting import FORGOTTEN_TEXT, FORGOTTEN_VALUE, Refused, correct_fact, forget_fact, forget_memory
from models.ledger import append
from models.supersession import supersede
from tests.test_memory_requests import rows_of

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
EMBEDDER = HashingEmbedder()
CANARY, KEPT = "okapicanary", "heronkept"


def _node(s: Session, user: str, kind: str, text: str, evidence: object = (), source: str | None = None,
          conversation: int | None = None, obj: str = "") -> int:  # fmt: skip
    node = MemoryNode(
        user_id=user, node_type=kind, subject=user, predicate="said", object=obj or text[:40], description=text,
        embedding=EMBEDDER.embed([text])[0].astype("float32").tobytes(), embedding_model=EMBEDDER.model_id,
        poignancy=4, evidence=json.dumps(list(evidence)), source_message_id=source, conversation_id=conversation,
        created_at=NOW, last_accessed_at=NOW,
    )  # fmt: skip
    s.add(node)
    s.flush()
    return node.id


def plant(user: str) -> dict[str, int | str]:
    """A closed conversation of two turns: the first holds the canary, the second does not."""
    ids: dict[str, int | str] = {}
    with session_scope() as s:
        s.add(User(id=user, timezone="UTC"))
        s.flush()
        conv = Conversation(user_id=user, started_at=NOW, last_message_at=NOW, close_due_at=NOW, closed_at=NOW)
        s.add(conv)
        s.flush()
        m1, m2 = f"{user}-m1", f"{user}-m2"
        said1, said2 = f"my codename is {CANARY}", f"I watched a {KEPT} today"
        back1, back2 = f"{CANARY} is a lovely codename", f"a {KEPT}, how lovely"
        for mid, text, back, at in ((m1, said1, back1, NOW), (m2, said2, back2, NOW + timedelta(minutes=1))):
            s.add(InboundMessage(message_id=mid, user_id=user, conversation_id=conv.id, text=text, sent_at=at))
            s.add(OutboxRecord(kind="reply", user_id=user, conversation_id=conv.id, in_reply_to=mid,
                               route="generated", text=back, stream_id=f"{len(mid)}-{ord(mid[-1])}"))  # fmt: skip
        s.flush()
        e1 = _node(s, user, "event", said1, source=m1, conversation=conv.id, obj=CANARY)
        e2 = _node(s, user, "event", said2, source=m2, conversation=conv.id, obj=KEPT)
        transcript = [f"{user}: {said1}", f"Ella: {back1}", f"{user}: {said2}", f"Ella: {back2}"]
        chat = _node(s, user, "chat", f"Ella and {user} talked: " + " / ".join(transcript), transcript,
                     conversation=conv.id)  # fmt: skip
        only = _node(s, user, "thought", "Ella thinks they like secrets", [e1])
        both = _node(s, user, "thought", "Ella thinks they are observant", [e1, e2])
        echo = _node(s, user, "thought", f"Ella keeps thinking of {CANARY}", [chat])
        memo = _node(s, user, "thought", "Ella enjoyed the talk", [chat])
        s.add(StoryChapter(user_id=user, period="2026-W47", period_start=NOW, period_end=NOW, title="A week",
                           summary="a week of talk", key_moments=json.dumps([{"text": f"the {CANARY}",
                           "node_ids": [e1]}, {"text": f"the {KEPT}", "node_ids": [e2]}]),
                           cited_node_ids=json.dumps([e1, e2])))  # fmt: skip
        s.add(SelfLogEntry(user_id=user, content=f"I said {CANARY} was lovely", sources=json.dumps([m1])))
        s.add(SelfLogEntry(user_id=user, content=f"I love a {KEPT}", sources=json.dumps([m2])))
        s.add(BoundaryEvent(user_id=user, direction="inbound", category="c", severity="low", route="r",
                            detector_version="t", message_id=m1, text=said1))  # fmt: skip
        s.add(DeadLetter(task_name="ella.perceive", reason="r", user_id=user, message_id=m1,
                         payload=encode_payload([], {"text": said1})))  # fmt: skip
        s.add(ModelBatchItem(custom_id=uuid.uuid4().hex, purpose="digest", kind="digest", user_id=user,
                             variables=json.dumps({"memories": [said1]}), status="applied"))  # fmt: skip
        s.add(OutboxRecord(kind="reply", user_id=user, route="generated", text="the sea today",
                           seen=json.dumps({"memories": [e1, e2], "thoughts": [both]})))  # fmt: skip
        ids.update(e1=e1, e2=e2, chat=chat, only=only, both=both, echo=echo, memo=memo, m1=m1, m2=m2)
    return ids


def test_forgetting_one_memory_leaves_its_words_nowhere_and_keeps_the_rest(migrated_db):
    user, other = f"f-{uuid.uuid4().hex[:8]}", f"o-{uuid.uuid4().hex[:8]}"
    ids, theirs = plant(user), plant(other)
    assert rows_of(user, CANARY)
    with session_scope() as s:
        done = forget_memory(s, user, int(ids["e1"]), embedder=EMBEDDER, actor="user", reason="asked")
    assert rows_of(user, CANARY) == {}
    assert done.stream_ids and done.nodes == {ids["e1"], ids["only"], ids["echo"]}
    with autocommit_scope() as s:
        nodes = {n.id: n for n in s.scalars(select(MemoryNode).where(MemoryNode.user_id == user))}
        assert set(nodes) == {ids["e2"], ids["chat"], ids["both"], ids["memo"]}
        assert json.loads(nodes[ids["both"]].evidence) == [ids["e2"]]
        chat = nodes[ids["chat"]]
        assert KEPT in chat.description and len(json.loads(chat.evidence)) == 2
        assert chat.embedding == EMBEDDER.embed([chat.description])[0].astype("float16").astype("float32").tobytes()
        texts = dict(s.execute(select(InboundMessage.message_id, InboundMessage.text).where(
            InboundMessage.user_id == user)).all())  # fmt: skip
        assert texts == {ids["m1"]: FORGOTTEN_TEXT, ids["m2"]: f"I watched a {KEPT} today"}
        moments = json.loads(s.scalar(select(StoryChapter.key_moments).where(StoryChapter.user_id == user)) or "[]")
        assert [m["node_ids"] for m in moments] == [[ids["e2"]]]
        assert [e.content for e in s.scalars(select(SelfLogEntry).where(SelfLogEntry.user_id == user))] == [
            f"I love a {KEPT}"
        ]
        seen = s.scalar(select(OutboxRecord.seen).where(OutboxRecord.user_id == user, OutboxRecord.seen.is_not(None)))
        assert json.loads(seen or "{}") == {"memories": [ids["e2"]], "thoughts": [ids["both"]]}
        assert s.scalar(select(User.memory_epoch).where(User.id == user)) == 1
        audit = list(s.scalars(select(MemoryAudit).where(MemoryAudit.user_id == user)))
        assert {a.target for a in audit} >= {f"memory:{ids['e1']}", f"memory:{ids['only']}"}
    assert rows_of(other, CANARY).keys() >= {"inbound_messages", "memory_nodes", "outbox_records", "self_log",
                                              "story_chapters", "boundary_events", "dead_letters"}  # fmt: skip
    with session_scope() as s:
        with pytest.raises(Refused) as again:
            forget_memory(s, user, int(ids["e1"]), embedder=EMBEDDER, actor="user", reason="asked")
        assert again.value.code == "already_forgotten"
        with pytest.raises(Refused) as foreign:
            forget_memory(s, user, int(theirs["e1"]), embedder=EMBEDDER, actor="user", reason="asked")
        assert foreign.value.code == "unknown_item"


def test_a_warm_retrieval_cache_drops_a_forgotten_memory(migrated_db):
    from adapters.memory_cache import MemoryCache

    user = f"c-{uuid.uuid4().hex[:8]}"
    ids = plant(user)
    cache = MemoryCache(10_000)
    with autocommit_scope() as s:
        assert ids["e1"] in {row.id for row in cache.index(s, user, EMBEDDER)}
    with session_scope() as s:
        forget_memory(s, user, int(ids["e1"]), embedder=EMBEDDER, actor="user", reason="asked")
    with autocommit_scope() as s:
        held = {row.id for row in cache.index(s, user, EMBEDDER)}  # another process's cache: nobody dropped it
    assert ids["e1"] not in held and ids["e2"] in held


def test_forgetting_a_fact_retires_its_chain_without_its_words_and_withdraws_what_rests_on_it(migrated_db):
    user = f"x-{uuid.uuid4().hex[:8]}"
    ids = plant(user)
    with session_scope() as s:
        first = append(s, user, NewFact("user.sister", "name", "Mia", Tier.USER_CLAIM.value,
                                         source_message_id=str(ids["m1"])), Writer.USER, NOW)  # fmt: skip
        assert first is not None
        second = supersede(s, user, first.id, NewFact("user.sister", "name", "Maya", Tier.USER_CLAIM.value),
                           Writer.USER, NOW + timedelta(days=1))  # fmt: skip
        s.add(NotificationCandidate(user_id=user, kind="followup", body="How is Maya?", fresh_until=NOW + timedelta(3),
                                    not_before=NOW, dedupe_key=uuid.uuid4().hex,
                                    based_on=json.dumps({"facts": [second.id], "self_log": []})))  # fmt: skip
        s.add(FactReview(user_id=user, subject="user.sister", predicate="name", tier="user_claim",
                         fact_ids=json.dumps([second.id]), dedupe_key=uuid.uuid4().hex))  # fmt: skip
        s.add(OutboxRecord(kind="reply", user_id=user, route="generated", text="Say hello to Maya from me!"))
        second_id = second.id
    with session_scope() as s:
        forget_fact(s, user, second_id, embedder=EMBEDDER, actor="user", reason="the user asked")
    assert rows_of(user, "Maya") == {} and rows_of(user, "Mia") == {}
    assert rows_of(user, CANARY) == {}  # the first fact's source message went with it
    with autocommit_scope() as s:
        chain = list(s.scalars(select(WorldFact).where(WorldFact.user_id == user, WorldFact.subject == "user.sister")))
        assert {f.object for f in chain} == {FORGOTTEN_VALUE} and {f.status for f in chain} == {"superseded", "retired"}
        assert all(f.status_note == "the user asked" for f in chain)
        candidate = s.scalars(select(NotificationCandidate).where(NotificationCandidate.user_id == user)).one()
        assert candidate.status == "skipped"
        assert s.scalars(select(FactReview).where(FactReview.user_id == user)).one().resolved_at is not None
    with session_scope() as s, pytest.raises(Refused) as again:
        forget_fact(s, user, second_id, embedder=EMBEDDER, actor="user", reason="again")
    assert again.value.code == "already_forgotten"


def test_a_users_correction_never_reaches_her_world_and_an_operators_may(migrated_db):
    user = f"k-{uuid.uuid4().hex[:8]}"
    with session_scope() as s:
        s.add(User(id=user, timezone="UTC"))
        s.flush()
        door = append(s, user, NewFact("ellahome.exterior.door", "color", "red", Tier.CANON.value), Writer.ANCHOR)
        mine = append(s, user, NewFact("user.job", "title", "nurse", Tier.USER_CLAIM.value), Writer.USER)
        assert door is not None and mine is not None
        door_id, mine_id = door.id, mine.id
    for actor in ("user", "gateway"):
        with session_scope() as s, pytest.raises(Refused) as refused:
            correct_fact(s, user, door_id, "blue", actor=actor)
        assert refused.value.code == "user_words_into_canon"
    with session_scope() as s:
        assert correct_fact(s, user, mine_id, "midwife", actor="user").object == "midwife"
        assert correct_fact(s, user, door_id, "green", actor="operator:ana").object == "green"
    with session_scope() as s, pytest.raises(Refused) as stale:
        correct_fact(s, user, mine_id, "doctor", actor="user")
    assert stale.value.code == "not_live"


def test_after_the_commit_the_forgotten_texts_leave_the_embedding_cache_and_the_stream(migrated_db, redis_client):
    from adapters.embedding_cache import shared_embedder
    from adapters.forgetting import forget_outside
    from adapters.settings import get_settings

    user = f"e-{uuid.uuid4().hex[:8]}"
    ids = plant(user)
    said, kept = f"my codename is {CANARY}", f"I watched a {KEPT} today"
    cache = shared_embedder()
    cache.embed([said, kept])
    stream = get_settings().outbox_stream
    entry = redis_client.xadd(stream, {"user_id": user, "text": f"{CANARY} is a lovely codename"})
    with session_scope() as s:
        record = s.scalars(select(OutboxRecord).where(OutboxRecord.in_reply_to == ids["m1"])).one()
        record.stream_id = entry if isinstance(entry, str) else entry.decode()
    with session_scope() as s:
        done = forget_memory(s, user, int(ids["e1"]), embedder=EMBEDDER, actor="user", reason="asked")
    counts = forget_outside(user, done)
    assert counts["stream"] == 1 and not redis_client.xrange(stream, min=record.stream_id, max=record.stream_id)
    assert counts["embeddings"] >= 1
    assert not redis_client.exists(cache.key(said)) and redis_client.exists(cache.key(kept))

"""The user's say over what Ella remembers, in conversation: ask, forget one thing, correct a fact.

Through the real pipeline (the gateway client, a worker, the outbox stream) on SQLite and PostgreSQL, with the
offline engine, whose rules read the requests. The canary proof: a word only the forgotten turn held is in no
table, no Redis key of ours and no later prompt, while the user's other memories and another user's stay.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from adapters.db import autocommit_scope
from ella.llm.recording import prompt_text
from ella.memory.say import Ask, HeldFact, HeldNode, MemoryView, decide, read_request
from gateway.client import enqueue_message
from models import InboundMessage, MemoryAudit, MemoryNode, OutboxRecord, WorldFact
from tests.conftest import wait_for
from tests.test_forget_user import redis_mentioning
from tests.test_memory_requests import rows_of

T0 = datetime(2026, 11, 3, 18, 0, tzinfo=UTC)


# --- the rules, no services -------------------------------------------------------------------------------------


@pytest.mark.domain
@pytest.mark.parametrize(
    ("text", "ask", "topic"),
    [
        ("What do you remember about me?", Ask.RECALL, ""),
        ("what do you know about me", Ask.RECALL, ""),
        ("What have I told you so far?", Ask.RECALL, ""),
        ("what do you remember about my sister?", Ask.RECALL, "my sister"),
        ("Forget what I told you about my sister", Ask.FORGET, "my sister"),
        ("please don't remember that", Ask.FORGET, ""),
        ("ok forget it", Ask.FORGET, ""),
        ("Can you forget about my job interview?", Ask.FORGET, "my job interview"),
        ("I do not want you to remember my address", Ask.FORGET, "my address"),
        ("That's wrong, my sister is called Maya", Ask.CORRECT, "sister"),
        ("No, my sister's name is Maya.", Ask.CORRECT, "sister"),
    ],
)
def test_the_rules_read_a_memory_request_and_what_it_is_about(text, ask, topic):
    found = read_request(text)
    assert found is not None and found.ask == ask and found.topic == topic


@pytest.mark.domain
@pytest.mark.parametrize(
    "text",
    [
        "I'll never forget that day",
        "Don't forget about me",
        "I don't remember that at all",
        "I forget things all the time",
        "Don't forget to water the plants",
        "I love my sister",
        "the interview went well",
        "Do you remember the lighthouse?",
    ],
)
def test_ordinary_talk_about_remembering_is_no_request(text):
    assert read_request(text) is None


def _fact(i: int, subject: str, predicate: str, obj: str, day: int, source: str | None = None) -> HeldFact:
    return HeldFact(i, subject, predicate, obj, "user_claim", T0 + timedelta(days=day), source)


@pytest.mark.domain
def test_recall_lists_the_users_facts_newest_first_with_the_day_and_her_thoughts():
    # (neither fact is of the core profile, which comes first: tests/test_core_profile.py)
    view = MemoryView(
        facts=[_fact(1, "user.sister", "lives_in", "Leeds", 0), _fact(2, "user", "has_upcoming", "a job interview", 5)],
        thoughts=[HeldNode(9, "thought", "Ella thinks Sam is nervous about work", T0 + timedelta(days=6))],
    )
    decision = decide(read_request("what do you remember about me?"), view)  # type: ignore[arg-type]
    assert decision is not None and not decision.changes
    text = decision.reply
    assert text.index("job interview") < text.index("Leeds")  # newest first
    assert "you told me on 3 November" in text and "you told me on 8 November" in text
    assert "Sam is nervous about work (from 9 November)" in text
    assert decision.shown_facts == (2, 1) and decision.shown_nodes == (9,)


@pytest.mark.domain
def test_a_topic_naming_two_subjects_is_asked_about_not_guessed():
    view = MemoryView(facts=[_fact(1, "user.sister", "name", "Maya", 0), _fact(2, "user.coworker", "name", "Maya", 1)])
    decision = decide(read_request("forget about Maya"), view)  # type: ignore[arg-type]
    assert decision is not None and decision.outcome == "asked" and not decision.changes
    assert "your sister" in decision.reply and "your coworker" in decision.reply


@pytest.mark.domain
def test_forget_that_with_nothing_before_it_asks_and_a_topic_of_nothing_says_so():
    asked = decide(read_request("forget that"), MemoryView())  # type: ignore[arg-type]
    assert asked is not None and asked.outcome == "asked" and not asked.changes
    nothing = decide(
        read_request("forget about my boat"), MemoryView(facts=[_fact(1, "user.sister", "name", "Mia", 0)])
    )  # type: ignore[arg-type]
    assert nothing is not None and nothing.outcome == "nothing" and not nothing.changes


@pytest.mark.domain
def test_a_correction_supersedes_the_one_fact_it_names():
    view = MemoryView(facts=[_fact(1, "user.sister", "name", "Mia", 0), _fact(2, "user.job", "title", "nurse", 0)])
    decision = decide(read_request("That's wrong, my sister is called Maya"), view)  # type: ignore[arg-type]
    assert decision is not None and decision.correct == (1, "Maya")
    assert "your sister's name is Maya, not Mia" in decision.reply
    assert decide(read_request("No, my cousin is called Bo"), view) is None  # names nothing held: plain news  # type: ignore[arg-type]


# --- through the pipeline -----------------------------------------------------------------------------------------


def _say(user: str, text: str, at: datetime) -> str:
    mid = f"m-{uuid.uuid4().hex[:10]}"
    enqueue_message(message_id=mid, user_id=user, text=text, sent_at=at)
    return mid


def _reply(outbox, mid: str):
    return wait_for(lambda: next((e for e in outbox() if e.in_reply_to == mid), None), 60, what=f"the reply to {mid}")


def _facts(user: str, status: str | None = None) -> list[WorldFact]:
    with autocommit_scope() as s:
        query = select(WorldFact).where(WorldFact.user_id == user, WorldFact.subject.startswith("user"))
        if status:
            query = query.where(WorldFact.status == status)
        return list(s.scalars(query))


def _nodes(user: str) -> list[MemoryNode]:
    with autocommit_scope() as s:
        return list(s.scalars(select(MemoryNode).where(MemoryNode.user_id == user)))


@pytest.mark.integration
def test_ask_forget_and_correct_in_conversation_and_the_forgotten_turn_leaves_nothing(
    start_worker, outbox, redis_client, tmp_path
):
    log = tmp_path / "requests.jsonl"
    start_worker(env={"ELLA_LLM_REQUEST_LOG": str(log)})
    user, other = f"say-{uuid.uuid4().hex[:8]}", f"other-{uuid.uuid4().hex[:8]}"
    canary, kept = "zanzibarqx", "lighthousekeeper"
    now = datetime.now(UTC) - timedelta(minutes=30)

    told = _say(user, f"My sister is called Mia and her secret codename is {canary}.", now)
    _reply(outbox, told)
    job = _say(user, f"I work as a {kept} on the coast.", now + timedelta(minutes=1))
    _reply(outbox, job)
    theirs = _say(other, f"My sister is called Mia and her secret codename is {canary}.", now)
    _reply(outbox, theirs)
    wait_for(lambda: any(f.subject == "user.sister" for f in _facts(user, "active")), 60, what="the sister fact")
    wait_for(lambda: len([n for n in _nodes(user) if n.node_type == "event"]) == 2, 60, what="both turns perceived")

    asked = _say(user, "What do you remember about me?", now + timedelta(minutes=2))
    answer = _reply(outbox, asked)
    assert answer.category == "memory" and answer.route == "canned"
    assert "Mia" in answer.text and "you told me on" in answer.text
    assert "ellahome" not in answer.text and "door" not in answer.text  # never her world's canon

    correction = _say(user, "That's wrong, my sister is called Maya", now + timedelta(minutes=3))
    corrected = _reply(outbox, correction)
    assert "Maya" in corrected.text and corrected.category == "memory"
    names = {f.object: f.status for f in _facts(user) if f.subject == "user.sister" and f.predicate == "name"}
    assert names.get("Maya") == "active" and names.get("Mia") == "superseded"

    forget = _say(user, "Forget what I told you about my sister", now + timedelta(minutes=4))
    confirmed = _reply(outbox, forget)
    assert confirmed.text.startswith("Done:") and confirmed.text.count(".") <= 2  # one line

    with autocommit_scope() as s:
        mine = [m.text for m in s.scalars(select(InboundMessage).where(InboundMessage.user_id == user))]
        replies = [r.text for r in s.scalars(select(OutboxRecord).where(OutboxRecord.user_id == user))]
        audit = list(s.scalars(select(MemoryAudit).where(MemoryAudit.user_id == user)))
    assert rows_of(user, canary) == {} and rows_of(user, "Mia") == {}  # no table holds the forgotten words
    assert rows_of(other, canary)  # while the other user's copy stays
    assert not any(canary in t for t in mine + replies)
    assert not any("sister" in t.casefold() for t in mine)  # the request's own words went too
    assert not any(canary in n.description or "Mia" in n.description for n in _nodes(user))
    assert any(kept in n.description for n in _nodes(user))  # the other memory stays
    assert {f.object for f in _facts(user) if f.subject == "user.sister"} == {"(forgotten)"}
    assert all(f.status != "active" for f in _facts(user) if f.subject == "user.sister")
    assert audit and {a.action for a in audit} >= {"forget", "correct_fact"}
    assert all(canary not in (a.reason + a.detail) for a in audit)
    stream_user = [e for e in outbox() if e.user_id == user]
    assert not any(canary in e.text for e in stream_user)
    assert all(user not in key for key in redis_mentioning(redis_client, canary))

    with autocommit_scope() as s:
        assert any(canary in m for m in s.scalars(select(InboundMessage.text).where(InboundMessage.user_id == other)))

    before = len(log.read_text().splitlines())
    later = _say(user, f"Tell me about my sister and {kept} days.", now + timedelta(minutes=5))
    _reply(outbox, later)
    wait_for(lambda: len(log.read_text().splitlines()) > before, 30, what="the later reply's request")
    later_prompts = [prompt_text(json.loads(line)) for line in log.read_text().splitlines()[before:]]
    assert later_prompts and not any(canary in p or "Mia" in p for p in later_prompts)
    assert any(kept in p for p in later_prompts)  # the memory that stayed is still shown


# --- the reply call's own reading, on a model's path ---------------------------------------------------------------


def _reading_model(memory: str, about: str):
    def answer(request) -> str:
        return json.dumps(
            {
                "reply": "Of course. I walked by the harbour this morning.",
                "perception": {"score": 3, "subject": "user", "predicate": "asked", "object": "something"},
                "self_statements": [{"content": "I walked by the harbour", "about": ["harbour"], "confidence": 1}],
                "memory": memory,
                "memory_about": about,
            }
        )

    return answer


def test_a_request_the_rules_miss_is_read_by_the_reply_call_and_answered_from_what_she_holds(migrated_db, monkeypatch):
    import adapters.reply_service
    from adapters.db import session_scope
    from ella.contract import IngestPayload
    from ella.ledger.facts import NewFact
    from ella.ledger.rules import Tier, Writer
    from models import SelfLogEntry, User
    from models.ledger import append
    from tasks.ingest import ingest
    from tests.test_world_pipeline import Scripted, use_model

    quiet = "honestly I'd rather you didn't hang on to the stuff about my ex"
    assert read_request(quiet) is None  # the premise: only the reading sees it
    user = f"rd-{uuid.uuid4().hex[:8]}"
    with session_scope() as s:
        s.add(User(id=user, timezone="UTC"))
        s.flush()
        append(s, user, NewFact("user.ex", "name", "Jordan", Tier.USER_CLAIM.value), Writer.USER, T0)
    model = Scripted(_reading_model("forget", "my ex"))
    use_model(monkeypatch, adapters.reply_service, model)
    message_id = uuid.uuid4().hex
    ingest(IngestPayload(message_id=message_id, user_id=user, text=quiet, sent_at=datetime.now(UTC)), task_id=None)
    with autocommit_scope() as s:
        record = s.scalars(select(OutboxRecord).where(OutboxRecord.in_reply_to == message_id)).one()
        facts = list(s.scalars(select(WorldFact).where(WorldFact.user_id == user, WorldFact.subject == "user.ex")))
        assert list(s.scalars(select(SelfLogEntry).where(SelfLogEntry.user_id == user))) == []
        said = s.scalar(select(InboundMessage.text).where(InboundMessage.message_id == message_id))
    assert (
        "Done: I've let go of what you told me about your ex" in record.text and "harbour" not in record.text
    )  # the model's reply gave way
    assert (record.route, record.category) == ("canned", "memory")
    assert [(f.status, f.object) for f in facts] == [("retired", "(forgotten)")]
    assert said != quiet and "ex" not in (said or "").split()  # the request's own words are not kept
    assert [r.kind for r in model.requests] == ["reply"]  # one call: the reading came with the reply


def test_a_request_that_can_no_longer_be_carried_out_still_stores_the_turn_and_says_so(migrated_db):
    from adapters.db import session_scope
    from ella.contract import IngestPayload
    from ella.ledger.facts import NewFact
    from ella.ledger.rules import Tier, Writer
    from ella.memory.say import SayDecision
    from ella.reply import OutgoingReply, ReplyOutcome
    from models import User
    from models.ledger import append
    from models.supersession import supersede
    from tasks.ingest import NOT_CARRIED_OUT, store_turn

    user = f"nc-{uuid.uuid4().hex[:8]}"
    with session_scope() as s:
        s.add(User(id=user, timezone="UTC"))
        s.flush()
        fact = append(s, user, NewFact("user.sister", "name", "Mia", Tier.USER_CLAIM.value), Writer.USER, T0)
        assert fact is not None
        supersede(s, user, fact.id, NewFact("user.sister", "name", "Maya", Tier.USER_CLAIM.value), Writer.USER, T0)
        stale = fact.id
    decision = SayDecision(Ask.CORRECT, "Thank you for telling me.", correct=(stale, "Maia"), outcome="corrected")
    outcome = ReplyOutcome(OutgoingReply("Thank you for telling me.", route="canned", category="memory"), say=decision)
    payload = IngestPayload(message_id=uuid.uuid4().hex, user_id=user, text="no, it's Maia", sent_at=datetime.now(UTC))
    with session_scope() as s:
        record = store_turn(s, payload, outcome, None)
        assert NOT_CARRIED_OUT in record.text
    assert {f.object for f in _facts(user, "active")} == {"Maya"}  # nothing changed
    with autocommit_scope() as s:
        assert s.scalar(select(InboundMessage.text).where(InboundMessage.message_id == payload.message_id))

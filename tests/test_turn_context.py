"""A reply's reads, gathered in one place (issue 35, item 3: ``adapters.turn_context``, ``models.turn_opening``).

Why: ingest had grown to 19 statements per message, seven of them reads before the first write, two of them the
same history. These pin what the fewer statements must still say: the opening read answers what the separate
reads answered (a stored message and who stored it, the user's row, zone, locale, world version, and the same
history ``open_conversation_history`` gives, whose last eight turns the guard reads); a turn that continues the
open conversation is recorded in one UPDATE with ``current_conversation``'s rules; and a turn's whole ingest stays
within its statement budget on both databases.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import event, select

from adapters.db import get_engine, session_scope
from adapters.settings import get_settings
from adapters.turn_context import GUARD_CONTEXT_TURNS, earlier_turns, new_user_defaults
from ella.contract import parse_ingest
from ella.reply import OutgoingReply
from models.conversation import Conversation, continue_conversation
from models.turn_opening import open_turn
from models.turns import open_conversation_history, store_exchange
from models.user import User
from models.world_clock import bump_world_version

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
TIMEOUT = timedelta(minutes=30)


def store(user_id: str, message_id: str, text: str, at: datetime, conversation: str | None = None) -> None:
    with session_scope() as s:
        store_exchange(s, message_id=message_id, user_id=user_id, text=text, sent_at=at,
                       external_conversation_id=conversation, reply=OutgoingReply(text=f"re: {text}"),
                       timeout=TIMEOUT, user_defaults=new_user_defaults(get_settings()), task_id=None)  # fmt: skip


def test_the_opening_read_answers_what_the_separate_reads_did(migrated_db) -> None:
    for i in range(6):
        store("ana", f"m{i}", f"line {i}", T0 + timedelta(minutes=i))
    with session_scope() as s:
        user = s.get_one(User, "ana")
        user.locale, user.timezone = "de_DE", "Europe/Berlin"
        bump_world_version(s, "ana")
        bump_world_version(s, "ana")
    at = T0 + timedelta(minutes=7)
    with session_scope() as s:
        opening = open_turn(s, "ana", "m-new", at)
        history = open_conversation_history(s, "ana", at=at)
        stored = open_turn(s, "ana", "m3", at)
        other = open_turn(s, "bo", "m3", at)  # another user reusing the id
        stranger = open_turn(s, "nobody", "x", at)
    assert opening.stored_by is None and opening.known
    assert (opening.timezone, opening.locale, opening.world_version) == ("Europe/Berlin", "de_DE", 2)
    assert opening.history == history and len(history) == 12  # six turns and six replies, oldest first
    assert earlier_turns(opening) == history[-GUARD_CONTEXT_TURNS:]
    assert stored.stored_by == "ana" and other.stored_by == "ana"
    assert (stranger.known, stranger.history, stranger.timezone, stranger.world_version) == (False, [], "UTC", 0)


def test_the_opening_history_ends_with_a_conversation_due_to_close(migrated_db) -> None:
    store("ana", "m1", "yesterday's talk", T0)
    with session_scope() as s:
        assert open_turn(s, "ana", "m2", T0 + TIMEOUT + timedelta(minutes=1)).history == []
        assert len(open_turn(s, "ana", "m2", T0 + timedelta(minutes=5)).history) == 2


def test_a_continuing_turn_is_recorded_in_one_update_with_the_rules_of_current_conversation(migrated_db) -> None:
    store("ana", "m1", "hello", T0, conversation="c1")
    with session_scope() as s:
        first = s.scalars(select(Conversation).where(Conversation.user_id == "ana")).one()
        first_id, due = first.id, first.close_due_at
    with session_scope() as s:
        later = continue_conversation(s, "ana", T0 + timedelta(minutes=5), "c1", TIMEOUT)
        assert later is not None and later.id == first_id and later.turn_count == 2
        assert later.last_message_at == T0 + timedelta(minutes=5) and later.close_due_at == T0 + timedelta(minutes=35)
    with session_scope() as s:  # a turn older than the last one counts without moving the times back
        older = continue_conversation(s, "ana", T0 + timedelta(minutes=1), None, TIMEOUT)
        assert older is not None and older.turn_count == 3 and older.close_due_at == T0 + timedelta(minutes=35)
    with session_scope() as s:  # filed under another conversation id, or after the due time: not continued
        assert continue_conversation(s, "ana", T0 + timedelta(minutes=6), "c2", TIMEOUT) is None
        assert continue_conversation(s, "ana", T0 + timedelta(hours=2), "c1", TIMEOUT) is None
        assert continue_conversation(s, "bo", T0 + timedelta(minutes=6), None, TIMEOUT) is None
    assert due == T0 + TIMEOUT
    store("ana", "m2", "under c2 now", T0 + timedelta(minutes=7), conversation="c2")  # the slow path takes it
    with session_scope() as s:
        rows = s.scalars(select(Conversation).where(Conversation.user_id == "ana").order_by(Conversation.id)).all()
        assert [(c.close_reason, c.external_id) for c in rows] == [("replaced", "c1"), (None, "c2")]


def test_an_ordinary_turn_ingests_within_ten_statements(migrated_db) -> None:
    """The statement budget of issue 35 on the offline engine: the opening read, the facts, the memory stream,
    the usage row, the user, the conversation, the message, the reply, what the turn owes and the publish mark
    (with the settle, in one statement on PostgreSQL; SQLite takes one more)."""
    from tasks.ingest import ingest

    counted: list[str] = []

    def count(_c, _cur, statement, *_a) -> None:
        if not statement.startswith("BEGIN"):  # SQLite's BEGIN IMMEDIATE (PostgreSQL's BEGIN is not a statement here)
            counted.append(statement)

    budget = 10 if get_engine().dialect.name == "postgresql" else 11
    sent: list[int] = []
    for i in range(6):
        payload = parse_ingest((), {"message_id": f"t{i}", "user_id": "ana", "text": f"I walked by the river ({i})",
                                    "sent_at": (T0 + timedelta(minutes=i)).isoformat()}, 16000)  # fmt: skip
        counted.clear()
        event.listen(get_engine(), "before_cursor_execute", count)
        try:
            ingest(payload, f"task-{i}", True, 0.0, send=lambda rows: [row.id for row in rows])
        finally:
            event.remove(get_engine(), "before_cursor_execute", count)
        sent.append(len(counted))
    assert max(sent[1:]) <= budget, [" ".join(s.split())[:50] for s in counted]  # a new user's first turn opens more


def test_a_memory_request_ingests_within_ten_statements_and_its_view_lists_newest_first(migrated_db) -> None:
    """A "what do you remember" turn reads its memory view instead of the reply's context: the user's facts, the
    days they were told (one more read once a fact has its source message), her thoughts and what was said (one
    read for both since they are shown as one view) and the turn before. It stays within the ordinary turn's
    budget (it took 11 on PostgreSQL when thoughts and events were two reads), and the one read still lists each
    newest first."""
    from adapters.turn_context import load_memory_view
    from models.memory import insert_node
    from models.pending_effects import owed_of
    from tasks.ingest import ingest
    from workers.effects import task_named

    texts = ["I work as a nurse in Leeds, nights mostly", "My sister Anna is visiting next week",
             "Today I went for a walk by the river", "What do you remember about me?"]  # fmt: skip
    counted: list[str] = []

    def count(_c, _cur, statement, *_a) -> None:
        if not statement.startswith("BEGIN"):
            counted.append(statement)

    for i, text in enumerate(texts):
        payload = parse_ingest((), {"message_id": f"r{i}", "user_id": "ana", "text": text,
                                    "sent_at": (T0 + timedelta(minutes=i)).isoformat()}, 16000)  # fmt: skip
        counted.clear()
        event.listen(get_engine(), "before_cursor_execute", count)
        try:
            _, follow = ingest(payload, f"task-{i}", True, 0.0, send=lambda rows: [row.id for row in rows])
        finally:
            event.remove(get_engine(), "before_cursor_execute", count)
        for row in follow.get("owed_rows", []):  # the turn's memory and facts, as a worker would run them
            for effect in owed_of(row).effects:
                task_named(effect.task).apply(kwargs=effect.kwargs)
    assert "say" in follow, "the last turn was not read as a memory request"
    budget = 10 if get_engine().dialect.name == "postgresql" else 11
    assert len(counted) <= budget, [" ".join(s.split())[:50] for s in counted]

    with session_scope() as s:  # two thoughts, the older stored last: the view's order is by time, not by id
        for days, text in ((1, "Ana seems to like the river"), (2, "Ana's sister matters to her")):
            insert_node(s, dict(user_id="ana", node_type="thought", subject="ana", predicate="is", object=text,
                                description=text, embedding=b"\0" * 16, embedding_model="m", poignancy=3,
                                created_at=T0 - timedelta(days=days), dedupe_key=f"t:{days}"))  # fmt: skip
    view = load_memory_view(payload)
    assert any(f.source_message_id == "r0" for f in view.facts)  # a fact with its source: the "told" read ran
    assert [n.source_message_id for n in view.nodes][:3] == ["r2", "r1", "r0"]  # what was said, newest first
    assert [n.description for n in view.thoughts] == ["Ana seems to like the river", "Ana's sister matters to her"]

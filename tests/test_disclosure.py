"""AI disclosure (NY GBL §1702): at the start of every conversation, and every 3 hours of a continuing one."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from adapters.db import autocommit_scope, session_scope
from adapters.settings import get_settings
from ella.contract import IngestPayload
from ella.guard.disclosure import AI_NOTICE, DisclosurePolicy, ai_notice_due
from ella.reply import disclose
from models import Conversation, OutboxRecord, User

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


@pytest.mark.domain
def test_every_conversation_starts_with_the_notice_however_recently_the_user_was_told():
    policy = DisclosurePolicy()
    for told in (None, NOW - timedelta(days=2), NOW - timedelta(hours=1), NOW - timedelta(minutes=3), NOW):
        assert ai_notice_due(policy, NOW, starting=True, last=told)
        start = disclose("hi again", NOW, policy, first_turn=True, ai_disclosed_at=told, is_minor=False,
                         conversation_started_at=NOW, break_reminded_at=None)  # fmt: skip
        assert start.text == f"{AI_NOTICE} hi again" and start.ai_disclosed_at == NOW
    assert not ai_notice_due(DisclosurePolicy(enabled=False), NOW, starting=True, last=None)


@pytest.mark.domain
def test_a_continuing_conversation_is_told_again_once_three_hours_passed_since_the_last_notice():
    policy = DisclosurePolicy()
    told = NOW - timedelta(hours=3)
    assert ai_notice_due(policy, NOW, starting=False, last=told)
    assert not ai_notice_due(policy, NOW - timedelta(seconds=1), starting=False, last=told)
    later = disclose("and then?", NOW + timedelta(minutes=1), policy, first_turn=False, ai_disclosed_at=told,
                     is_minor=False, conversation_started_at=told, break_reminded_at=None)  # fmt: skip
    assert later.text.startswith(AI_NOTICE) and later.ai_disclosed_at == NOW + timedelta(minutes=1)
    within = disclose("and then?", NOW - timedelta(hours=1), policy, first_turn=False, ai_disclosed_at=told,
                      is_minor=False, conversation_started_at=told, break_reminded_at=None)  # fmt: skip
    assert within.text == "and then?" and within.ai_disclosed_at == told


def say(user: str, text: str, at: datetime, conversation_id: str | None = None) -> OutboxRecord:
    from tasks.ingest import ingest

    message_id = uuid.uuid4().hex
    payload = IngestPayload(message_id=message_id, user_id=user, text=text, sent_at=at, conversation_id=conversation_id)
    ingest(payload, task_id=None)
    with autocommit_scope() as s:
        return s.scalars(select(OutboxRecord).where(OutboxRecord.in_reply_to == message_id)).one()


def new_user() -> str:
    user = f"d-{uuid.uuid4().hex[:8]}"
    with session_scope() as s:
        s.add(User(id=user))
    return user


def conversations(user: str) -> int:
    with autocommit_scope() as s:
        return len(list(s.scalars(select(Conversation.id).where(Conversation.user_id == user))))


def test_a_users_second_conversation_the_same_day_starts_with_the_notice(migrated_db):
    user = new_user()
    first = say(user, "hi Ella, quick one before work", NOW)
    same = say(user, "ok, off I go", NOW + timedelta(minutes=2))
    back = say(user, "I'm back, long day", NOW + timedelta(hours=2))  # after the inactivity timeout
    assert conversations(user) == 2
    assert first.text.startswith(AI_NOTICE) and AI_NOTICE not in same.text
    assert back.text.startswith(AI_NOTICE)  # the old once-a-day rule left this one without it


def test_a_new_gateway_conversation_starts_with_the_notice_minutes_after_the_last(migrated_db):
    user = new_user()
    say(user, "hello", NOW, conversation_id="c-1")
    again = say(user, "new chat, different topic", NOW + timedelta(minutes=3), conversation_id="c-2")
    assert conversations(user) == 2 and again.text.startswith(AI_NOTICE)


def test_a_continuing_conversation_gets_the_notice_again_after_three_hours_not_at_two(migrated_db, monkeypatch):
    monkeypatch.setenv("ELLA_CONVERSATION_INACTIVITY_TIMEOUT_S", str(4 * 3600))
    get_settings.cache_clear()
    try:
        user = new_user()
        start = say(user, "hey", NOW)
        hour = say(user, "still here", NOW + timedelta(hours=1))
        two = say(user, "still here, two hours in", NOW + timedelta(hours=2))
        past_three = say(user, "and still here", NOW + timedelta(hours=3, minutes=1))
    finally:
        get_settings.cache_clear()
    assert conversations(user) == 1
    assert [AI_NOTICE in r.text for r in (start, hour, two, past_three)] == [True, False, False, True]
    with autocommit_scope() as s:
        assert s.get_one(User, user).ai_disclosed_at == NOW + timedelta(hours=3, minutes=1)

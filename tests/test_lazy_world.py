"""The lazy world: tickers run on read behind a Redis watermark, the ledger stays the source of truth.

The service tests run on real Redis (this run's, ``adapters.redis_conn.get_redis``) and each database back end.
"""

from __future__ import annotations

import threading
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import Engine, event

from adapters.db import autocommit_scope, session_scope
from ella.ledger.anchors import WEATHER_SUBJECT, weather_for
from ella.ledger.rules import Tier, TrustViolation, Writer
from ella.world import tickers as world
from ella.world.lazy import Entry, Staleness, fresh_until, stale_subjects
from ella.world.tickers import BOOK_SUBJECT, HAPPENING_SUBJECT, MOOD_SUBJECT, Previous, Tick, WorldView
from models import User, WorldFact
from models.ledger import NewFact, append, current, history
from models.supersession import supersede

T0 = datetime(2026, 12, 1, 9, 30, tzinfo=UTC)
LONDON = ZoneInfo("Europe/London")
SUBJECTS = [t.subject for t in world.tickers()]


# --- the tickers and the watermark (plain Python) -------------------------------------------------------------


@pytest.mark.domain
def test_tickers_are_deterministic_by_user_and_day_and_differ_between_users():
    view = WorldView("ada", LONDON)
    for tick in (world.tick_mood, world.tick_book, world.tick_happening, world.tick_weather):
        assert tick(None, T0, view) == tick(None, T0 + timedelta(minutes=20), view)
    assert world.tick_weather(None, T0, view).text == weather_for("ada", T0.date())
    many = {world.tick_book(None, T0, WorldView(f"user-{i}", LONDON)).text for i in range(40)}
    assert len(many) > 5


@pytest.mark.domain
def test_ella_reads_twenty_to_fifty_pages_a_day_and_starts_the_next_book_when_one_is_finished():
    view = WorldView("ada", LONDON)
    first = world.tick_book(None, T0, view)
    day = world.tick_book(Previous(first.value, T0), T0 + timedelta(days=1), view)
    assert day.value["title"] == first.value["title"] and 20 <= day.value["page"] - first.value["page"] <= 50
    at, value, titles = T0, first.value, [first.value["title"]]
    for _ in range(60):  # two months of daily reads
        at += timedelta(days=1)
        value = world.tick_book(Previous(value, at - timedelta(days=1)), at, view).value
        assert 1 <= value["page"] <= value["pages"]
        if value["title"] != titles[-1]:
            titles.append(value["title"])
    assert 4 <= len(titles) <= 20 and titles[1] == world.BOOKS[(world._next_book(titles[0]))][0]
    assert world.book_value(FakeFact(object=world.book_text(value))) == value  # the ledger's words give it back


@pytest.mark.domain
def test_the_mood_follows_the_conversations_tone():
    assert world.tone_of(["I'm so tired and worried about tomorrow"]) == "low"
    assert world.tone_of(["I got the job, I'm so happy!"]) == "bright"
    assert world.tone_of(["what's for dinner"]) == "neutral"
    plain = world.tick_mood(None, T0, WorldView("ada", LONDON)).value
    low = world.tick_mood(None, T0, WorldView("ada", LONDON, tone="low")).value
    assert low.startswith("gentle and attentive") and plain in low


@pytest.mark.domain
def test_a_micro_event_is_observed_or_rumored_and_a_ticker_that_answers_canon_is_refused():
    tiers = Counter(
        world.tick_happening(None, T0 + timedelta(hours=8 * i), WorldView(f"u{i % 7}", LONDON)).tier for i in range(200)
    )
    assert set(tiers) == {Tier.OBSERVED.value, Tier.RUMORED.value}
    bad = Tick({"source": "cat", "event": "the cat is now a dog"}, "cat", "the cat is now a dog", Tier.CANON.value)
    with pytest.raises(TrustViolation):
        world.new_fact(world.HAPPENING, bad, "ada", T0, LONDON)


@pytest.mark.domain
def test_a_daily_subject_goes_stale_at_the_users_midnight_and_a_four_hour_one_after_four_hours():
    late = datetime(2026, 12, 1, 23, 0, tzinfo=LONDON)
    assert fresh_until(Staleness(timedelta(hours=24), daily=True), late, LONDON) == datetime(2026, 12, 2, tzinfo=LONDON)
    assert fresh_until(Staleness(timedelta(hours=4)), late, LONDON) == late + timedelta(hours=4)
    entry = Entry(MOOD_SUBJECT, "calm", "calm", "canon", T0, T0 + timedelta(hours=4))
    assert stale_subjects([MOOD_SUBJECT, BOOK_SUBJECT], {MOOD_SUBJECT: entry}, T0 + timedelta(hours=1)) == [
        BOOK_SUBJECT
    ]
    assert stale_subjects([MOOD_SUBJECT], {MOOD_SUBJECT: entry}, T0 + timedelta(hours=4)) == [MOOD_SUBJECT]
    assert Entry.decode(MOOD_SUBJECT, entry.encode()) == entry and Entry.decode(MOOD_SUBJECT, "{not json") is None


class FakeFact:
    def __init__(self, **kw: Any) -> None:
        self.__dict__.update({"id": 1, "tier": "canon", "status": "active", "predicate": "reading", **kw})


# --- the Redis watermark cache --------------------------------------------------------------------------------


@pytest.fixture
def lazy(migrated_db, redis_client):
    from adapters.world_cache import get_world_cache

    return get_world_cache()


def make_user(timezone: str = "Europe/London") -> str:
    user = f"lw-{uuid.uuid4().hex[:8]}"
    with session_scope() as s:
        s.add(User(id=user, timezone=timezone))
    return user


@contextmanager
def counted_queries() -> Iterator[list[str]]:
    """Every statement any engine of this process sends while the block runs."""
    statements: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        statements.append(statement)

    event.listen(Engine, "before_cursor_execute", count)
    try:
        yield statements
    finally:
        event.remove(Engine, "before_cursor_execute", count)


def world_history(user: str, subject: str) -> list[WorldFact]:
    with autocommit_scope() as s:
        return history(s, user, subject)


def test_a_fresh_watermark_is_read_from_redis_with_one_primary_key_lookup_of_the_world_version(lazy):
    """The one statement is what tells a warm hash from one whose invalidation was lost: it reads one row."""
    user = make_user()
    first = lazy.read(user, T0)
    assert not first.warm and set(first.ticked) == set(SUBJECTS)
    with counted_queries() as statements:
        again = lazy.read(user, T0 + timedelta(minutes=30))
    assert len(statements) == 1 and "FROM world_versions" in statements[0]
    assert "WHERE world_versions.user_id = " in statements[0]
    assert again.warm and again.ticked == () and again.entries == first.entries


def test_a_stale_subject_is_ticked_once_by_sixteen_concurrent_readers(lazy):
    user = make_user()
    lazy.read(user, T0)
    later = T0 + timedelta(days=2)  # every subject is stale
    before = {s: len(world_history(user, s)) for s in SUBJECTS}
    start, results, errors = threading.Barrier(16), [], []

    def reader() -> None:
        try:
            start.wait(10)
            results.append(lazy.read(user, later))
        except Exception as exc:  # noqa: BLE001  (reported below)
            errors.append(exc)

    threads = [threading.Thread(target=reader) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == [] and len(results) == 16
    assert Counter(s for r in results for s in r.ticked) == Counter(SUBJECTS)  # each subject by one reader
    assert {s: len(world_history(user, s)) - before[s] for s in SUBJECTS} == dict.fromkeys(SUBJECTS, 1)
    assert len({tuple(sorted((s, e.text) for s, e in r.entries.items())) for r in results}) == 1


def test_a_ledger_write_to_a_world_subject_drops_that_subject_from_the_cache(lazy):
    user = make_user()
    lazy.read(user, T0)
    with session_scope() as s:  # a fact outside the lazy world leaves the cache alone
        append(s, user, NewFact("ellahome.garden.bench", "color", "green", "canon"), Writer.OPERATOR, T0)
    assert set(lazy.cached(user)) == set(SUBJECTS)
    with session_scope() as s:
        (mood,) = current(s, user, MOOD_SUBJECT)
        new = NewFact(MOOD_SUBJECT, "mood", "cross with the gulls", "canon")
        supersede(s, user, mood.id, new, Writer.OPERATOR, T0 + timedelta(minutes=1))
    assert set(lazy.cached(user)) == set(SUBJECTS) - {MOOD_SUBJECT}
    read = lazy.read(user, T0 + timedelta(minutes=2))
    assert read.value(MOOD_SUBJECT) == "cross with the gulls"
    # the operator's fact is fresh: no tick; the others are rebuilt too, at the database's new world version
    assert set(read.rebuilt) == set(SUBJECTS) and read.ticked == ()
    assert lazy.read(user, T0 + timedelta(minutes=3)).warm


def test_a_flushed_cache_is_rebuilt_from_the_ledger_with_the_same_values_and_no_new_tick(lazy, redis_client):
    from adapters.world_cache import cache_key

    user = make_user()
    first = lazy.read(user, T0)
    facts = {s: len(world_history(user, s)) for s in SUBJECTS}
    redis_client.delete(cache_key(user))
    assert lazy.cached(user) == {}
    rebuilt = lazy.read(user, T0 + timedelta(hours=1))
    assert rebuilt.ticked == () and set(rebuilt.rebuilt) == set(SUBJECTS)
    assert {s: (e.value, e.touched, e.until) for s, e in rebuilt.entries.items()} == {
        s: (e.value, e.touched, e.until) for s, e in first.entries.items()
    }
    assert {s: len(world_history(user, s)) for s in SUBJECTS} == facts  # nothing written
    assert lazy.read(user, T0 + timedelta(hours=1, minutes=1)).warm  # and the watermark is back


def test_micro_events_land_in_the_ledger_as_observed_or_rumored_and_only_the_clock_writes_canon(lazy):
    user = make_user()
    for i in range(30):  # ten days, three reads a day: every read finds the happening stale
        lazy.read(user, T0 + timedelta(hours=8 * i + 1))
    happenings = world_history(user, HAPPENING_SUBJECT)
    assert len(happenings) == 30
    assert {f.tier for f in happenings} == {Tier.OBSERVED.value, Tier.RUMORED.value}
    assert {f.written_by for f in happenings} == {Writer.WORLD_TICK.value}
    assert sum(f.status == "active" for f in happenings) == 1  # each one superseded the one before
    canon = [f for f in world_history(user, "") if f.tier == Tier.CANON.value]
    assert {f.written_by for f in canon} == {Writer.ANCHOR.value, Writer.WORLD_TICK.value}
    assert {f.subject for f in canon if f.written_by == Writer.WORLD_TICK.value} == {
        WEATHER_SUBJECT, MOOD_SUBJECT, BOOK_SUBJECT
    }  # fmt: skip


def test_a_chatty_day_ticks_each_subject_once_per_staleness_period(lazy):
    user = make_user("UTC")
    day = datetime(2026, 12, 2, 0, 5, tzinfo=UTC)
    times = [day + timedelta(minutes=70 * i) for i in range(20)]  # 20 chats over 22 hours
    reads = [lazy.read(user, at) for at in times]
    ticks = Counter(s for r in reads for s in r.ticked)
    assert ticks[WEATHER_SUBJECT] == 1 and ticks[BOOK_SUBJECT] == 1
    for subject, hours in ((MOOD_SUBJECT, 4), (HAPPENING_SUBJECT, 8)):
        expected, last = [], None
        for at in times:  # the first chat of each period ticks, the others read the watermark
            if last is None or at - last >= timedelta(hours=hours):
                expected.append(at)
                last = at
        assert [at for at, r in zip(times, reads, strict=True) if subject in r.ticked] == expected
    assert ticks[MOOD_SUBJECT] == 5 and ticks[HAPPENING_SUBJECT] == 3


def test_the_reply_prompt_carries_the_lazy_weather_mood_and_book_canon_first(lazy, monkeypatch):
    import json

    import adapters.reply_service
    from adapters.settings import Settings
    from ella.contract import IngestPayload
    from ella.llm.port import ModelPort
    from tasks.ingest import ingest
    from tests.support.scripted import Scripted

    answer = {"reply": "Hello!", "perception": {"score": 2, "subject": "user", "predicate": "said", "object": "hi"},
              "self_statements": []}  # fmt: skip
    model = Scripted(lambda request: json.dumps(answer))
    monkeypatch.setattr(adapters.reply_service, "get_port", lambda: ModelPort(model, Settings().model_tiers))
    user = make_user()
    payload = IngestPayload(message_id=uuid.uuid4().hex, user_id=user, text="I'm so tired today", sent_at=T0)
    ingest(payload, task_id=None)
    read = lazy.read(user)
    assert read.warm  # the reply's read filled the cache
    brief = next(b.text for b in model.requests[-1].system if b.text.startswith("## WORLD FACTS"))
    for subject in (WEATHER_SUBJECT, MOOD_SUBJECT, BOOK_SUBJECT):
        assert f"[canon] {subject}: " in brief and read.entries[subject].text in brief
    assert read.value(MOOD_SUBJECT).startswith("gentle and attentive")  # the user's tone reached the mood
    lines = [line for line in brief.splitlines() if line.startswith("- [")]
    assert lines.index(next(x for x in lines if HAPPENING_SUBJECT in x)) > max(
        i for i, x in enumerate(lines) if x.startswith("- [canon]")
    )  # the happening (observed or rumored) comes after every canon line


def test_world_show_gives_each_subjects_value_when_it_was_ticked_and_whether_the_cache_is_warm(lazy):
    from typer.testing import CliRunner

    from adapters.world_cache import cache_key
    from cli.main import cli

    user = make_user()

    def show() -> dict[str, str]:
        result = CliRunner().invoke(cli, ["world", "show", user])
        assert result.exit_code == 0, result.output
        return {s: line for line in result.output.splitlines() for s in SUBJECTS if f" {s} " in line}

    assert all("cold (never ticked)" in line for line in show().values())
    read = lazy.read(user)
    shown = show()
    for subject in SUBJECTS:
        assert "warm" in shown[subject] and read.entries[subject].text[:40] in shown[subject]
        assert read.entries[subject].touched.strftime("%Y-%m-%d %H:%M") in shown[subject]
    lazy.client.hdel(cache_key(user), MOOD_SUBJECT)
    assert "cold (ledger)" in show()[MOOD_SUBJECT] and "warm" in show()[BOOK_SUBJECT]


def test_a_ledger_write_committed_while_a_tick_runs_is_not_overwritten_by_the_ticks_older_values(lazy, monkeypatch):
    """The tick read the ledger before the operator's write and caches after its invalidation: the hash's
    generation moved in between, so the tick's values are not cached and the next read takes the operator's."""
    user = make_user()
    lazy.read(user, T0)
    written: list[str] = []

    @contextmanager
    def tick_then_operator() -> Iterator[Any]:
        with session_scope() as s:
            yield s
        if not written:  # after the tick's commit, before it writes the cache
            with session_scope() as s:
                (mood,) = current(s, user, MOOD_SUBJECT)
                new = NewFact(MOOD_SUBJECT, "mood", "cross with the gulls", "canon")
                written.append(supersede(s, user, mood.id, new, Writer.OPERATOR, T0 + timedelta(hours=5)).object)

    monkeypatch.setattr(lazy, "scope", tick_then_operator)
    ticked = lazy.read(user, T0 + timedelta(hours=5))  # the mood is stale: ticked, then the operator writes
    assert MOOD_SUBJECT in ticked.ticked and written == ["cross with the gulls"]
    assert MOOD_SUBJECT not in lazy.cached(user)
    assert lazy.read(user, T0 + timedelta(hours=5, minutes=1)).value(MOOD_SUBJECT) == "cross with the gulls"

"""The outbox Redis Stream (adapters.outbox_stream) and the inbox safety net (adapters.inbox), on real Redis.

Why: a redelivered ingest task must not publish a reply twice; a gateway that crashes must get back what it
read but never acknowledged; a gateway that never comes back must have its entries taken over; and a message
the broker lost must stay in the inbox, with its kwargs, until its reply is published.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator

import pytest

from adapters import inbox
from adapters.outbox_stream import OutboxReader, publish_once, published_marker
from adapters.settings import Settings, get_settings
from ella.contract import OutboxEntry


def make_entry(outbox_id: str | None = None, text: str = "Hi! It's good to hear from you.") -> OutboxEntry:
    return OutboxEntry(
        kind="reply",
        user_id="user-1",
        text=text,
        route="canned",
        category="greeting",
        outbox_id=outbox_id or f"ob-{uuid.uuid4().hex}",
        in_reply_to="msg-1",
        conversation_id="conv-1",
        created_at="2024-05-01T12:30:00+00:00",
    )


@pytest.fixture
def stream_settings(redis_client) -> Iterator[Settings]:
    """This run's settings with an outbox stream of this test's own; the stream and its markers go after."""
    settings = get_settings().model_copy(update={"outbox_stream": f"{get_settings().outbox_stream}:{uuid.uuid4().hex}"})
    yield settings
    redis_client.delete(settings.outbox_stream, *redis_client.scan_iter(published_marker("*", settings)))


@pytest.fixture
def published(redis_client) -> Iterator[list[str]]:
    """outbox_ids published in this test (their markers go with ``stream_settings``)."""
    ids: list[str] = []
    yield ids


def publish_n(redis_client, settings: Settings, published: list[str], n: int) -> list[OutboxEntry]:
    entries = [make_entry(text=f"reply number {i}") for i in range(n)]
    for e in entries:
        published.append(e.outbox_id)
        publish_once(redis_client, e, settings)
    return entries


def texts(entries: list[OutboxEntry]) -> list[str]:
    return [e.text for e in entries]


# --- publish_once ---------------------------------------------------------------------------------------


def test_publishing_the_same_outbox_id_twice_adds_one_entry(redis_client, stream_settings, published) -> None:
    entry = make_entry()
    published.append(entry.outbox_id)
    first = publish_once(redis_client, entry, stream_settings)
    second = publish_once(redis_client, entry.model_copy(update={"text": "a retry's text"}), stream_settings)
    assert first == second
    assert isinstance(first, str) and "-" in first
    rows = redis_client.xrange(stream_settings.outbox_stream)
    assert len(rows) == 1
    assert rows[0][0] == first
    assert OutboxEntry.from_fields(rows[0][0], rows[0][1]).text == entry.text


def test_publishing_different_outbox_ids_adds_two_entries(redis_client, stream_settings, published) -> None:
    a, b = make_entry(), make_entry()
    published.extend([a.outbox_id, b.outbox_id])
    id_a = publish_once(redis_client, a, stream_settings)
    id_b = publish_once(redis_client, b, stream_settings)
    assert id_a != id_b
    rows = redis_client.xrange(stream_settings.outbox_stream)
    assert [sid for sid, _ in rows] == [id_a, id_b]
    assert [fields["outbox_id"] for _, fields in rows] == [a.outbox_id, b.outbox_id]


def test_published_entry_reads_back_field_for_field(redis_client, stream_settings, published) -> None:
    entry = make_entry(text="caf\u00e9 \U0001f600 \u05e9\u05dc\u05d5\u05dd")
    published.append(entry.outbox_id)
    sid = publish_once(redis_client, entry, stream_settings)
    [(row_id, fields)] = redis_client.xrange(stream_settings.outbox_stream)
    assert row_id == sid
    assert fields == entry.to_fields()


def test_publish_marker_expires_after_the_dedupe_ttl(redis_client, stream_settings, published) -> None:
    entry = make_entry()
    published.append(entry.outbox_id)
    sid = publish_once(redis_client, entry, stream_settings)
    marker = published_marker(entry.outbox_id, stream_settings)
    assert redis_client.get(marker) == sid
    assert 0 < redis_client.ttl(marker) <= stream_settings.outbox_dedupe_ttl_s


# --- OutboxReader ---------------------------------------------------------------------------------------


def test_reader_gets_published_entries_in_order(redis_client, stream_settings, published) -> None:
    entries = publish_n(redis_client, stream_settings, published, 3)
    reader = OutboxReader(redis_client, "gw", "gw-1", stream=stream_settings.outbox_stream)
    got = reader.read(block_ms=None)
    assert texts(got) == texts(entries)
    assert all(e.stream_id for e in got)
    assert [e.outbox_id for e in got] == [e.outbox_id for e in entries]


def test_unacked_entries_come_back_to_a_restarted_consumer(redis_client, stream_settings, published) -> None:
    entries = publish_n(redis_client, stream_settings, published, 2)
    stream = stream_settings.outbox_stream
    first = OutboxReader(redis_client, "gw", "gw-1", stream=stream).read(block_ms=None)
    assert texts(first) == texts(entries)

    # The gateway crashed before acknowledging: a new process with the same consumer name starts.
    restarted = OutboxReader(redis_client, "gw", "gw-1", stream=stream)
    again = restarted.read(block_ms=None)
    assert [e.stream_id for e in again] == [e.stream_id for e in first]
    assert texts(again) == texts(entries)

    assert restarted.ack(*again) == 2
    assert OutboxReader(redis_client, "gw", "gw-1", stream=stream).read(block_ms=None) == []
    assert redis_client.xpending(stream, "gw")["pending"] == 0


def test_acked_entries_are_not_read_again_but_new_ones_are(redis_client, stream_settings, published) -> None:
    stream = stream_settings.outbox_stream
    publish_n(redis_client, stream_settings, published, 1)
    reader = OutboxReader(redis_client, "gw", "gw-1", stream=stream)
    got = reader.read(block_ms=None)
    assert reader.ack(*got) == 1
    assert reader.read(block_ms=None) == []
    later = publish_n(redis_client, stream_settings, published, 1)
    assert texts(reader.read(block_ms=None)) == texts(later)


def test_ack_of_nothing_is_zero(redis_client, stream_settings) -> None:
    reader = OutboxReader(redis_client, "gw", "gw-1", stream=stream_settings.outbox_stream)
    assert reader.ack() == 0


def test_another_consumer_claims_abandoned_entries(redis_client, stream_settings, published) -> None:
    entries = publish_n(redis_client, stream_settings, published, 3)
    stream = stream_settings.outbox_stream
    dead = OutboxReader(redis_client, "gw", "gw-dead", stream=stream)
    assert len(dead.read(block_ms=None)) == 3  # and never acknowledged

    survivor = OutboxReader(redis_client, "gw", "gw-live", stream=stream)
    assert survivor.claim_abandoned(min_idle_ms=60_000) == []  # not idle long enough yet
    time.sleep(0.05)
    claimed = survivor.claim_abandoned(min_idle_ms=10)
    assert texts(claimed) == texts(entries)

    owners = {row["consumer"] for row in redis_client.xpending_range(stream, "gw", "-", "+", 10)}
    assert owners == {"gw-live"}
    assert survivor.ack(*claimed) == 3
    assert redis_client.xpending(stream, "gw")["pending"] == 0
    # The dead consumer, if it comes back, has nothing left of its own to redo.
    assert OutboxReader(redis_client, "gw", "gw-dead", stream=stream).read(block_ms=None) == []


def test_creating_a_reader_twice_on_one_group_does_not_raise(redis_client, stream_settings, published) -> None:
    stream = stream_settings.outbox_stream
    OutboxReader(redis_client, "gw", "gw-1", stream=stream)
    publish_n(redis_client, stream_settings, published, 1)
    second = OutboxReader(redis_client, "gw", "gw-2", stream=stream)
    groups = redis_client.xinfo_groups(stream)
    assert [g["name"] for g in groups] == ["gw"]
    assert len(second.read(block_ms=None)) == 1  # the group kept its start, it was not re-created


def test_two_groups_each_get_every_entry(redis_client, stream_settings, published) -> None:
    entries = publish_n(redis_client, stream_settings, published, 2)
    stream = stream_settings.outbox_stream
    a = OutboxReader(redis_client, "gw-a", "c", stream=stream).read(block_ms=None)
    b = OutboxReader(redis_client, "gw-b", "c", stream=stream).read(block_ms=None)
    assert texts(a) == texts(b) == texts(entries)


def test_reader_defaults_to_the_configured_stream(redis_client) -> None:
    group = f"gw-{uuid.uuid4().hex}"
    existed = redis_client.exists(get_settings().outbox_stream)
    reader = OutboxReader(redis_client, group, "c")
    try:
        assert reader.stream == get_settings().outbox_stream
        assert group in [g["name"] for g in redis_client.xinfo_groups(reader.stream)]
    finally:
        redis_client.xgroup_destroy(reader.stream, group)
        if not existed and redis_client.xlen(reader.stream) == 0:
            redis_client.delete(reader.stream)


# --- adapters.inbox --------------------------------------------------------------------------------------


@pytest.fixture
def isolated_inbox(redis_client, monkeypatch: pytest.MonkeyPatch) -> Iterator[inbox.InboxKeys]:
    """A Redis key prefix of this test's own, so the inbox holds only what the test put there."""
    monkeypatch.setenv("ELLA_REDIS_KEY_PREFIX", f"{get_settings().redis_key_prefix}-{uuid.uuid4().hex[:8]}")
    get_settings.cache_clear()
    keys = inbox.InboxKeys.of()
    yield keys
    redis_client.delete(*keys.all())
    get_settings.cache_clear()


def kwargs_of(message_id: str, user_id: str = "user-1") -> dict[str, str]:
    return {
        "message_id": message_id,
        "user_id": user_id,
        "text": "caf\u00e9, I'm tired \U0001f634",
        "sent_at": "2024-05-01T12:30:00+00:00",
    }


def key(message_id: str, user_id: str = "user-1") -> str:
    return inbox.entry_key(user_id, message_id)


def test_remembered_message_is_overdue_with_its_kwargs(redis_client, isolated_inbox) -> None:
    kwargs = kwargs_of("msg-a")
    inbox.remember(redis_client, kwargs)
    assert inbox.overdue(redis_client, older_than_s=0) == [(key("msg-a"), kwargs, 0)]


def test_recent_message_is_not_overdue(redis_client, isolated_inbox) -> None:
    inbox.remember(redis_client, kwargs_of("msg-a"))
    assert inbox.overdue(redis_client, older_than_s=3600) == []


def test_mark_resent_counts_the_resends(redis_client, isolated_inbox) -> None:
    kwargs = kwargs_of("msg-a")
    inbox.remember(redis_client, kwargs)
    assert inbox.mark_resent(redis_client, key("msg-a")) == 1
    assert inbox.mark_resent(redis_client, key("msg-a")) == 2
    assert inbox.overdue(redis_client, older_than_s=0) == [(key("msg-a"), kwargs, 2)]


def test_mark_resent_restarts_the_clock(redis_client, isolated_inbox) -> None:
    inbox.remember(redis_client, kwargs_of("msg-a"))
    time.sleep(0.3)
    assert [m for m, _, _ in inbox.overdue(redis_client, older_than_s=0.2)] == [key("msg-a")]
    inbox.mark_resent(redis_client, key("msg-a"))
    assert inbox.overdue(redis_client, older_than_s=0.2) == []


def test_forget_removes_the_message_and_its_count(redis_client, isolated_inbox) -> None:
    inbox.remember(redis_client, kwargs_of("msg-a"))
    inbox.remember(redis_client, kwargs_of("msg-b"))
    inbox.mark_resent(redis_client, key("msg-a"))
    inbox.forget(redis_client, "user-1", "msg-a")
    assert [m for m, _, _ in inbox.overdue(redis_client, older_than_s=0)] == [key("msg-b")]
    for hash_key in (isolated_inbox.resends, isolated_inbox.payloads, isolated_inbox.looks):
        assert redis_client.hget(hash_key, key("msg-a")) is None
    for zset_key in (isolated_inbox.due, isolated_inbox.checks, isolated_inbox.held):
        assert redis_client.zscore(zset_key, key("msg-a")) is None


def test_forget_of_a_non_string_message_id_is_a_no_op(redis_client, isolated_inbox) -> None:
    inbox.remember(redis_client, kwargs_of("msg-a"))
    inbox.forget(redis_client, "user-1", None)
    inbox.forget(redis_client, "user-1", 42)
    assert [m for m, _, _ in inbox.overdue(redis_client, older_than_s=0)] == [key("msg-a")]


def test_remembering_a_message_twice_keeps_one_entry(redis_client, isolated_inbox) -> None:
    inbox.remember(redis_client, kwargs_of("msg-a"))
    inbox.remember(redis_client, kwargs_of("msg-a"))
    assert len(inbox.overdue(redis_client, older_than_s=0)) == 1


def test_another_users_message_with_the_same_id_does_not_overwrite_a_pending_one(redis_client, isolated_inbox) -> None:
    first, second = kwargs_of("msg-a", user_id="user-1"), kwargs_of("msg-a", user_id="user-2")
    inbox.remember(redis_client, first)
    inbox.remember(redis_client, second)
    inbox.forget(redis_client, "user-2", "msg-a")  # the second user's message was answered or dead-lettered
    assert inbox.overdue(redis_client, older_than_s=0) == [(key("msg-a", "user-1"), first, 0)]


def test_overdue_respects_its_limit_oldest_first(redis_client, isolated_inbox) -> None:
    for name in ("msg-1", "msg-2", "msg-3"):
        inbox.remember(redis_client, kwargs_of(name))
        time.sleep(0.01)
    assert [m for m, _, _ in inbox.overdue(redis_client, older_than_s=0, limit=2)] == [key("msg-1"), key("msg-2")]


def test_inbox_keys_use_the_configured_prefix(isolated_inbox) -> None:
    prefix = get_settings().redis_key_prefix
    assert isolated_inbox == inbox.InboxKeys(
        *(f"{prefix}:inbox:{name}" for name in ("payloads", "due", "resends", "checks", "looks", "held"))
    )


def test_early_look_is_due_after_the_recheck_delay_and_not_while_a_worker_holds_the_message(
    redis_client, isolated_inbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ELLA_INBOX_RECHECK_AFTER_S", "0.2")
    get_settings.cache_clear()
    inbox.remember(redis_client, kwargs_of("msg-a"))
    inbox.remember(redis_client, kwargs_of("msg-b"))
    assert inbox.due_checks(redis_client) == []
    inbox.hold(redis_client, "user-1", "msg-b", seconds=60)
    time.sleep(0.3)
    assert [m for m, _, _ in inbox.due_checks(redis_client)] == [key("msg-a")]
    inbox.release(redis_client, "user-1", "msg-b")
    assert [m for m, _, _ in inbox.due_checks(redis_client)] == [key("msg-a"), key("msg-b")]


def test_each_early_look_waits_twice_as_long_for_the_next(
    redis_client, isolated_inbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ELLA_INBOX_RECHECK_AFTER_S", "10")
    monkeypatch.setenv("ELLA_VISIBILITY_TIMEOUT_S", "100")  # the cap on the interval
    get_settings.cache_clear()
    inbox.remember(redis_client, kwargs_of("msg-a"))
    redis_client.zadd(isolated_inbox.checks, {key("msg-a"): 0})  # due now
    [(_, _, looks)] = inbox.due_checks(redis_client)
    assert looks == 0
    inbox.checked(redis_client, key("msg-a"), looks)
    assert inbox.due_checks(redis_client) == []
    assert 19 < redis_client.zscore(isolated_inbox.checks, key("msg-a")) - time.time() <= 20
    redis_client.zadd(isolated_inbox.checks, {key("msg-a"): 0})
    [(_, _, looks)] = inbox.due_checks(redis_client)
    inbox.checked(redis_client, key("msg-a"), looks)
    assert 39 < redis_client.zscore(isolated_inbox.checks, key("msg-a")) - time.time() <= 40


def test_one_outbox_id_published_to_two_streams_lands_in_both(redis_client, stream_settings) -> None:
    other = stream_settings.model_copy(update={"outbox_stream": stream_settings.outbox_stream + ":other"})
    entry = make_entry()
    try:
        publish_once(redis_client, entry, stream_settings)
        publish_once(redis_client, entry, other)
        assert redis_client.xlen(stream_settings.outbox_stream) == 1
        assert redis_client.xlen(other.outbox_stream) == 1
    finally:
        redis_client.delete(other.outbox_stream, published_marker(entry.outbox_id, other))


# --- a re-publish after Redis lost the entry (issue 11, item 9) ------------------------------------------


def forget_marker(redis_client, entry: OutboxEntry, settings: Settings) -> None:
    redis_client.delete(published_marker(entry.outbox_id, settings))


def test_entry_redis_lost_with_its_marker_is_published_again_once(redis_client, stream_settings) -> None:
    publish_n(redis_client, stream_settings, [], 2)  # older entries survive; the newest, it, was lost
    entry = make_entry()
    recorded = publish_once(redis_client, entry, stream_settings)
    redis_client.xdel(stream_settings.outbox_stream, recorded)
    forget_marker(redis_client, entry, stream_settings)
    again = publish_once(redis_client, entry, stream_settings, recorded_id=recorded)
    assert again != recorded
    assert publish_once(redis_client, entry, stream_settings, recorded_id=recorded) == again
    ids = [e.outbox_id for e in OutboxReader(redis_client, "g", "c", stream=stream_settings.outbox_stream).read()]
    assert ids.count(entry.outbox_id) == 1


def test_a_newer_entry_that_took_the_lost_entrys_id_does_not_pass_for_it(redis_client, stream_settings) -> None:
    """The stream lost whole, then a newer reply added in the same millisecond got the very id the lost one had
    (seen once in CI): the recorded id is in the stream, but it holds another record, so the lost one is added."""
    entry = make_entry()
    recorded = publish_once(redis_client, entry, stream_settings)
    redis_client.delete(stream_settings.outbox_stream)
    forget_marker(redis_client, entry, stream_settings)
    redis_client.xadd(stream_settings.outbox_stream, make_entry().to_fields(), id=recorded)  # the collision
    again = publish_once(redis_client, entry, stream_settings, recorded_id=recorded)
    assert again != recorded
    assert [e.outbox_id for e in read_all(redis_client, stream_settings)].count(entry.outbox_id) == 1


def test_whole_stream_lost_then_new_entries_still_publishes_the_lost_one_again(redis_client, stream_settings) -> None:
    entry = make_entry()
    recorded = publish_once(redis_client, entry, stream_settings)
    redis_client.delete(stream_settings.outbox_stream)  # a restart with no persistence, or a failover
    forget_marker(redis_client, entry, stream_settings)
    publish_n(redis_client, stream_settings, [], 2)  # newer replies published since
    again = publish_once(redis_client, entry, stream_settings, recorded_id=recorded)
    assert again != recorded
    assert [e.outbox_id for e in read_all(redis_client, stream_settings)].count(entry.outbox_id) == 1


def read_all(redis_client, settings: Settings) -> list[OutboxEntry]:
    return [OutboxEntry.from_fields(sid, f) for sid, f in redis_client.xrange(settings.outbox_stream)]


def test_entry_still_in_the_stream_is_not_published_again_after_its_marker_expired(
    redis_client, stream_settings
) -> None:
    entry = make_entry()
    recorded = publish_once(redis_client, entry, stream_settings)
    forget_marker(redis_client, entry, stream_settings)
    assert publish_once(redis_client, entry, stream_settings, recorded_id=recorded) == recorded
    assert redis_client.xlen(stream_settings.outbox_stream) == 1


def test_entry_trimmed_away_by_maxlen_is_not_published_again(redis_client, stream_settings) -> None:
    entry = make_entry()
    recorded = publish_once(redis_client, entry, stream_settings)
    publish_n(redis_client, stream_settings, [], 5)
    redis_client.xtrim(stream_settings.outbox_stream, maxlen=3, approximate=False)
    forget_marker(redis_client, entry, stream_settings)
    assert publish_once(redis_client, entry, stream_settings, recorded_id=recorded) == recorded
    assert entry.outbox_id not in [e.outbox_id for e in read_all(redis_client, stream_settings)]


def test_a_deleted_entry_leaves_no_pending_entry_for_a_restarted_reader(redis_client, stream_settings, published):
    """Redis 7.0 keeps a deleted id in a group's pending list; ``delete_entries`` (erasure, a forget) acks it in
    every group first, so a restarted reader never gets an entry with no fields."""
    from adapters.outbox_stream import delete_entries

    entries = publish_n(redis_client, stream_settings, published, 2)
    stream = stream_settings.outbox_stream
    read = {group: OutboxReader(redis_client, group, f"{group}-1", stream=stream).read(block_ms=None)
            for group in ("gw", "audit")}  # fmt: skip
    assert all(len(got) == 2 for got in read.values())
    assert delete_entries(redis_client, stream, [read["gw"][0].stream_id]) == 1
    for group in ("gw", "audit"):
        again = OutboxReader(redis_client, group, f"{group}-1", stream=stream).read(block_ms=None)
        assert texts(again) == texts(entries[1:])  # the other entry is still pending, the deleted one is not
        assert redis_client.xpending(stream, group)["pending"] == 1


def test_forgetting_a_message_removes_its_entry_in_every_common_json_spelling_of_the_key(
    redis_client, isolated_inbox
) -> None:
    """Issue 36.2: the key is the pair, not the bytes. Python's ``["u", "m"]``, the compact ``["u","m"]`` of
    every other language's default writer, and PHP's ``\\/`` are all forgotten with the message."""
    user, message_id = "user/1", "msg-a"
    written = [
        json.dumps([user, message_id], separators=(",", ":")),
        json.dumps([user, message_id]).replace("/", "\\/"),
        json.dumps([user, message_id], separators=(",", ":")).replace("/", "\\/"),
    ]
    for member in written:
        redis_client.hset(isolated_inbox.payloads, member, json.dumps(kwargs_of(message_id, user)))
        redis_client.zadd(isolated_inbox.due, {member: 0})
    inbox.remember(redis_client, kwargs_of("msg-b", user))
    inbox.forget(redis_client, user, message_id)
    assert redis_client.hkeys(isolated_inbox.payloads) == [key("msg-b", user)]
    assert redis_client.zrange(isolated_inbox.due, 0, -1) == [key("msg-b", user)]


def test_an_inbox_member_that_is_not_a_json_pair_is_its_own_key(redis_client, isolated_inbox) -> None:
    assert inbox.canonical('["u","m"]') == inbox.canonical('[ "u" , "m" ]') == inbox.entry_key("u", "m")
    for member in ("msg-a", "[1, 2]", '["u"]', "not json ["):  # an older plain message_id key; garbage
        assert inbox.canonical(member) == member
    redis_client.hset(isolated_inbox.payloads, "msg-a", json.dumps(kwargs_of("msg-a")))
    redis_client.zadd(isolated_inbox.due, {"msg-a": 0})
    assert [m for m, _, _ in inbox.overdue(redis_client, older_than_s=0)] == ["msg-a"]

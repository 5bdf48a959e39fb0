"""The outbox Redis Stream: publish each outbox record exactly once, and read it as a consumer group.

Why a Lua script: the task may die between XADD and marking the row published, and its redelivery must not
add a second entry. The script checks a per-record marker and appends in one atomic step.

Why it also takes the stream id the database recorded: Redis can lose acknowledged writes (an OS crash inside
the AOF fsync second, a failover to a replica that had not caught up). Then both the marker and the entry are
gone while the row says "published", and a re-sent message must be published again, or the user never gets
the reply. Without the marker the script decides from the stream itself: the recorded entry is still there
(the entry at that id is this record, since a stream lost whole can hand the same id to a newer entry), or was
trimmed away (``MAXLEN``; the consumer had its chance): nothing is added; the entry is simply missing from a
stream that never trimmed it, or is newer than the oldest entry kept: it was lost, and it is added once more
(and the marker set, so a second re-send adds nothing).
"""

from __future__ import annotations

from typing import Any

import redis

from adapters.settings import Settings, get_settings
from ella.contract import OutboxEntry

_PUBLISH_ONCE = """
local done = redis.call('GET', KEYS[2])
if done then return done end
local prev = ARGV[3]
if prev ~= '' then
  local function parse(id)
    local ms, seq = string.match(id, '^(%d+)-(%d+)$')
    return tonumber(ms), tonumber(seq)
  end
  local function older(a, b)
    local ams, aseq = parse(a)
    local bms, bseq = parse(b)
    return ams < bms or (ams == bms and aseq < bseq)
  end
  local function field(pairs, name)
    for i = 1, #pairs, 2 do
      if pairs[i] == name then return pairs[i + 1] end
    end
  end
  -- The entry at the recorded id must be this record: after the whole stream was lost, a new entry added in
  -- the same millisecond can take the very id the lost one had.
  local at = redis.call('XRANGE', KEYS[1], prev, prev)[1]
  local kept = at ~= nil and field(at[2], 'outbox_id') == field({unpack(ARGV, 4)}, 'outbox_id')
  if not kept and redis.call('EXISTS', KEYS[1]) == 1 then
    local first = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 1)[1]
    local info = redis.call('XINFO', 'STREAM', KEYS[1])
    local added, length = nil, nil
    for i = 1, #info, 2 do
      if info[i] == 'entries-added' then added = info[i + 1] end
      if info[i] == 'length' then length = info[i + 1] end
    end
    local never_trimmed = added ~= nil and added == length
    kept = first ~= nil and older(prev, first[1]) and not never_trimmed
  end
  if kept then
    redis.call('SET', KEYS[2], prev, 'EX', ARGV[1])
    return prev
  end
end
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '*', unpack(ARGV, 4))
redis.call('SET', KEYS[2], id, 'EX', ARGV[1])
return id
"""


def published_marker(outbox_id: str, settings: Settings | None = None) -> str:
    settings = settings or get_settings()
    return f"{settings.redis_key_prefix}:published:{settings.outbox_stream}:{outbox_id}"


def publish_once(
    client: redis.Redis, entry: OutboxEntry, settings: Settings | None = None, *, recorded_id: str | None = None
) -> str:
    """Append ``entry`` to the stream unless this outbox record was appended before; return its stream id.

    ``recorded_id`` is the stream id the database noted when the record was published (None if it never was):
    it is returned as is while the stream still holds it (or trimmed it), and replaced if Redis lost it.
    """
    settings = settings or get_settings()
    flat = [item for pair in entry.to_fields().items() for item in pair]
    script = client.register_script(_PUBLISH_ONCE)
    stream_id = script(
        keys=[settings.outbox_stream, published_marker(entry.outbox_id, settings)],
        args=[settings.outbox_dedupe_ttl_s, settings.outbox_maxlen, recorded_id or "", *flat],
    )
    return stream_id.decode() if isinstance(stream_id, bytes) else str(stream_id)


def ensure_groups(client: redis.Redis, stream: str, groups: str) -> list[str]:
    """Create each of the comma-separated consumer ``groups`` on ``stream`` (from id 0, making the stream when
    missing); the groups created now. Run by every worker at start (``workers.app``): the gateway's Redis user may
    read through a group but not create one, so that it cannot make a group of its own from id 0 and read every
    reply the stream still holds."""
    made = []
    for group in (name.strip() for name in groups.split(",")):
        if not group:
            continue
        try:
            client.xgroup_create(stream, group, id="0", mkstream=True)
            made.append(group)
        except redis.ResponseError as exc:
            if "BUSYGROUP" not in str(exc):
                raise
    return made


class OutboxReader:
    """A gateway's view of the outbox: a consumer in a consumer group, acknowledging what it delivered.

    After a crash a consumer first gets back its own entries that were read but never acknowledged;
    ``claim_abandoned`` takes over entries of a consumer that never came back.
    """

    def __init__(
        self, client: redis.Redis, group: str, consumer: str, *, stream: str | None = None, start_id: str = "0"
    ) -> None:
        self.client = client
        self.group = group
        self.consumer = consumer
        self.stream = stream or get_settings().outbox_stream
        self._pending_first = True
        try:
            client.xgroup_create(self.stream, group, id=start_id, mkstream=True)
        except redis.exceptions.NoPermissionError:
            pass  # the gateway's Redis user may not create groups: the workers made it (``ensure_groups``)
        except redis.ResponseError as exc:
            if "BUSYGROUP" not in str(exc):
                raise

    @staticmethod
    def _decode(value: bytes | str) -> str:
        return value.decode() if isinstance(value, bytes) else value

    def _entries(self, response: Any) -> list[OutboxEntry]:
        """Entries of an XREADGROUP/XAUTOCLAIM reply: a list of (stream, items) under RESP2, a mapping under RESP3."""
        out = []
        pairs = response.items() if isinstance(response, dict) else (response or [])
        for _stream, items in pairs:
            for stream_id, fields in items:
                if fields:  # a pending entry trimmed away comes back with no fields
                    decoded = {self._decode(k): self._decode(v) for k, v in fields.items()}
                    out.append(OutboxEntry.from_fields(self._decode(stream_id), decoded))
        return out

    def read(self, count: int = 100, block_ms: int | None = 1000) -> list[OutboxEntry]:
        if self._pending_first:
            pending = self._entries(self.client.xreadgroup(self.group, self.consumer, {self.stream: "0"}, count=count))
            if pending:
                return pending
            self._pending_first = False
        return self._entries(
            self.client.xreadgroup(self.group, self.consumer, {self.stream: ">"}, count=count, block=block_ms)
        )

    def ack(self, *entries: OutboxEntry) -> int:
        if not entries:
            return 0
        return int(self.client.xack(self.stream, self.group, *(e.stream_id for e in entries)))

    def claim_abandoned(self, min_idle_ms: int = 60_000, count: int = 100) -> list[OutboxEntry]:
        _next, items, *_ = self.client.xautoclaim(
            self.stream, self.group, self.consumer, min_idle_ms, start_id="0-0", count=count
        )
        return self._entries([(self.stream, items)])


def delete_entries(client: redis.Redis, stream: str, ids: list[str]) -> int:
    """XACK ``ids`` in every consumer group of ``stream``, then XDEL them; entries deleted.

    Why the acknowledgement first: Redis 7.0 keeps a deleted id in a group's pending list, so a restarted reader
    that reads its pending entries got one with no fields (the gateway reported it). Acknowledged first, no
    reader ever sees it again.
    """
    groups: list[dict[str, Any]] = client.xinfo_groups(stream) if client.exists(stream) else []
    for group in groups:
        name = group.get("name")
        client.xack(stream, name.decode() if isinstance(name, bytes) else str(name), *ids)
    return int(client.xdel(stream, *ids))

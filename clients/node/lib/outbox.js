"use strict";
/**
 * A gateway's view of the outbox stream: one consumer in a consumer group, acknowledging what it delivered.
 *
 * Why pending entries first: an entry read but not acknowledged (the gateway crashed before sending it on) stays
 * in this consumer's pending list; a restarted gateway with the same consumer name gets it back before anything
 * new, so no reply is lost. The same rule as adapters/outbox_stream.py's OutboxReader.
 *
 * Why entries with no fields are acknowledged and skipped: Redis 7.0 keeps a pending entry whose id was deleted
 * from the stream (an erasure, a forgotten reply, a trim) and returns it with no fields; left pending, it would
 * come back on every read.
 */
const { connect, resolveSettings } = require("./config");

/** `[f1, v1, f2, v2]` as `{f1: v1, f2: v2}`. */
function fieldsOf(flat) {
  const fields = {};
  for (let i = 0; i + 1 < flat.length; i += 2) fields[String(flat[i])] = String(flat[i + 1]);
  return fields;
}

class OutboxReader {
  /**
   * @param {object} options `group` and `consumer` (required), `stream`, `redisUrl` (lib/config.js), `redis` (an
   *   ioredis client to use; not closed by `close()`), `startId` (where a new group starts: `"0"`, the whole
   *   stream, by default; `"$"` for only what comes after).
   */
  constructor(options = {}) {
    if (!options.group || !options.consumer) throw new TypeError("group and consumer are required");
    const settings = resolveSettings(options);
    this.stream = settings.stream;
    this.group = options.group;
    this.consumer = options.consumer;
    this.startId = options.startId || "0";
    this._ownsRedis = !options.redis;
    this.redis = options.redis || connect(settings.redisUrl);
    this._pendingFirst = true;
    this._ready = null;
  }

  /** Create the group (and the stream) if missing; a group that exists already is kept as it is. */
  ensureGroup() {
    if (!this._ready) {
      this._ready = this.redis.xgroup("CREATE", this.stream, this.group, this.startId, "MKSTREAM").catch((error) => {
        // NOPERM: the gateway's Redis user may not create groups; Ella's workers made it (ELLA_OUTBOX_GROUPS)
        const message = String(error && error.message);
        if (!message.includes("BUSYGROUP") && !message.includes("NOPERM")) {
          this._ready = null;
          throw error;
        }
      });
    }
    return this._ready;
  }

  async _readGroup(id, count, blockMs) {
    const args = ["GROUP", this.group, this.consumer, "COUNT", count];
    if (blockMs !== null && blockMs !== undefined) args.push("BLOCK", blockMs);
    args.push("STREAMS", this.stream, id);
    const reply = await this.redis.xreadgroup(...args);
    const raw = reply ? reply.flatMap(([, items]) => items) : [];
    const entries = [];
    const empty = [];
    for (const [streamId, flat] of raw) {
      if (flat && flat.length) entries.push({ streamId: String(streamId), fields: fieldsOf(flat) });
      else empty.push(String(streamId));
    }
    if (empty.length) await this.redis.xack(this.stream, this.group, ...empty);
    return { entries, seen: raw.length };
  }

  /**
   * This consumer's unacknowledged entries first, then new ones (waiting up to `blockMs`, `null` for not at all).
   * Each entry is `{ streamId, fields }`, every field a string (`kind`, `user_id`, `text`, `in_reply_to`...);
   * ignore fields you do not know, later versions may add some.
   */
  async read({ count = 100, blockMs = 1000 } = {}) {
    await this.ensureGroup();
    while (this._pendingFirst) {
      const { entries, seen } = await this._readGroup("0", count, null);
      if (entries.length) return entries;
      if (!seen) this._pendingFirst = false; // only deleted entries were pending: acknowledged, look again
    }
    return (await this._readGroup(">", count, blockMs)).entries;
  }

  /** Acknowledge entries (or their stream ids); resolves to how many were pending. */
  async ack(entries) {
    const ids = (Array.isArray(entries) ? entries : [entries]).map((e) => (typeof e === "string" ? e : e.streamId));
    if (!ids.length) return 0;
    return this.redis.xack(this.stream, this.group, ...ids);
  }

  /** How many entries of the group are read and not acknowledged (by any consumer). */
  async pendingCount() {
    await this.ensureGroup();
    const [count] = await this.redis.xpending(this.stream, this.group);
    return Number(count);
  }

  async close() {
    if (this._ownsRedis) await this.redis.quit();
  }
}

module.exports = { OutboxReader };

"use strict";
/**
 * The gateway's side of Ella's contract (README "The gateway contract"): each call sends one task by name onto
 * the inbound queue with the kwargs the workers validate, and resolves to the Celery task id once Redis holds it.
 *
 * Why the client checks almost nothing: the workers check every field (and answer, or dead-letter, a malformed
 * request with the reason); a second copy of those rules here would drift. It only turns `Date`s into ISO-8601
 * with a zone and refuses a call that is missing an argument the task cannot do without.
 *
 * Why `enqueueMessage` also writes the inbox (`<prefix>:inbox:*`, the same entry the Python client writes,
 * adapters/inbox.py): Celery's Redis transport can lose a task to a worker killed between its pop and its
 * unacked record; the inbox is what beat's sweep re-sends from, until the reply is published. The entry and the
 * task go in one MULTI, so neither exists without the other.
 */
const crypto = require("crypto");
const { buildEnvelope, pyRepr } = require("./envelope");
const { connect, resolveSettings } = require("./config");

const TASKS = Object.freeze({
  INGEST_MESSAGE: "ella.ingest_message",
  UPDATE_PROFILE: "ella.update_profile",
  FORGET_USER: "ella.forget_user",
  EXPORT_USER: "ella.export_user",
  FORGET_MEMORY: "ella.forget_memory",
  CORRECT_FACT: "ella.correct_fact",
});

const SIGNED = new Set([TASKS.FORGET_USER, TASKS.EXPORT_USER, TASKS.FORGET_MEMORY, TASKS.CORRECT_FACT,
  "ella.list_memory", "ella.search_memory"]);

/**
 * The request's `signature` (docs/gateway.md, signed requests; the back end's ella/signing.py): HMAC-SHA256, hex,
 * over "ella-request-v1", the task name and each kwarg but `signature` sorted by name as `name=value` (strings as
 * they are, integers in decimal, true/false; null and undefined left out), joined by NUL, in UTF-8.
 */
function signature(key, task, kwargs) {
  const text = (name, value) => {
    if (typeof value === "boolean") return value ? "true" : "false";
    if (typeof value === "number" && Number.isInteger(value)) return String(value);
    if (typeof value === "string") return value;
    throw new TypeError(`${name}: a ${typeof value} cannot be signed`);
  };
  const parts = ["ella-request-v1", task];
  for (const name of Object.keys(kwargs).sort()) {
    const value = kwargs[name];
    if (name !== "signature" && value !== null && value !== undefined) parts.push(`${name}=${text(name, value)}`);
  }
  return crypto.createHmac("sha256", Buffer.from(key, "utf8")).update(Buffer.from(parts.join("\0"), "utf8")).digest("hex");
}

function isoTime(value, name) {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new RangeError(`${name} is an invalid Date`);
    return value.toISOString();
  }
  if (typeof value !== "string") throw new TypeError(`${name} must be a Date or an ISO-8601 string with a zone`);
  return value;
}

function required(args, names) {
  for (const name of names) {
    if (args[name] === undefined) throw new TypeError(`${name} is required`);
  }
}

/**
 * Python's `json.dumps([user_id, message_id], ensure_ascii=True)`: the inbox entry key in its canonical spelling.
 * Ella accepts any JSON spelling of the pair (adapters/inbox.py), but this one is removed on publish directly,
 * with no move by the sweep first, and it is the one the Python clients write.
 */
function inboxEntryKey(userId, messageId) {
  const ascii = (v) => JSON.stringify(v).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return `[${ascii(userId)}, ${ascii(messageId)}]`;
}

class GatewayClient {
  /**
   * @param {object} [options] `redisUrl`, `queue`, `stream`, `keyPrefix`, `recheckAfterS` (see lib/config.js),
   *   `redis` (an ioredis client to use instead of connecting; it is not closed by `close()`), `inbox`
   *   (default true: record each message in the inbox before it is sent).
   */
  constructor(options = {}) {
    this.settings = resolveSettings(options);
    this.inbox = options.inbox !== false;
    this._ownsRedis = !options.redis;
    this.redis = options.redis || connect(this.settings.redisUrl);
  }

  async _send(task, kwargs, shown, extra = (multi) => multi) {
    if (this.settings.signingKey && SIGNED.has(task)) {
      kwargs = { ...kwargs, signature: signature(this.settings.signingKey, task, kwargs) };
    }
    const { taskId, raw } = buildEnvelope(task, kwargs, { queue: this.settings.queue, kwargsrepr: pyRepr(shown) });
    const results = await extra(this.redis.multi()).lpush(this.settings.queue, raw).exec();
    const failed = (results || []).find(([error]) => error);
    if (!results || failed) throw failed ? failed[0] : new Error(`the send of ${task} was discarded`);
    return taskId;
  }

  /**
   * `ella.ingest_message` {message_id, user_id, text, sent_at, conversation_id?}. Sending the same `messageId`
   * again is safe: it is answered once. Workers show the text as `<N chars>`, never the words.
   */
  async enqueueMessage({ messageId, userId, text, sentAt, conversationId } = {}) {
    required({ messageId, userId, text, sentAt }, ["messageId", "userId", "text", "sentAt"]);
    const kwargs = { message_id: messageId, user_id: userId, text, sent_at: isoTime(sentAt, "sentAt") };
    if (conversationId !== undefined && conversationId !== null) kwargs.conversation_id = conversationId;
    const shown = { ...kwargs, text: typeof text === "string" ? `<${[...text].length} chars>` : "<not text>" };
    const remember = (multi) => {
      if (!this.inbox) return multi;
      const prefix = `${this.settings.keyPrefix}:inbox`;
      const key = inboxEntryKey(userId, messageId);
      const now = Date.now() / 1000;
      return multi
        .hset(`${prefix}:payloads`, key, JSON.stringify(kwargs))
        .zadd(`${prefix}:due`, now, key)
        .zadd(`${prefix}:checks`, now + this.settings.recheckAfterS, key);
    };
    return this._send(TASKS.INGEST_MESSAGE, kwargs, shown, remember);
  }

  /**
   * `ella.update_profile`: the user's whole profile as of `updatedAt` {user_id, updated_at, timezone, locale,
   * is_minor, do_not_disturb, active_hours, notifications}, every key required; an older snapshot changes nothing.
   */
  async updateProfile({ userId, updatedAt, timezone, locale, isMinor, doNotDisturb, activeHours, notifications } = {}) {
    const args = { userId, updatedAt, timezone, locale, isMinor, doNotDisturb, activeHours, notifications };
    required(args, Object.keys(args));
    const kwargs = {
      user_id: userId,
      updated_at: isoTime(updatedAt, "updatedAt"),
      timezone,
      locale,
      is_minor: isMinor,
      do_not_disturb: doNotDisturb,
      active_hours: activeHours,
      notifications,
    };
    return this._send(TASKS.UPDATE_PROFILE, kwargs, { user_id: userId, updated_at: kwargs.updated_at });
  }

  /** `ella.forget_user` {user}: erase the user everywhere; workers and Flower never show whom. */
  async forgetUser({ userId } = {}) {
    required({ userId }, ["userId"]);
    return this._send(TASKS.FORGET_USER, { user: userId }, { user: "<erased>" });
  }

  async _memoryRequest(task, kwargs) {
    const shown = {};
    for (const name of ["request_id", "item"]) if (name in kwargs) shown[name] = kwargs[name];
    return this._send(task, kwargs, shown); // never the value or the reason
  }

  /** `ella.export_user` {request_id, user_id, reason}: answered (kind `answer`) with the whole document. */
  async exportUser({ requestId, userId, reason = "" } = {}) {
    required({ requestId, userId }, ["requestId", "userId"]);
    return this._memoryRequest(TASKS.EXPORT_USER, { request_id: requestId, user_id: userId, reason });
  }

  /** `ella.forget_memory` {request_id, user_id, item, reason}: item `memory:<id>` or `fact:<id>`. */
  async forgetMemory({ requestId, userId, item, reason = "" } = {}) {
    required({ requestId, userId, item }, ["requestId", "userId", "item"]);
    return this._memoryRequest(TASKS.FORGET_MEMORY, { request_id: requestId, user_id: userId, item, reason });
  }

  /** `ella.correct_fact` {request_id, user_id, item, value, reason}: item `fact:<id>`. */
  async correctFact({ requestId, userId, item, value, reason = "" } = {}) {
    required({ requestId, userId, item, value }, ["requestId", "userId", "item", "value"]);
    const kwargs = { request_id: requestId, user_id: userId, item, value, reason };
    return this._memoryRequest(TASKS.CORRECT_FACT, kwargs);
  }

  async close() {
    if (this._ownsRedis) await this.redis.quit();
  }
}

module.exports = { GatewayClient, TASKS, inboxEntryKey, signature };

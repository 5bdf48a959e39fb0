"use strict";
/**
 * The client against a real Redis (ELLA_REDIS_URL), on scratch queue, stream and key names of its own, with no
 * worker: what it pushes, what it records in the inbox, and how the outbox reader treats pending entries.
 * tests/test_node_gateway.py runs this file (`node --test`) so CI runs it.
 */
const assert = require("node:assert/strict");
const crypto = require("node:crypto");
const { after, test } = require("node:test");
const Redis = require("ioredis");

const { GatewayClient, OutboxReader, buildEnvelope, inboxEntryKey } = require("../..");

const url = process.env.ELLA_REDIS_URL || "redis://127.0.0.1:6379/0";
const tag = `node-unit-${crypto.randomUUID().slice(0, 8)}`;
const redis = new Redis(url);

after(async () => {
  const keys = await redis.keys(`${tag}*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
});

function decodedBody(raw) {
  return JSON.parse(Buffer.from(JSON.parse(raw).body, "base64").toString("utf8"));
}

test("a message is pushed as a protocol 2 task and its inbox entry written, showing no words", async () => {
  const gateway = new GatewayClient({ redisUrl: url, queue: `${tag}-inbound`, keyPrefix: tag, recheckAfterS: 7 });
  const before = Date.now() / 1000;
  const taskId = await gateway.enqueueMessage({
    messageId: "m-1",
    userId: "u-1",
    text: "Der Bär schläft",
    sentAt: new Date("2026-12-01T10:00:00Z"),
    conversationId: "c-9",
  });
  await gateway.close();
  const [raw] = await redis.lrange(`${tag}-inbound`, 0, -1);
  const envelope = JSON.parse(raw);
  assert.equal(envelope.headers.id, taskId);
  assert.equal(envelope.headers.task, "ella.ingest_message");
  assert.equal(envelope.headers.lang, "js");
  assert.equal(envelope.properties.delivery_info.routing_key, `${tag}-inbound`);
  const kwargs = { message_id: "m-1", user_id: "u-1", text: "Der Bär schläft", sent_at: "2026-12-01T10:00:00.000Z", conversation_id: "c-9" };
  assert.deepEqual(decodedBody(raw), [[], kwargs, { callbacks: null, errbacks: null, chain: null, chord: null }]);
  assert.ok(!envelope.headers.kwargsrepr.includes("Bär"), envelope.headers.kwargsrepr);
  assert.match(envelope.headers.kwargsrepr, /'text': '<15 chars>'/);

  const key = '["u-1", "m-1"]'; // Python's json.dumps([user_id, message_id], ensure_ascii=True)
  assert.deepEqual(JSON.parse(await redis.hget(`${tag}:inbox:payloads`, key)), kwargs);
  const due = Number(await redis.zscore(`${tag}:inbox:due`, key));
  const check = Number(await redis.zscore(`${tag}:inbox:checks`, key));
  assert.ok(due >= before - 1 && due <= Date.now() / 1000 + 1, `due ${due}`);
  assert.ok(Math.abs(check - due - 7) < 0.01, `check ${check} due ${due}`);
});

test("the inbox key escapes like Python's ensure_ascii", () => {
  assert.equal(inboxEntryKey("u-é", 'm"1'), '["u-\\u00e9", "m\\"1"]');
});

test("the other tasks carry their kwargs, and kwargsrepr never a value, reason, user or age", async () => {
  const queue = `${tag}-other`;
  const gateway = new GatewayClient({ redisUrl: url, queue, keyPrefix: tag });
  await gateway.updateProfile({
    userId: "u-1",
    updatedAt: "2026-12-01T10:00:00+01:00",
    timezone: "Europe/Berlin",
    locale: "de_DE",
    isMinor: true,
    doNotDisturb: null,
    activeHours: "09:00-21:00",
    notifications: false,
  });
  await gateway.forgetUser({ userId: "u-secret" });
  await gateway.exportUser({ requestId: "r-1", userId: "u-1" });
  await gateway.forgetMemory({ requestId: "r-2", userId: "u-1", item: "memory:4", reason: "my ex" });
  await gateway.correctFact({ requestId: "r-3", userId: "u-1", item: "fact:7", value: "Maya", reason: "typo" });
  await gateway.close();
  const items = (await redis.lrange(queue, 0, -1)).reverse().map((raw) => [JSON.parse(raw).headers, decodedBody(raw)[1]]);
  assert.deepEqual(
    items.map(([h]) => h.task),
    ["ella.update_profile", "ella.forget_user", "ella.export_user", "ella.forget_memory", "ella.correct_fact"],
  );
  assert.deepEqual(items[0][1], {
    user_id: "u-1",
    updated_at: "2026-12-01T10:00:00+01:00",
    timezone: "Europe/Berlin",
    locale: "de_DE",
    is_minor: true,
    do_not_disturb: null,
    active_hours: "09:00-21:00",
    notifications: false,
  });
  assert.deepEqual(items[1][1], { user: "u-secret" });
  assert.deepEqual(items[4][1], { request_id: "r-3", user_id: "u-1", item: "fact:7", value: "Maya", reason: "typo" });
  const shown = items.map(([h]) => h.kwargsrepr).join(" ");
  for (const secret of ["Europe/Berlin", "u-secret", "my ex", "Maya", "typo", "True"]) {
    assert.ok(!shown.includes(secret), `${secret} in ${shown}`);
  }
  assert.equal(items[3][0].kwargsrepr, "{'request_id': 'r-2', 'item': 'memory:4'}");
});

test("a call missing a required argument sends nothing", async () => {
  const queue = `${tag}-refused`;
  const gateway = new GatewayClient({ redisUrl: url, queue, keyPrefix: tag });
  await assert.rejects(gateway.enqueueMessage({ messageId: "m", userId: "u", text: "hi" }), /sentAt is required/);
  await assert.rejects(gateway.correctFact({ requestId: "r", userId: "u", item: "fact:1" }), /value is required/);
  await gateway.close();
  assert.equal(await redis.llen(queue), 0);
});

test("buildEnvelope refuses kwargs that are not an object", () => {
  assert.throws(() => buildEnvelope("ella.forget_user", ["u"], { queue: "q" }), /kwargs must be an object/);
});

async function addEntries(stream, n) {
  const ids = [];
  for (let i = 0; i < n; i += 1) ids.push(await redis.xadd(stream, "*", "kind", "reply", "text", `t${i}`));
  return ids;
}

test("the reader gives a restarted consumer its unacknowledged entries first, then new ones", async () => {
  const stream = `${tag}:outbox-pending`;
  const ids = await addEntries(stream, 3);
  const crashed = new OutboxReader({ redisUrl: url, stream, group: "gw", consumer: "c1" });
  assert.deepEqual((await crashed.read({ blockMs: null })).map((e) => e.streamId), ids);
  await crashed.close(); // never acknowledged
  const later = await addEntries(stream, 1);

  const again = new OutboxReader({ redisUrl: url, stream, group: "gw", consumer: "c1" }); // the group exists
  const first = await again.read({ blockMs: null });
  assert.deepEqual(first.map((e) => e.streamId), ids);
  assert.deepEqual(first[1].fields, { kind: "reply", text: "t1" });
  assert.equal(await again.ack(first), 3);
  assert.deepEqual((await again.read({ blockMs: null })).map((e) => e.streamId), later);
  await again.ack(later.map(String));
  assert.equal(await again.pendingCount(), 0);
  assert.deepEqual(await again.read({ blockMs: 50 }), []);
  await again.close();
});

test("a pending entry whose id was deleted is acknowledged and skipped", async () => {
  const stream = `${tag}:outbox-deleted`;
  const ids = await addEntries(stream, 3);
  const reader = new OutboxReader({ redisUrl: url, stream, group: "gw", consumer: "c1" });
  await reader.read({ blockMs: null });
  await reader.close();
  await redis.xdel(stream, ids[0], ids[2]); // an erasure deletes entries a gateway read and never acknowledged

  const restarted = new OutboxReader({ redisUrl: url, stream, group: "gw", consumer: "c1" });
  const entries = await restarted.read({ blockMs: null });
  assert.deepEqual(entries.map((e) => e.streamId), [ids[1]]);
  assert.equal(await restarted.pendingCount(), 1); // the deleted two were acknowledged
  await restarted.ack(entries);
  assert.equal(await restarted.pendingCount(), 0);
  await restarted.close();
});

test("a group over a stream that does not exist yet creates the stream", async () => {
  const stream = `${tag}:outbox-new`;
  const reader = new OutboxReader({ redisUrl: url, stream, group: "gw", consumer: "c1" });
  assert.deepEqual(await reader.read({ blockMs: 10 }), []);
  assert.equal(await redis.exists(stream), 1);
  await reader.close();
});

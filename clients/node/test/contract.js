"use strict";
/**
 * The contract scenario a Node gateway runs against a real worker (driven by tests/test_node_gateway.py, which
 * checks the database and the stream afterwards).
 *
 * argv[2] is a JSON object: `users` (two ids), `tag` (makes the message and request ids unique), `group`,
 * `consumer`, `timeoutMs`, `settleMs`. Sends 20 messages (10 per user, one of them sent twice), a profile update,
 * an export and a forget of an id that does not exist; then reads the outbox with its consumer group until it
 * has the 20 replies and the 2 answers, acknowledging every entry it reads (of any kind), keeps reading for
 * `settleMs` more to catch a second reply, and prints one JSON summary line on stdout. The group starts at the
 * stream's beginning, so it also reads what earlier tests of the run published: `kinds` and `acked` count
 * those too, `others` lists only the other entries (acks, rejections) of these two users.
 */
const { GatewayClient, OutboxReader } = require("..");

async function main() {
  const options = JSON.parse(process.argv[2]);
  const [first, second] = options.users;
  const gateway = new GatewayClient();
  const reader = new OutboxReader({ group: options.group, consumer: options.consumer });
  await reader.ensureGroup();

  const start = Date.now() - 30 * 60 * 1000;
  const sent = [];
  const profileUpdatedAt = new Date();
  for (let i = 0; i < 20; i += 1) {
    const userId = i % 2 === 0 ? first : second;
    const messageId = `${options.tag}-m${String(i).padStart(2, "0")}`;
    const args = { messageId, userId, text: `Hello Ella, this is message ${i} of mine.`, sentAt: new Date(start + i * 1000) };
    if (i === 5) {
      await gateway.updateProfile({
        userId: first,
        updatedAt: profileUpdatedAt,
        timezone: "Europe/Berlin",
        locale: "de_DE",
        isMinor: false,
        doNotDisturb: "23:00-07:00",
        activeHours: "10:00-20:00",
        notifications: false,
      });
    }
    sent.push({ ...args, taskId: await gateway.enqueueMessage(args) });
    if (i === 6) sent.push({ ...sent[0], taskId: await gateway.enqueueMessage(sent[0]), repeat: true });
  }
  const exportId = `${options.tag}-export`;
  const forgetId = `${options.tag}-forget`;
  await gateway.exportUser({ requestId: exportId, userId: first, reason: "contract test" });
  await gateway.forgetMemory({ requestId: forgetId, userId: first, item: "memory:987654321", reason: "contract test" });

  const wanted = new Set(sent.map((s) => s.messageId));
  const replies = {};
  const answers = {};
  const kinds = {};
  const others = [];
  let acked = 0;
  const done = () => Object.keys(replies).length === wanted.size && exportId in answers && forgetId in answers;
  const deadline = Date.now() + options.timeoutMs;
  let settleUntil = null;
  while (Date.now() < (settleUntil || deadline)) {
    const entries = await reader.read({ count: 50, blockMs: 500 });
    for (const { fields } of entries) {
      kinds[fields.kind] = (kinds[fields.kind] || 0) + 1;
      if (fields.kind === "reply" && wanted.has(fields.in_reply_to)) {
        const seen = replies[fields.in_reply_to] || { count: 0, users: [] };
        seen.count += 1;
        seen.users.push(fields.user_id);
        replies[fields.in_reply_to] = seen;
      } else if (fields.kind === "answer" && [exportId, forgetId].includes(fields.in_reply_to)) {
        const body = JSON.parse(fields.text);
        const previous = answers[fields.in_reply_to];
        answers[fields.in_reply_to] = {
          count: (previous ? previous.count : 0) + 1,
          user_id: fields.user_id,
          category: fields.category,
          route: fields.route,
          status: body.status,
          error: body.error || null,
          export_user_id: body.export ? body.export.user_id : null,
        };
      } else if (options.users.includes(fields.user_id)) {
        others.push({ kind: fields.kind, task: fields.task || "", code: fields.code || "", in_reply_to: fields.in_reply_to });
      }
    }
    acked += await reader.ack(entries);
    if (settleUntil === null && done()) settleUntil = Date.now() + options.settleMs;
  }
  const summary = {
    complete: done(),
    profileUpdatedAt: profileUpdatedAt.toISOString(),
    sent: sent.map(({ messageId, userId, taskId, repeat }) => ({ messageId, userId, taskId, repeat: !!repeat })),
    replies,
    answers,
    kinds,
    others,
    acked,
    pendingAfter: await reader.pendingCount(),
  };
  await gateway.close();
  await reader.close();
  process.stdout.write(`${JSON.stringify(summary)}\n`);
}

main().catch((error) => {
  process.stderr.write(`${error && error.stack ? error.stack : error}\n`);
  process.exit(1);
});

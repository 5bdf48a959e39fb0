"use strict";
/**
 * For tests/test_node_gateway.py: with ELLA_REDIS_URL naming the gateway's Redis ACL user, send one message and
 * read its reply from the stream through a group, acknowledging it; prints {"reply", "pending", "probe"}.
 */
const { GatewayClient, OutboxReader } = require("..");

async function main() {
  const [messageId, userId, group] = process.argv.slice(2);
  const client = new GatewayClient();
  const reader = new OutboxReader({ group, consumer: "acl-1" });
  await reader.ensureGroup();
  await client.enqueueMessage({ messageId, userId, text: "Hello from Node", sentAt: new Date().toISOString() });
  const deadline = Date.now() + 60000;
  let reply = null;
  while (!reply && Date.now() < deadline) {
    const entries = await reader.read({ blockMs: 500 });
    await reader.ack(entries);
    reply = entries.find((e) => e.fields.kind === "reply" && e.fields.in_reply_to === messageId) || null;
  }
  const pending = await reader.pendingCount();
  // logged in as the gateway's user, not the default one: a key outside its rules is refused
  const probe = await reader.redis.get(`${process.env.ELLA_REDIS_KEY_PREFIX || "ella"}:probe`).then(
    () => "allowed",
    (error) => (String(error && error.message).startsWith("NOPERM") ? "refused" : String(error)),
  );
  await client.close();
  await reader.close();
  process.stdout.write(`${JSON.stringify({ reply: reply && reply.fields.in_reply_to, pending, probe })}\n`);
}

main().catch((error) => {
  process.stderr.write(`${error && error.stack ? error.stack : error}\n`);
  process.exit(1);
});

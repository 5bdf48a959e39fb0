"use strict";
/**
 * A stock celery-node 0.5.9 client, none of this package's code: proves that the bare protocol 2 message it
 * sends (headers lang "js", task and id only) is taken and answered by Ella's workers.
 *
 * argv[2] is a JSON object: `userId`, `messageIds`, `text` (optional), and `queue` to send elsewhere than ELLA_QUEUE_INBOUND (a
 * queue no worker reads, to look at the raw message). The broker URL comes from ELLA_REDIS_URL. Prints
 * `{"sent": [task ids]}`.
 *
 * celery-node's `sendTask` publishes in a `.then` it does not return, so the script cannot await the LPUSH
 * itself: it waits for the client to be ready (which runs after the publishes already chained on the same
 * readiness), then for a PING on the broker's connection, answered only after every command sent before it.
 */
const celery = require("celery-node");

async function main() {
  const { userId, messageIds, queue, text } = JSON.parse(process.argv[2]);
  let url = process.env.ELLA_REDIS_URL || "redis://127.0.0.1:6379/0";
  let options = {};
  if (url.startsWith("unix://")) {
    // celery-node takes only redis:// URLs; ioredis connects to options.path instead (the embedded Redis).
    options = { path: url.slice("unix://".length).split("?")[0] };
    url = "redis://localhost";
  }
  const client = celery.createClient(url, url, queue || process.env.ELLA_QUEUE_INBOUND || "inbound");
  client.conf.CELERY_BROKER_OPTIONS = options;
  client.conf.CELERY_BACKEND_OPTIONS = options;
  await client.isReady();
  const task = client.createTask("ella.ingest_message");
  const start = Date.now() - 10 * 60 * 1000;
  const sent = messageIds.map((messageId, i) => {
    const kwargs = {
      message_id: messageId,
      user_id: userId,
      text: text ? `${text} ${i}` : `Hi Ella, a stock celery-node client here, message ${i}.`,
      sent_at: new Date(start + i * 1000).toISOString(),
    };
    return task.applyAsync([], kwargs).taskId;
  });
  await client.isReady();
  await client.broker.redis.ping();
  await client.disconnect();
  process.stdout.write(`${JSON.stringify({ sent })}\n`);
}

main().catch((error) => {
  process.stderr.write(`${error && error.stack ? error.stack : error}\n`);
  process.exit(1);
});

"use strict";
/**
 * Make calls of this package from the command line, for tests/test_node_gateway.py: argv[2] is a JSON list of
 * `{"call": "enqueueMessage", "args": {...}}` (any GatewayClient method), made in order; prints the task ids
 * as one JSON list. With argv[2] `--envelopes`, prints instead the raw queue item of each call (nothing sent).
 */
const { GatewayClient } = require("..");

async function main() {
  if (process.argv[2] === "--envelopes") {
    const calls = JSON.parse(process.argv[3]);
    const queue = process.env.ELLA_QUEUE_INBOUND || "inbound";
    // Capture what the client would push, without Redis: a stand-in for ioredis's MULTI.
    const pushed = [];
    const multi = {
      hset: () => multi,
      zadd: () => multi,
      lpush: (_queue, raw) => (pushed.push(raw), multi),
      exec: async () => [[null, 1]],
    };
    const client = new GatewayClient({ redis: { multi: () => multi }, queue });
    for (const { call, args } of calls) await client[call](args);
    process.stdout.write(`${JSON.stringify(pushed)}\n`);
    return;
  }
  const client = new GatewayClient();
  const ids = [];
  for (const { call, args } of JSON.parse(process.argv[2])) ids.push(await client[call](args));
  await client.close();
  process.stdout.write(`${JSON.stringify(ids)}\n`);
}

main().catch((error) => {
  process.stderr.write(`${error && error.stack ? error.stack : error}\n`);
  process.exit(1);
});

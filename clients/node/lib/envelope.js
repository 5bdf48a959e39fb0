"use strict";
/**
 * The Celery protocol 2 message a Redis broker holds, built by hand.
 *
 * Why by hand and not through celery-node 0.5.9: its client sends a bare protocol 2 message (headers `lang`,
 * `task` and `id` only, `correlationId`/`replyTo` in camel case, embed `{}`), to one queue per client, and its
 * `sendTask` does not return the publish: a caller cannot await the LPUSH nor see it fail (the rejection is
 * unhandled), and it cannot set `argsrepr`/`kwargsrepr`, so a worker's logs and Flower would show the user's
 * words. What Celery's own Python client sends is what Ella's workers are tested with; this is that message,
 * with `lang: "js"`. The test `tests/test_node_gateway.py` still drives a worker from a stock celery-node client.
 */
const crypto = require("node:crypto");
const os = require("node:os");

const EMBED = Object.freeze({ callbacks: null, errbacks: null, chain: null, chord: null });

/** A Python-style repr of a string, so `kwargsrepr` reads like the Python client's (`'m-1'`). */
function pyString(value) {
  return `'${String(value).replace(/\\/g, "\\\\").replace(/'/g, "\\'").replace(/\n/g, "\\n")}'`;
}

/** A Python-style repr of a flat object of strings, booleans, numbers and nulls (`{'a': 'b', 'c': True}`). */
function pyRepr(shown) {
  const value = (v) => {
    if (v === null || v === undefined) return "None";
    if (v === true) return "True";
    if (v === false) return "False";
    if (typeof v === "number") return String(v);
    return pyString(v);
  };
  return `{${Object.entries(shown)
    .map(([k, v]) => `${pyString(k)}: ${value(v)}`)
    .join(", ")}}`;
}

/**
 * The raw queue item (a JSON string) that runs `task` with `kwargs` from `queue`.
 *
 * `kwargsrepr` is what a worker and Flower show instead of the kwargs: callers pass one that names ids, never
 * words. Returns `{ taskId, raw, message }` (`message` is the parsed object, for tests and the wire spec).
 */
function buildEnvelope(task, kwargs, { queue, kwargsrepr = "{}", taskId = crypto.randomUUID(), origin } = {}) {
  if (typeof task !== "string" || !task) throw new TypeError("task must be a task name");
  if (typeof queue !== "string" || !queue) throw new TypeError("queue must be a queue name");
  if (kwargs === null || typeof kwargs !== "object" || Array.isArray(kwargs)) {
    throw new TypeError("kwargs must be an object");
  }
  const body = JSON.stringify([[], kwargs, EMBED]);
  const message = {
    body: Buffer.from(body, "utf8").toString("base64"),
    "content-encoding": "utf-8",
    "content-type": "application/json",
    headers: {
      lang: "js",
      task,
      id: taskId,
      shadow: null,
      eta: null,
      expires: null,
      group: null,
      group_index: null,
      retries: 0,
      timelimit: [null, null],
      root_id: taskId,
      parent_id: null,
      argsrepr: "()",
      kwargsrepr,
      origin: origin || `ella-gateway-client/${process.pid}@${os.hostname()}`,
      ignore_result: true,
    },
    properties: {
      correlation_id: taskId,
      reply_to: "",
      delivery_mode: 2,
      delivery_info: { exchange: "", routing_key: queue },
      priority: 0,
      body_encoding: "base64",
      delivery_tag: crypto.randomUUID(),
    },
  };
  return { taskId, raw: JSON.stringify(message), message };
}

module.exports = { buildEnvelope, pyRepr };

"use strict";
/**
 * Where the gateway's tasks go and where Ella's replies come from, from options over the environment.
 *
 * Why the same `ELLA_*` names as the workers (adapters/settings.py): one environment file then configures both
 * sides, and a test run's per-run queue and stream names (tests/support/scratch.py) reach this client unchanged.
 */
const Redis = require("ioredis");

const DEFAULTS = Object.freeze({
  redisUrl: "redis://127.0.0.1:6379/0",
  queue: "inbound",
  stream: "ella:outbox",
  keyPrefix: "ella",
  recheckAfterS: 20,
  signingKey: null,
});

/**
 * The effective settings: each option given wins over its environment variable, which wins over the default.
 *
 * - `redisUrl`: `ELLA_REDIS_URL` (the broker and the stream are on the same Redis; `redis://`, `rediss://`
 *   or `unix:///path.sock`)
 * - `queue`: `ELLA_QUEUE_INBOUND` (every gateway task runs on the inbound queue)
 * - `stream`: `ELLA_OUTBOX_STREAM`
 * - `keyPrefix`: `ELLA_REDIS_KEY_PREFIX` (the inbox keys, `<prefix>:inbox:*`)
 * - `recheckAfterS`: `ELLA_INBOX_RECHECK_AFTER_S` (when the inbox sweep first looks at a message)
 * - `signingKey`: `ELLA_GATEWAY_SIGNING_KEY` (forgets, exports and corrections are signed with it; none: sent
 *   unsigned, which only a deployment without a key accepts; docs/gateway.md, signed requests)
 */
function resolveSettings(options = {}, env = process.env) {
  const pick = (name, variable) => {
    if (options[name] !== undefined && options[name] !== null) return options[name];
    if (env[variable]) return env[variable];
    return DEFAULTS[name];
  };
  const recheck = Number(pick("recheckAfterS", "ELLA_INBOX_RECHECK_AFTER_S"));
  if (!(recheck > 0)) throw new RangeError("recheckAfterS (ELLA_INBOX_RECHECK_AFTER_S) must be a positive number");
  return {
    redisUrl: pick("redisUrl", "ELLA_REDIS_URL"),
    queue: pick("queue", "ELLA_QUEUE_INBOUND"),
    stream: pick("stream", "ELLA_OUTBOX_STREAM"),
    keyPrefix: pick("keyPrefix", "ELLA_REDIS_KEY_PREFIX"),
    recheckAfterS: recheck,
    signingKey: pick("signingKey", "ELLA_GATEWAY_SIGNING_KEY") || null,
  };
}

/** An ioredis client for a redis-py style URL (`unix:///run/redis.sock` becomes ioredis's `path`). */
function connect(url, redisOptions = {}) {
  for (const scheme of ["unix://", "redis+socket://"]) {
    if (url.startsWith(scheme)) {
      const [path, query = ""] = url.slice(scheme.length).split("?");
      const db = Number(new URLSearchParams(query).get("db") || 0);
      return new Redis({ path, db, ...redisOptions });
    }
  }
  // A Redis ACL user (docs/deployment-security.md): ioredis 4 drops the user name of a URL unless told to, and its
  // ready check sends INFO, which the gateway's user may not run.
  const username = decodeURIComponent(new URL(url).username || "") || undefined;
  return new Redis(url, { username, enableReadyCheck: false, ...redisOptions });
}

module.exports = { DEFAULTS, resolveSettings, connect };

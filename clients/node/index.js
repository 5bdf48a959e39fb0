"use strict";
/**
 * ella-gateway-client: a chat gateway's Node client of Ella's back end (README.md beside this file).
 *
 * The module-level functions share one client made from the environment on first use (`ELLA_REDIS_URL`,
 * `ELLA_QUEUE_INBOUND`, `ELLA_REDIS_KEY_PREFIX`), for a script; a service makes its own `GatewayClient`.
 * `close()` ends that shared client's connection so the process can exit.
 */
const { GatewayClient, TASKS, inboxEntryKey } = require("./lib/gateway");
const { OutboxReader } = require("./lib/outbox");
const { buildEnvelope } = require("./lib/envelope");
const { resolveSettings } = require("./lib/config");

let shared = null;
const client = () => (shared = shared || new GatewayClient());

module.exports = {
  GatewayClient,
  OutboxReader,
  TASKS,
  buildEnvelope,
  inboxEntryKey,
  resolveSettings,
  enqueueMessage: (args) => client().enqueueMessage(args),
  updateProfile: (args) => client().updateProfile(args),
  forgetUser: (args) => client().forgetUser(args),
  exportUser: (args) => client().exportUser(args),
  forgetMemory: (args) => client().forgetMemory(args),
  correctFact: (args) => client().correctFact(args),
  close: async () => {
    if (shared) await shared.close();
    shared = null;
  },
};

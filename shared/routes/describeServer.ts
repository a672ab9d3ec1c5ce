/**
 * `GET /` — what this deployment is, for a program or a person with curl (a browser gets `serverPage`): the server's name and
 * version, the protocol versions it speaks, its endpoints (the router's own table, so the list
 * cannot drift from what is served) and its limits. A definition that cannot be served says why
 * (`problem`); one served with less than it declares says what is missing (`warnings`).
 */
import { MODERN_PROTOCOL_VERSIONS, SUPPORTED_PROTOCOL_VERSIONS } from "../protocol/versions.ts";
import type { Services } from "./Services.ts";

/** The deployment as `services` has it: its runtime (definition, config, whether tasks are hosted), `problem` and `warnings`. */
export function describeServer(services: Pick<Services, "runtime" | "problem" | "warnings">, routes: readonly { method: string; path: string; description: string }[]): Response {
  const { problem, warnings } = services;
  const { server: definition, config, tasks } = services.runtime;
  return Response.json({
    server: definition.info,
    runtime: "durable-mcp",
    ...(problem ? { problem: problem.message } : {}),
    ...(warnings.length > 0 ? { warnings } : {}),
    protocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS, ...MODERN_PROTOCOL_VERSIONS],
    // The same identifiers `server/discover` advertises (and, tasks aside, `initialize`).
    extensions: definition.extensionIds(tasks !== undefined),
    endpoints: Object.fromEntries(routes.map((r) => [`${r.method} ${r.path}`, r.description])),
    limits: {
      maxBodyBytes: config.maxBodyBytes,
      // What a tool's or prompt's arguments may be, unless the tool declares its own `limits`.
      arguments: { maxBytes: config.maxArgumentBytes, maxDepth: config.maxArgumentDepth, maxValues: config.maxArgumentValues },
      maxQueueBytes: config.maxQueueBytes,
      maxQueueMessages: config.maxQueueMessages,
      maxConcurrentHandlers: config.maxConcurrentHandlers,
      handlerTimeoutMs: config.handlerTimeoutMs,
      keepaliveIntervalMs: config.keepaliveIntervalMs,
      sessionIdleTtlMs: config.sessionIdleTtlMs,
      requestStateTtlMs: config.requestStateTtlMs,
      // Fair shares: what one client (the signed-in user, else its address) may hold.
      perClient: { sessions: config.maxSessionsPerClient, listens: config.maxListensPerClient, tasks: config.maxTasksPerClient, taskBytes: config.maxTaskBytesPerClient, handles: config.maxHandlesPerClient },
      ...(definition.hasHomes ? { homes: { maxBytes: config.maxHomeBytes, maxKeys: config.maxHomeKeys, retentionMs: config.homeRetentionMs } } : {}),
    },
    // A browser gets a page at the same URL (`serverPage`): caches must keep the two apart.
  }, { headers: { vary: "Accept" } });
}

/**
 * `GET /` — what this deployment is, for a person with a browser or curl: the server's name and
 * version, the protocol versions it negotiates, its endpoints and its limits.
 */
import type { Config } from "../config/readConfig.ts";
import { SUPPORTED_PROTOCOL_VERSIONS } from "../protocol/versions.ts";
import type { McpServer } from "../server/McpServer.ts";

export function describeServer(server: McpServer, config: Config): Response {
  return Response.json({
    server: server.info,
    runtime: "durable-mcp",
    protocolVersions: SUPPORTED_PROTOCOL_VERSIONS,
    endpoints: {
      "GET /sse": "HTTP+SSE (2024-11-05): opens a session; the first event names the POST endpoint",
      "POST /message?sessionId=…": "HTTP+SSE: one JSON-RPC message or batch; 202, replies on the stream",
      "GET /health": "liveness for load balancers and monitors",
    },
    limits: {
      maxBodyBytes: config.maxBodyBytes,
      maxQueueBytes: config.maxQueueBytes,
      maxQueueMessages: config.maxQueueMessages,
      maxConcurrentHandlers: config.maxConcurrentHandlers,
      handlerTimeoutMs: config.handlerTimeoutMs,
      keepaliveIntervalMs: config.keepaliveIntervalMs,
      sessionIdleTtlMs: config.sessionIdleTtlMs,
    },
  });
}

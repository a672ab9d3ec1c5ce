/**
 * One 2026-07-28 request on Streamable HTTP, answered without a session and without leaving the
 * process that received it (on Workers: no Durable Object hop). The order of checks is the
 * spec's: JSON-RPC shape, `_meta` and version (`readRequestMeta`), method, mirrored headers
 * (`checkRequestHeaders`); then `server/discover`, `subscriptions/listen`, or the method itself
 * (`runRequest`).
 *
 * A request is answered with JSON, or with an SSE stream once its handler sends a progress or
 * log notification first; the stream carries no event ids (this revision has no resumption) and
 * closing it cancels the handler.
 *
 * Errors follow this revision: HTTP 404 for an unknown method, 400 for everything the client
 * must fix, and resource-not-found as -32602 (earlier eras' -32002 stays theirs).
 *
 * Not here: the same revision on stdio and other message streams (`StreamRequests`).
 */
import type { Broadcaster } from "../broadcast/Broadcaster.ts";
import type { Config } from "../config/readConfig.ts";
import { McpError } from "../errors/McpError.ts";
import { errorResponse } from "../http/errorResponse.ts";
import { isRequest, type JsonRpcMessage } from "../jsonrpc/messages.ts";
import type { Logger } from "../log/Logger.ts";
import type { McpServer } from "../server/McpServer.ts";
import { checkRequestHeaders } from "./checkRequestHeaders.ts";
import { decorateResult } from "./decorateResult.ts";
import { listen, planListen } from "./listen.ts";
import { readRequestMeta } from "./readRequestMeta.ts";
import type { RequestState } from "./RequestState.ts";
import { requestChannel } from "./requestChannel.ts";
import { forThisEra, runRequest } from "./runRequest.ts";

export interface StatelessDeps {
  server: McpServer;
  config: Config;
  logger: Logger;
  env: Readonly<Record<string, unknown>>;
  requestState: RequestState;
  broadcast: Broadcaster;
}

/** The client requests of this revision (schema `ClientRequest`); the rest, `initialize` and `ping` included, are -32601. */
export const METHODS = new Set([
  "server/discover",
  "subscriptions/listen",
  "tools/list",
  "tools/call",
  "prompts/list",
  "prompts/get",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "completion/complete",
]);

export async function handleStateless(request: Request, messages: readonly JsonRpcMessage[], batch: boolean, deps: StatelessDeps): Promise<Response> {
  const message = messages[0];
  if (batch || !message) return errorResponse(McpError.invalidRequest("Protocol 2026-07-28 has no JSON-RPC batches; send one message per POST"));
  if (!("method" in message)) {
    return errorResponse(McpError.invalidRequest("Protocol 2026-07-28 servers send no requests, so clients send no responses"), message.id);
  }
  // The revision defines no client notifications over HTTP (closing a stream cancels): accepted, ignored.
  if (!isRequest(message)) return new Response(null, { status: 202 });
  try {
    const params = message.params ?? {};
    const meta = readRequestMeta(request.headers, message.params);
    if (!METHODS.has(message.method)) throw McpError.methodNotFound(message.method);
    const toolName = message.method === "tools/call" && typeof params.name === "string" ? params.name : undefined;
    checkRequestHeaders(request.headers, message.method, params, toolName === undefined ? [] : deps.server.paramHeaders(toolName));
    if (message.method === "server/discover") {
      return Response.json({ jsonrpc: "2.0", id: message.id, result: decorateResult(message.method, deps.server.discover(), deps.server) });
    }
    // Closing the response stream is this revision's cancellation.
    const cancel = new AbortController();
    if (message.method === "subscriptions/listen") {
      const plan = planListen(message, deps.server);
      const channel = requestChannel("listen", deps, () => cancel.abort());
      // Connected only once subscribed: the acknowledgement waits in the channel until then.
      await listen(message, plan, deps, channel, cancel.signal);
      return channel.connect(undefined, {}, false);
    }
    const channel = requestChannel("request", deps, (reason) => reason === "client-disconnected" && cancel.abort());
    const response = channel.respond(true);
    void runRequest(message, meta, deps, channel, cancel.signal);
    return response;
  } catch (error) {
    return errorResponse(forThisEra(error, deps.logger), message.id);
  }
}

/**
 * One 2026-07-28 request on Streamable HTTP, answered without a session and without leaving the
 * process that received it (on Workers: no Durable Object hop). The order of checks is the
 * spec's: JSON-RPC shape, `_meta` and version (`readRequestMeta`), method, mirrored headers
 * (`checkRequestHeaders`); then `server/discover`, `subscriptions/listen`, or the method itself.
 *
 * A request is answered with JSON, or with an SSE stream once its handler sends a progress or
 * log notification first; the stream carries no event ids (this revision has no resumption) and
 * closing it cancels the handler. Input a handler asks for becomes an `InputRequiredResult`
 * (`InputRounds`) whose `requestState` is sealed (`RequestState`).
 *
 * Errors follow this revision: HTTP 404 for an unknown method, 400 for everything the client
 * must fix, and resource-not-found as -32602 (earlier eras' -32002 stays theirs).
 */
import type { Broadcaster } from "../broadcast/Broadcaster.ts";
import { resourceTopic } from "../broadcast/Broadcaster.ts";
import type { Config } from "../config/readConfig.ts";
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";
import { errorResponse, toMcpError } from "../http/errorResponse.ts";
import { isRequest, type JsonRpcMessage, type JsonRpcRequest } from "../jsonrpc/messages.ts";
import type { Logger } from "../log/Logger.ts";
import { LIST_CHANGED_METHOD } from "../server/ListKind.ts";
import type { McpServer, SessionHooks } from "../server/McpServer.ts";
import { requestNotifications } from "../server/requestNotifications.ts";
import type { RequestContext } from "../server/types.ts";
import { MemoryStorage } from "../session/MemoryStorage.ts";
import { DATA_PREFIX } from "../session/SessionRecord.ts";
import { scoped } from "../session/SessionStorage.ts";
import { untilAborted } from "../session/untilAborted.ts";
import { checkRequestHeaders } from "./checkRequestHeaders.ts";
import { decorateResult } from "./decorateResult.ts";
import { InputRounds } from "./InputRounds.ts";
import { listen } from "./listen.ts";
import { requestChannel } from "./requestChannel.ts";
import { readRequestMeta, type RequestMeta } from "./readRequestMeta.ts";
import { paramsDigest, type RequestState } from "./RequestState.ts";

export interface StatelessDeps {
  server: McpServer;
  config: Config;
  logger: Logger;
  env: Readonly<Record<string, unknown>>;
  requestState: RequestState;
  broadcast: Broadcaster;
}

/** The client requests of this revision (schema `ClientRequest`); the rest, `initialize` and `ping` included, are -32601. */
const METHODS = new Set([
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

/** The only requests that may be answered with an `InputRequiredResult` ("Server Requirements"). */
const MAY_ASK = new Set(["tools/call", "prompts/get", "resources/read"]);

/** There is no session, so nothing a session hook would change exists; lists are the same for all. */
const NO_SESSION: SessionHooks = {
  setLogLevel: async () => {},
  subscribe: async () => {},
  unsubscribe: async () => {},
  overrides: () => ({}),
  setOverrides: async () => {},
};

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
    if (message.method === "subscriptions/listen") return await listen(message, deps);
    return await run(message, meta, deps);
  } catch (error) {
    return errorResponse(forThisEra(error, deps.logger), message.id);
  }
}

/** Runs a handler; the response is JSON or SSE depending on what the handler sends first. */
async function run(message: JsonRpcRequest, meta: RequestMeta, deps: StatelessDeps): Promise<Response> {
  const { server, config, logger } = deps;
  const { id, method } = message;
  const params = message.params ?? {};
  const mayAsk = MAY_ASK.has(method);
  // Hashed only when a requestState is opened or sealed: most calls never ask the client.
  let digested: Promise<string> | undefined;
  const digest = () => (digested ??= paramsDigest(params));
  const sealed = mayAsk && params.requestState !== undefined ? await deps.requestState.open(params.requestState, method, await digest()) : {};
  const rounds = new InputRounds(sealed, mayAsk ? params.inputResponses : undefined, meta.clientCapabilities);

  const controller = new AbortController();
  const cancelled = Symbol("client closed the stream");
  const timer = setTimeout(
    () => controller.abort(new McpError(500, ErrorCode.InternalError, `The handler did not finish within HANDLER_TIMEOUT_MS (${config.handlerTimeoutMs} ms)`)),
    config.handlerTimeoutMs,
  );
  // Closing the response stream is this revision's cancellation.
  const channel = requestChannel("request", deps, (reason) => reason === "client-disconnected" && controller.abort(cancelled));
  const response = channel.respond(true);
  let settled = false;
  const notify = async (notification: { method: string }) => {
    if (settled) return logger.warn("rpc.late-notification", { method: notification.method });
    await channel.send(notification, "notification", controller.signal);
  };
  const ask = (askMethod: string, askParams: Record<string, unknown>, key?: string) => {
    if (!mayAsk) return Promise.reject(new Error(`${method} cannot ask the client for input; only tools/call, prompts/get and resources/read can`));
    return rounds.ask(askMethod, askParams, key);
  };
  const ctx: RequestContext = {
    signal: controller.signal,
    requestId: id,
    session: { id: "", protocolVersion: meta.protocolVersion, clientInfo: meta.clientInfo, clientCapabilities: meta.clientCapabilities },
    env: deps.env,
    // No session, so nothing outlives the request: state that spans calls travels in arguments (2026-07-28 "Statelessness").
    storage: scoped(new MemoryStorage(), DATA_PREFIX),
    ...requestNotifications(notify, meta.progressToken, () => meta.logLevel),
    sample: (p, options) => ask("sampling/createMessage", p, options?.key),
    elicit: (p, options) => ask("elicitation/create", p, options?.key),
    listRoots: (options) => ask("roots/list", {}, options?.key),
    closeStream: () => {},
    resourceUpdated: (uri) => deps.broadcast.publish(resourceTopic(uri), { jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri } }),
    listChanged: (feature) => deps.broadcast.publish(feature, { jsonrpc: "2.0", method: LIST_CHANGED_METHOD[feature] }),
    setEnabled: async () => {
      throw new Error("Per-session lists need a session; on protocol 2026-07-28 every client sees the same lists");
    },
  };

  void (async () => {
    let reply: object | undefined;
    let status = 200;
    try {
      const result = await untilAborted(server.handle(message, ctx, NO_SESSION), controller.signal);
      reply = { jsonrpc: "2.0", id, result: rounds.needsInput ? await inputRequired(rounds, method, await digest(), deps) : decorateResult(method, result, server) };
    } catch (error) {
      if (controller.signal.reason === cancelled) {
        logger.debug("rpc.cancelled", { method });
      } else if (rounds.needsInput && !(error instanceof McpError)) {
        // A read or prompt handler's ask rejects it with InputRequired; the asks stand.
        reply = { jsonrpc: "2.0", id, result: await inputRequired(rounds, method, await digest(), deps) };
      } else {
        const known = forThisEra(error, logger);
        reply = { jsonrpc: "2.0", id, error: known.toJsonRpc() };
        status = known.status;
      }
    } finally {
      settled = true;
      clearTimeout(timer);
    }
    if (reply) await channel.send(reply, "reply", undefined, undefined, status);
    channel.finish();
  })().catch((error) => logger.error("internal.error", { message: String(error) }));
  return response;
}

async function inputRequired(rounds: InputRounds, method: string, digest: string, deps: StatelessDeps): Promise<Record<string, unknown>> {
  return {
    resultType: "input_required",
    inputRequests: rounds.pending,
    requestState: await deps.requestState.seal(method, digest, rounds.used),
    _meta: decorateResult(method, {}, deps.server)._meta,
  };
}

/** An error as this revision words it: resource not found is -32602, and no legacy-range codes. */
function forThisEra(error: unknown, logger: Logger): McpError {
  const known = toMcpError(error, logger);
  if (known.code === ErrorCode.ResourceNotFound) return new McpError(400, ErrorCode.InvalidParams, known.message, known.data);
  return known;
}

/**
 * Runs one 2026-07-28 request's handler and answers it on `outlet`: its progress and log
 * notifications first (only while it runs), then exactly one reply — unless the client cancelled
 * (`cancel` aborted), after which nothing more is sent for it (cancellation spec). Input the
 * handler asks for becomes an `InputRequiredResult` (`InputRounds`) whose `requestState` is
 * sealed (`RequestState`); a `requestState` sent back is opened first.
 *
 * The outlet is the request's own response stream on Streamable HTTP (JSON, or SSE once a
 * notification goes first), or the connection's one shared stream on stdio and other message
 * streams. Never throws: every failure is the reply.
 */
import { resourceTopic } from "../broadcast/Broadcaster.ts";
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";
import { toMcpError } from "../errors/toMcpError.ts";
import type { JsonRpcRequest } from "../jsonrpc/messages.ts";
import type { Logger } from "../log/Logger.ts";
import { LIST_CHANGED_METHOD } from "../server/ListKind.ts";
import type { SessionHooks } from "../server/McpServer.ts";
import { requestNotifications } from "../server/requestNotifications.ts";
import type { RequestContext } from "../server/types.ts";
import { MemoryStorage } from "../session/MemoryStorage.ts";
import { DATA_PREFIX } from "../session/SessionRecord.ts";
import { followAbort } from "../session/followAbort.ts";
import { scoped } from "../session/SessionStorage.ts";
import { untilAborted } from "../session/untilAborted.ts";
import type { Outlet } from "../transport/Transport.ts";
import { decorateResult } from "./decorateResult.ts";
import type { StatelessDeps } from "./handleStateless.ts";
import { InputRounds } from "./InputRounds.ts";
import type { RequestMeta } from "./readRequestMeta.ts";
import { paramsDigest } from "./RequestState.ts";

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

export async function runRequest(message: JsonRpcRequest, meta: RequestMeta, deps: StatelessDeps, outlet: Outlet, cancel: AbortSignal): Promise<void> {
  const { server, config, logger } = deps;
  const { id, method } = message;
  const params = message.params ?? {};
  const mayAsk = MAY_ASK.has(method);
  const cancelled = Symbol("cancelled by the client");
  const controller = new AbortController();
  const unlink = followAbort(cancel, controller, cancelled);
  const timer = setTimeout(
    () => controller.abort(new McpError(500, ErrorCode.InternalError, `The handler did not finish within HANDLER_TIMEOUT_MS (${config.handlerTimeoutMs} ms)`)),
    config.handlerTimeoutMs,
  );
  // Hashed only when a requestState is opened or sealed: most calls never ask the client.
  let digested: Promise<string> | undefined;
  const digest = () => (digested ??= paramsDigest(params));
  let rounds: InputRounds | undefined;
  let settled = false;
  const notify = async (notification: { method: string }) => {
    if (settled) return logger.warn("rpc.late-notification", { method: notification.method });
    await outlet.send(notification, "notification", controller.signal);
  };
  const ask = (askMethod: string, askParams: Record<string, unknown>, key?: string) => {
    if (!mayAsk || !rounds) return Promise.reject(new Error(`${method} cannot ask the client for input; only tools/call, prompts/get and resources/read can`));
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

  let reply: object | undefined;
  let status = 200;
  try {
    const sealed = mayAsk && params.requestState !== undefined ? await deps.requestState.open(params.requestState, method, await digest()) : {};
    rounds = new InputRounds(sealed, mayAsk ? params.inputResponses : undefined, meta.clientCapabilities);
    const result = await untilAborted(server.handle(message, ctx, NO_SESSION), controller.signal);
    reply = { jsonrpc: "2.0", id, result: rounds.needsInput ? await inputRequired(rounds, method, await digest(), deps) : decorateResult(method, result, server) };
  } catch (error) {
    if (controller.signal.reason === cancelled) {
      logger.debug("rpc.cancelled", { method });
    } else if (rounds?.needsInput && !(error instanceof McpError)) {
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
    unlink();
  }
  try {
    if (reply) await outlet.send(reply, "reply", undefined, undefined, status);
  } catch (error) {
    logger.error("internal.error", { message: String(error) });
  } finally {
    outlet.settled();
  }
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
export function forThisEra(error: unknown, logger: Logger): McpError {
  const known = toMcpError(error, logger);
  if (known.code === ErrorCode.ResourceNotFound) return new McpError(400, ErrorCode.InvalidParams, known.message, known.data);
  return known;
}

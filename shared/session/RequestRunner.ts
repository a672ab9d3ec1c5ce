/**
 * Runs a session's requests: at most `maxConcurrentHandlers` at once (FIFO), each with a deadline,
 * each answered exactly once on the channel it came in on — unless it was cancelled or its client
 * went away, after which nobody is waiting and no response is sent (cancellation spec).
 *
 * It also gives each handler its `RequestContext`: progress and log notifications on the
 * request's own channel (refused once the request is answered: progress spec, "MUST stop"), and
 * requests to the client (sampling, elicitation, roots) whose answers `ClientRequests` routes back.
 *
 * Not here: admission (the session decides what to accept), transports, persistence.
 */
import type { Config } from "../config/readConfig.ts";
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";
import { toMcpError } from "../errors/toMcpError.ts";
import type { JsonRpcRequest, RequestId } from "../jsonrpc/messages.ts";
import type { Logger } from "../log/Logger.ts";
import type { LogLevel } from "../protocol/logLevels.ts";
import type { McpServer, SessionHooks } from "../server/McpServer.ts";
import type { Broadcaster } from "../broadcast/Broadcaster.ts";
import { requestNotifications } from "../server/requestNotifications.ts";
import { describeMissing, requiredCapability } from "../protocol/requiredCapability.ts";
import { FEATURE_OF, LIST_CHANGED_METHOD } from "../server/ListKind.ts";
import type { RequestContext, SessionInfo } from "../server/types.ts";
import type { Outlet } from "../transport/Transport.ts";
import { ClientRequests } from "./ClientRequests.ts";
import type { QueueBudget } from "./QueueBudget.ts";
import type { SessionStorage } from "./SessionStorage.ts";
import { Slots } from "./Slots.ts";
import { untilAborted } from "./untilAborted.ts";

/** Abort reasons after which no response is sent: nobody is waiting for one. */
export const CANCELLED = Symbol("cancelled by the client");
export const DISCONNECTED = Symbol("client disconnected");

export interface RunnerDeps {
  server: McpServer;
  hooks: SessionHooks;
  config: Config;
  log: Logger;
  env: Readonly<Record<string, unknown>>;
  storage: Omit<SessionStorage, "deleteAll">;
  budget: QueueBudget;
  session(): SessionInfo;
  logLevel(): LogLevel | undefined;
  /** Sends `notifications/resources/updated` for `uri` to whoever watches it: the session if subscribed, and listeners. */
  resourceUpdated(uri: string, signal: AbortSignal): Promise<void>;
  /** Where changes for everyone go (2026-07-28 listeners); absent when the host has none. */
  broadcast?: Broadcaster;
}

interface InFlight {
  controller: AbortController;
  channel: Outlet;
  /** Set once the request is answered: its notifications MUST stop (progress spec). */
  settled: boolean;
}

export class RequestRunner {
  readonly #deps: RunnerDeps;
  readonly #slots: Slots;
  readonly #inFlight = new Map<string, InFlight>();
  readonly clientRequests: ClientRequests;

  constructor(deps: RunnerDeps) {
    this.#deps = deps;
    this.#slots = new Slots(deps.config.maxConcurrentHandlers);
    this.clientRequests = new ClientRequests(deps.config.handlerTimeoutMs);
  }

  get running(): number {
    return this.#slots.running;
  }

  /** Starts a request whose reply room is already reserved; answers on `channel`. */
  start(request: JsonRpcRequest, channel: Outlet): void {
    this.#deps.log.debug("rpc.in", { id: request.id, method: request.method });
    const key = keyOf(request.id);
    if (this.#inFlight.has(key)) {
      void this.reply(request.id, channel, { error: McpError.invalidRequest(`Request id ${JSON.stringify(request.id)} is already in use by a request in flight`).toJsonRpc() });
      return;
    }
    const entry: InFlight = { controller: new AbortController(), channel, settled: false };
    this.#inFlight.set(key, entry);
    void this.#run(request, key, entry);
  }

  /** `notifications/cancelled`: aborts the request; an unknown or finished one is ignored (spec). */
  cancel(id: unknown): boolean {
    const entry = typeof id === "string" || typeof id === "number" ? this.#inFlight.get(keyOf(id)) : undefined;
    entry?.controller.abort(CANCELLED);
    return entry !== undefined;
  }

  /** Aborts every request, e.g. `DISCONNECTED` when a legacy client goes away. */
  abortAll(reason: unknown): void {
    for (const entry of this.#inFlight.values()) entry.controller.abort(reason);
  }

  /** Sends a reply whose room was reserved at admission, then frees the reservation. */
  async reply(id: RequestId, channel: Outlet, payload: { result: unknown } | { error: unknown }): Promise<void> {
    let message: object = { jsonrpc: "2.0", id, ...payload };
    const limit = this.#deps.config.maxQueueBytes;
    const bytes = JSON.stringify(message).length;
    if (bytes > limit) {
      this.#deps.log.error("rpc.reply-too-large", { id, bytes, limit });
      const error = new McpError(500, ErrorCode.InternalError, `The response is ${bytes} bytes, over the session's limit of ${limit} bytes`);
      message = { jsonrpc: "2.0", id, error: error.toJsonRpc() };
    }
    try {
      await channel.send(message, "reply", undefined, () => this.#deps.budget.release());
    } finally {
      channel.settled();
    }
  }

  async #run(request: JsonRpcRequest, key: string, entry: InFlight): Promise<void> {
    const { signal } = entry.controller;
    const log = this.#deps.log;
    await this.#slots.acquire();
    const started = Date.now();
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      signal.throwIfAborted();
      const timeoutMs = this.#deps.config.handlerTimeoutMs;
      timer = setTimeout(() => {
        entry.controller.abort(new McpError(504, ErrorCode.RequestTimeout, `Request ${request.method} timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      const result = await untilAborted(this.#deps.server.handle(request, this.#context(request, entry), this.#deps.hooks), signal);
      entry.settled = true;
      await this.reply(request.id, entry.channel, { result });
      log.info("rpc.out", { id: request.id, method: request.method, ms: Date.now() - started });
    } catch (thrown) {
      entry.settled = true;
      const reason = signal.aborted ? signal.reason : thrown;
      if (reason === CANCELLED || reason === DISCONNECTED) {
        this.#deps.budget.release();
        entry.channel.settled();
        log.info("rpc.out", { id: request.id, method: request.method, ms: Date.now() - started, aborted: String(reason.description) });
      } else {
        const error = toMcpError(reason, log);
        await this.reply(request.id, entry.channel, { error: error.toJsonRpc() });
        log.info("rpc.out", { id: request.id, method: request.method, ms: Date.now() - started, code: error.code });
      }
    } finally {
      clearTimeout(timer);
      this.#inFlight.delete(key);
      this.#slots.release();
    }
  }

  #context(request: JsonRpcRequest, entry: InFlight): RequestContext {
    const { signal } = entry.controller;
    const progressToken = (request.params?._meta as { progressToken?: unknown } | undefined)?.progressToken;
    const session = this.#deps.session();
    return {
      signal,
      requestId: request.id,
      session,
      env: this.#deps.env,
      storage: this.#deps.storage,
      ...requestNotifications((notification) => this.#notify(entry, notification), progressToken, this.#deps.logLevel),
      // `options.key` names 2026-07-28 input requests; a session's request has its own JSON-RPC id.
      sample: (params) => this.#ask(entry, session, "sampling/createMessage", params),
      elicit: (params) => this.#ask(entry, session, "elicitation/create", params),
      listRoots: () => this.#ask(entry, session, "roots/list", {}),
      closeStream: () => entry.channel.disconnect(),
      resourceUpdated: (uri) => this.#deps.resourceUpdated(uri, signal),
      listChanged: async (feature) => {
        const message = { jsonrpc: "2.0", method: LIST_CHANGED_METHOD[feature] };
        await this.#deps.broadcast?.publish(feature, message);
        await this.#notify(entry, message);
      },
      // On the request's own stream: the change is this request's doing, and a client that never
      // opened the standalone stream still learns of it.
      setEnabled: async (kind, id, enabled) => {
        if (await this.#deps.server.setEnabled(kind, id, enabled, this.#deps.hooks)) {
          await this.#notify(entry, { jsonrpc: "2.0", method: LIST_CHANGED_METHOD[FEATURE_OF[kind]] });
        }
      },
    };
  }

  /**
   * Queues a handler's notification once there is room. After its request was answered, aborted
   * or timed out, a notification would follow the reply (or nothing), so it is refused: an
   * aborted handler gets the abort reason thrown, a settled one a logged no-op.
   */
  async #notify(entry: InFlight, message: { method: string; [field: string]: unknown }): Promise<void> {
    entry.controller.signal.throwIfAborted();
    if (entry.settled) {
      this.#deps.log.warn("rpc.late-notification", { method: message.method });
      return;
    }
    await entry.channel.send(message, "notification", entry.controller.signal);
  }

  /** Sends a request to the client on the handler's channel and waits for the answer. */
  async #ask(entry: InFlight, session: SessionInfo, method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const missing = requiredCapability(method, params, session.clientCapabilities);
    if (missing) throw new Error(describeMissing(method, missing));
    const { id, result } = this.clientRequests.open(method, entry.controller.signal);
    // If sending fails, the same abort also rejects `result`; observe it so it is not reported unhandled.
    result.catch(() => {});
    await this.#notify(entry, { jsonrpc: "2.0", id, method, params });
    return result;
  }
}

/** JSON-RPC ids 1 and "1" are different requests. */
function keyOf(id: RequestId): string {
  return `${typeof id}:${id}`;
}

/**
 * 2026-07-28 requests on stdio and other message streams (transports spec 2026-07-28, "stdio"):
 * request metadata travels inline in `_meta` (there is no header layer), every reply and
 * notification shares the connection's one stream, and a request is cancelled by
 * `notifications/cancelled` (there is no per-request stream to close). Each request runs as it
 * does on HTTP (`runRequest`, `listen`), with the connection's outlet; listen notifications
 * carry their `subscriptionId`, and no request is ever sent to the client (input is asked for
 * with an `InputRequiredResult`).
 *
 * Bounds: like a session's request, each one reserves its reply's room in the connection's
 * queue budget until answered, so a client that stops reading is refused (-32000) rather than
 * buffered without limit.
 *
 * Not here: the session eras on the same stream (`serveMessages` sends those to the `Session`).
 */
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";
import { isRequest, type JsonRpcMessage, type JsonRpcRequest } from "../jsonrpc/messages.ts";
import { META } from "../protocol/metaKeys.ts";
import type { QueueBudget } from "../session/QueueBudget.ts";
import type { Outlet } from "../transport/Transport.ts";
import { decorateResult } from "./decorateResult.ts";
import { METHODS, type StatelessDeps } from "./handleStateless.ts";
import { listen, planListen } from "./listen.ts";
import { readRequestMeta } from "./readRequestMeta.ts";
import { forThisEra, runRequest } from "./runRequest.ts";

export class StreamRequests {
  readonly #deps: StatelessDeps;
  readonly #outlet: Outlet;
  readonly #budget: QueueBudget;
  /** Requests not yet settled, by JSON-encoded id: what `notifications/cancelled` can reach. */
  readonly #inFlight = new Map<string, AbortController>();

  /** @param outlet the connection's one stream; @param budget the queue budget it counts against. */
  constructor(deps: StatelessDeps, outlet: Outlet, budget: QueueBudget) {
    this.#deps = deps;
    this.#outlet = outlet;
    this.#budget = budget;
  }

  /** Whether `message` is of this revision: a request whose `_meta` names a protocol version. */
  static claims(message: JsonRpcMessage): message is JsonRpcRequest {
    if (!isRequest(message)) return false;
    const meta = message.params?._meta;
    return typeof meta === "object" && meta !== null && META.protocolVersion in meta;
  }

  get inFlight(): number {
    return this.#inFlight.size;
  }

  /** Starts one request; its messages go out on the stream. Returns the error to write at once when it cannot start. */
  start(message: JsonRpcRequest): object | undefined {
    const { id, method } = message;
    const key = JSON.stringify(id);
    let plan: ReturnType<typeof planListen> | undefined;
    let meta: ReturnType<typeof readRequestMeta>;
    try {
      meta = readRequestMeta(undefined, message.params);
      if (!METHODS.has(method)) throw McpError.methodNotFound(method);
      if (method === "subscriptions/listen") plan = planListen(message, this.#deps.server);
      if (this.#inFlight.has(key)) throw McpError.invalidRequest(`Request id ${key} is already in use by a request in flight`);
      if (!this.#budget.canAdmit(1)) {
        const { messages, bytes } = this.#budget;
        throw new McpError(429, ErrorCode.ServerBusy, `Queue is full (${messages} messages, ${bytes} bytes waiting for the client to read); retry later`);
      }
    } catch (error) {
      return { jsonrpc: "2.0", id, error: forThisEra(error, this.#deps.logger).toJsonRpc() };
    }
    this.#budget.reserve();
    const cancel = new AbortController();
    this.#inFlight.set(key, cancel);
    const outlet = this.#requestOutlet(key);
    if (method === "server/discover") {
      const result = decorateResult(method, this.#deps.server.discover(), this.#deps.server);
      void outlet
        .send({ jsonrpc: "2.0", id, result }, "reply")
        .catch((error) => this.#deps.logger.error("internal.error", { message: String(error) }))
        .finally(() => outlet.settled());
    } else if (plan) {
      // A failed subscription is answered as the request's error (listen has settled it already).
      void listen(message, plan, this.#deps, outlet, cancel.signal)
        .catch((error) => this.#outlet.send({ jsonrpc: "2.0", id, error: forThisEra(error, this.#deps.logger).toJsonRpc() }, "notification"))
        .catch((error) => this.#deps.logger.error("internal.error", { message: String(error) }));
    } else {
      void runRequest(message, meta, this.#deps, outlet, cancel.signal);
    }
    return undefined;
  }

  /** `notifications/cancelled` for one of these requests: false when it names none of them. */
  cancel(requestId: unknown): boolean {
    const controller = this.#inFlight.get(JSON.stringify(requestId));
    controller?.abort();
    return controller !== undefined;
  }

  /** The connection ended: every request stops, and nothing more is sent. */
  abortAll(): void {
    for (const controller of this.#inFlight.values()) controller.abort();
  }

  /** The shared outlet, seen by one request: its reply takes over the reservation; settling frees it. */
  #requestOutlet(key: string): Outlet {
    let replied = false;
    let settled = false;
    return {
      send: (message, kind, signal, onQueued, status) => {
        if (kind !== "reply") return this.#outlet.send(message, kind, signal, onQueued, status);
        replied = true;
        const queued = () => {
          this.#budget.release();
          onQueued?.();
        };
        return this.#outlet.send(message, "reply", signal, queued, status);
      },
      settled: () => {
        if (settled) return;
        settled = true;
        if (!replied) this.#budget.release();
        this.#inFlight.delete(key);
      },
      disconnect: () => {},
    };
  }
}

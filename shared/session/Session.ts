/**
 * One MCP session, independent of where it is hosted: its persisted record, its outbound queue,
 * its open stream (at most one), and the handlers it is running. A Durable Object hosts it on
 * Workers (`durable/SessionObject.ts`); any host that supplies `SessionDeps` can.
 *
 * Rules it keeps (issue 2):
 * - Admission: a POST whose requests would not fit in the queue is refused whole with 429 and
 *   Retry-After; what is accepted holds a queue reservation until answered, so no reply is
 *   dropped for lack of room.
 * - At most `maxConcurrentHandlers` run at once; later requests wait in FIFO order.
 * - Each handler has a deadline; past it, its signal aborts and the request is answered -32001
 *   at once, whether or not the handler stops.
 * - `notifications/cancelled` aborts the handler and, per the spec, sends no response.
 * - When the client goes away (the stream is cancelled), one teardown runs: handlers see their
 *   signal abort, the queue is released, the stream's timers are cleared. The record stays until
 *   the idle TTL passes, so the session can be reopened with `GET /sse?sessionId=`.
 * - Nothing in memory is authoritative: the record is reloaded from storage on a cold start.
 */
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";
import { toMcpError } from "../http/errorResponse.ts";
import type { Config } from "../config/readConfig.ts";
import { isRequest, isNotification, type JsonRpcMessage, type JsonRpcRequest, type RequestId } from "../jsonrpc/messages.ts";
import type { Logger } from "../log/Logger.ts";
import { atLeast } from "../protocol/logLevels.ts";
import { DEFAULT_PROTOCOL_VERSION } from "../protocol/versions.ts";
import type { McpServer, SessionHooks } from "../server/McpServer.ts";
import type { RequestContext, SessionInfo } from "../server/types.ts";
import { encodeSse } from "../sse/encodeSse.ts";
import { OutboundQueue } from "./OutboundQueue.ts";
import { DATA_PREFIX, SESSION_KEY, type SessionRecord, type TransportKind } from "./SessionRecord.ts";
import { scoped, type SessionStorage } from "./SessionStorage.ts";
import { Slots } from "./Slots.ts";
import { type CloseReason, SseStream } from "./SseStream.ts";

/** Seconds a client told 429 should wait: about the time a reading client needs to drain a full queue. */
export const RETRY_AFTER_SECONDS = 1;

export interface SessionDeps {
  server: McpServer;
  storage: SessionStorage;
  config: Config;
  logger: Logger;
  env: Readonly<Record<string, unknown>>;
  /** Asks the host to call `wakeup()` at this epoch-millisecond time (a Durable Object alarm). */
  scheduleWakeup(atMs: number): Promise<void>;
}

/** What the transport answers a POST with; replies themselves go out on the stream. */
export interface ReceiveOutcome {
  status: number;
  /** A JSON-RPC error response, as JSON text (text crosses the Durable Object RPC boundary as is). */
  body?: string;
  headers?: Record<string, string>;
}

/** Abort reasons after which no response is sent: nobody is waiting for one. */
const CANCELLED = Symbol("cancelled by the client");
const DISCONNECTED = Symbol("client disconnected");

interface InFlight {
  controller: AbortController;
  method: string;
  /** Set once the request is answered: its progress and log notifications MUST stop (progress spec). */
  settled: boolean;
}

const encoder = new TextEncoder();

export class Session {
  readonly #deps: SessionDeps;
  readonly #log: Logger;
  readonly #queue: OutboundQueue;
  readonly #slots: Slots;
  readonly #inFlight = new Map<string, InFlight>();
  readonly #hooks: SessionHooks;
  #record: SessionRecord;
  #stream: SseStream | undefined;
  #lastActivity = Date.now();
  #ended = false;

  private constructor(record: SessionRecord, deps: SessionDeps) {
    this.#record = record;
    this.#deps = deps;
    this.#log = deps.logger.child({ session: record.id });
    this.#queue = new OutboundQueue({ maxBytes: deps.config.maxQueueBytes, maxMessages: deps.config.maxQueueMessages });
    this.#slots = new Slots(deps.config.maxConcurrentHandlers);
    this.#hooks = {
      setLogLevel: async (level) => {
        this.#record = { ...this.#record, logLevel: level };
        await this.#persist();
      },
    };
  }

  /** The session stored under this host, or undefined if there is none (never created, or ended). */
  static async load(deps: SessionDeps): Promise<Session | undefined> {
    const record = await deps.storage.get<SessionRecord>(SESSION_KEY);
    return record ? new Session(record, deps) : undefined;
  }

  static async create(id: string, transport: TransportKind, deps: SessionDeps): Promise<Session> {
    const session = new Session({ id, transport, createdAt: Date.now() }, deps);
    await session.#persist();
    session.#log.info("session.open", { transport });
    return session;
  }

  get ended(): boolean {
    return this.#ended;
  }

  get record(): Readonly<SessionRecord> {
    return this.#record;
  }

  get queueStats() {
    return { ...this.#queue.stats, running: this.#slots.running, streamOpen: this.#stream !== undefined };
  }

  /** Opens the session's SSE stream; `first` (the legacy endpoint event) is its first bytes. */
  attach(first?: string): Response {
    if (this.#stream) {
      throw new McpError(409, ErrorCode.InvalidRequest, "This session already has an open stream; close it before opening another");
    }
    const stream = new SseStream(this.#queue, {
      keepaliveIntervalMs: this.#deps.config.keepaliveIntervalMs,
      first: first === undefined ? undefined : encoder.encode(first),
      onClose: (reason) => this.#onStreamClose(stream, reason),
    });
    this.#stream = stream;
    this.#touch();
    this.#log.info("stream.open");
    return new Response(stream.body, {
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache, no-transform",
        // Tells buffering reverse proxies (nginx and kin) to pass events through at once.
        "x-accel-buffering": "no",
      },
    });
  }

  /** Takes one POST's messages. Requests are answered on the stream; this says 202 or why not. */
  async receive(messages: JsonRpcMessage[]): Promise<ReceiveOutcome> {
    this.#touch();
    const requests = messages.filter(isRequest);
    if (requests.length > 0 && !this.#queue.canAdmit(requests.length)) {
      const stats = this.#queue.stats;
      this.#log.warn("queue.full", { ...stats, refused: requests.length });
      const error = new McpError(429, ErrorCode.ServerBusy, `Session queue is full (${stats.messages} messages, ${stats.bytes} bytes waiting for the client to read); retry after ${RETRY_AFTER_SECONDS}s`);
      return {
        status: 429,
        headers: { "retry-after": String(RETRY_AFTER_SECONDS) },
        body: JSON.stringify({ jsonrpc: "2.0", id: requests.length === 1 ? requests[0]!.id : null, error: error.toJsonRpc() }),
      };
    }
    for (const message of messages) {
      if (isRequest(message)) await this.#accept(message);
      else if (isNotification(message)) this.#onNotification(message.method, message.params ?? {});
      // Responses answer server-to-client requests, which this server does not send yet.
      else this.#log.warn("rpc.unexpected-response", { id: message.id });
    }
    return { status: 202 };
  }

  /** Host timer callback: ends the session once it has been idle, with no stream, past the TTL. */
  async wakeup(now = Date.now()): Promise<"alive" | "ended"> {
    if (this.#stream) return "alive";
    const due = this.#lastActivity + this.#deps.config.sessionIdleTtlMs;
    if (now < due) {
      await this.#deps.scheduleWakeup(due);
      return "alive";
    }
    await this.end("idle-expired");
    return "ended";
  }

  /** Ends the session for good: stream closed, handlers aborted, storage deleted. */
  async end(reason: string): Promise<void> {
    this.#ended = true;
    this.#stream?.close();
    this.#abortAll(DISCONNECTED);
    this.#queue.clear();
    await this.#deps.storage.deleteAll();
    this.#log.info("session.end", { reason });
  }

  async #accept(request: JsonRpcRequest): Promise<void> {
    this.#queue.reserve();
    this.#log.debug("rpc.in", { id: request.id, method: request.method });
    if (request.method === "initialize") return this.#initialize(request);
    const key = keyOf(request.id);
    if (this.#inFlight.has(key)) {
      this.#reply(request.id, { error: McpError.invalidRequest(`Request id ${JSON.stringify(request.id)} is already in use by a request in flight`).toJsonRpc() });
      return;
    }
    const entry: InFlight = { controller: new AbortController(), method: request.method, settled: false };
    this.#inFlight.set(key, entry);
    void this.#run(request, key, entry);
  }

  async #initialize(request: JsonRpcRequest): Promise<void> {
    const { result, negotiated } = this.#deps.server.initialize(request.params ?? {});
    this.#record = { ...this.#record, ...negotiated };
    await this.#persist();
    this.#log.info("session.initialized", { protocolVersion: negotiated.protocolVersion, client: negotiated.clientInfo?.name });
    this.#reply(request.id, { result });
  }

  async #run(request: JsonRpcRequest, key: string, entry: InFlight): Promise<void> {
    const { signal } = entry.controller;
    await this.#slots.acquire();
    const started = Date.now();
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      signal.throwIfAborted();
      const timeoutMs = this.#deps.config.handlerTimeoutMs;
      timer = setTimeout(() => {
        entry.controller.abort(new McpError(504, ErrorCode.RequestTimeout, `Request ${request.method} timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      const result = await untilAborted(this.#deps.server.handle(request, this.#context(request, entry), this.#hooks), signal);
      this.#reply(request.id, { result });
      this.#log.info("rpc.out", { id: request.id, method: request.method, ms: Date.now() - started });
    } catch (thrown) {
      const reason = signal.aborted ? signal.reason : thrown;
      if (reason === CANCELLED || reason === DISCONNECTED) {
        this.#queue.release();
        this.#log.info("rpc.out", { id: request.id, method: request.method, ms: Date.now() - started, aborted: String(reason.description) });
      } else {
        const error = toMcpError(reason, this.#log);
        this.#reply(request.id, { error: error.toJsonRpc() });
        this.#log.info("rpc.out", { id: request.id, method: request.method, ms: Date.now() - started, code: error.code });
      }
    } finally {
      entry.settled = true;
      clearTimeout(timer);
      this.#inFlight.delete(key);
      this.#slots.release();
    }
  }

  #context(request: JsonRpcRequest, entry: InFlight): RequestContext {
    const { signal } = entry.controller;
    const meta = request.params?._meta as { progressToken?: unknown } | undefined;
    const progressToken = meta?.progressToken;
    return {
      signal,
      requestId: request.id,
      session: this.#info(),
      env: this.#deps.env,
      storage: scoped(this.#deps.storage, DATA_PREFIX),
      progress: async (progress, total, message) => {
        if (typeof progressToken !== "string" && typeof progressToken !== "number") return;
        const params: Record<string, unknown> = { progressToken, progress };
        if (total !== undefined) params.total = total;
        if (message !== undefined) params.message = message;
        await this.#notify("notifications/progress", params, entry);
      },
      log: async (level, data, logger) => {
        const threshold = this.#record.logLevel;
        if (!threshold || !atLeast(level, threshold)) return;
        await this.#notify("notifications/message", logger === undefined ? { level, data } : { level, data, logger }, entry);
      },
    };
  }

  #info(): SessionInfo {
    const { id, protocolVersion, clientInfo, clientCapabilities } = this.#record;
    return { id, protocolVersion: protocolVersion ?? DEFAULT_PROTOCOL_VERSION, clientInfo, clientCapabilities };
  }

  #onNotification(method: string, params: Record<string, unknown>): void {
    if (method === "notifications/cancelled") {
      const id = params.requestId;
      const entry = typeof id === "string" || typeof id === "number" ? this.#inFlight.get(keyOf(id)) : undefined;
      // Per the cancellation spec, an unknown or finished request is ignored.
      entry?.controller.abort(CANCELLED);
      this.#log.info("rpc.cancelled", { id, known: entry !== undefined, reason: params.reason });
      return;
    }
    // notifications/initialized and the rest need no action; a client may never send initialized.
    this.#log.debug("rpc.notification", { method });
  }

  /** Queues a response. Its room was reserved at admission, so it is never refused. */
  #reply(id: RequestId, payload: { result: unknown } | { error: unknown }): void {
    let frame = encodeMessage({ jsonrpc: "2.0", id, ...payload });
    const limit = this.#deps.config.maxQueueBytes;
    if (frame.byteLength > limit) {
      this.#log.error("rpc.reply-too-large", { id, bytes: frame.byteLength, limit });
      const error = new McpError(500, ErrorCode.InternalError, `The response is ${frame.byteLength} bytes, over the session's limit of ${limit} bytes`);
      frame = encodeMessage({ jsonrpc: "2.0", id, error: error.toJsonRpc() });
    }
    this.#queue.push(frame);
    this.#queue.release();
  }

  /**
   * Queues a handler's notification once there is room. After its request was answered, aborted
   * or timed out, a notification would follow the reply (or nothing), so it is refused: an
   * aborted handler gets the abort reason thrown, a settled one a logged no-op.
   */
  async #notify(method: string, params: Record<string, unknown>, entry: InFlight): Promise<void> {
    const { signal } = entry.controller;
    signal.throwIfAborted();
    if (entry.settled) {
      this.#log.warn("rpc.late-notification", { method });
      return;
    }
    await this.#queue.pushWhenRoom(encodeMessage({ jsonrpc: "2.0", method, params }), signal);
  }

  #onStreamClose(stream: SseStream, reason: CloseReason): void {
    if (this.#stream !== stream) return;
    this.#stream = undefined;
    this.#touch();
    if (reason !== "server-closed") {
      // The client is gone: nobody will read what is queued or running.
      this.#abortAll(DISCONNECTED);
      this.#queue.clear();
    }
    this.#log.info("stream.closed", { reason });
    if (this.#ended) return;
    void this.#deps.scheduleWakeup(this.#lastActivity + this.#deps.config.sessionIdleTtlMs).catch((error) => {
      this.#log.error("session.schedule-failed", { message: String(error) });
    });
  }

  #abortAll(reason: symbol): void {
    for (const entry of this.#inFlight.values()) entry.controller.abort(reason);
  }

  #touch(): void {
    this.#lastActivity = Date.now();
  }

  async #persist(): Promise<void> {
    await this.#deps.storage.put(SESSION_KEY, this.#record);
  }
}

function encodeMessage(message: unknown): Uint8Array {
  return encoder.encode(encodeSse({ event: "message", data: JSON.stringify(message) }));
}

/** JSON-RPC ids 1 and "1" are different requests. */
function keyOf(id: RequestId): string {
  return `${typeof id}:${id}`;
}

/** Settles with the promise, or rejects with the signal's reason the moment it aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

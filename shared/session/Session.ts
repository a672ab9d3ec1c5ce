/**
 * One MCP session, independent of where it is hosted and of how its client connects: its
 * persisted record, its outbound budget, the requests it is running, and its idle expiry. A
 * Durable Object hosts it on Workers (`durable/SessionObject.ts`); any host that supplies
 * `SessionDeps` can. Connections are its transport's business (`shared/transport/Transport.ts`):
 * HTTP+SSE and stdio (`StreamTransport`), Streamable HTTP (`StreamableTransport`), or one of
 * yours. The session hands the transport a `TransportLink` and keeps these rules:
 *
 * - Admission: a batch whose requests would not fit in the session's budget is refused whole
 *   with 429 and Retry-After; what is accepted holds a reservation until answered, so no reply
 *   is dropped for lack of room.
 * - A client that is gone (the transport says `cancel`) ends its requests: handlers abort, the
 *   transport drops its queue. A Streamable HTTP disconnection is not a cancellation
 *   (transports spec): handlers go on and their events wait in storage for the client to resume.
 * - The record outlives its connections until the idle TTL passes; nothing in memory is authoritative.
 */
import { type Broadcaster, resourceTopic } from "../broadcast/Broadcaster.ts";
import type { Config } from "../config/readConfig.ts";
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";
import { isNotification, isRequest, type JsonRpcMessage, type JsonRpcRequest } from "../jsonrpc/messages.ts";
import type { Logger } from "../log/Logger.ts";
import { DEFAULT_PROTOCOL_VERSION } from "../protocol/versions.ts";
import type { McpServer, SessionHooks } from "../server/McpServer.ts";
import type { SessionInfo } from "../server/types.ts";
import type { Outlet, Refusal, Transport, TransportLink, TransportType } from "../transport/Transport.ts";
import { QueueBudget } from "./QueueBudget.ts";
import { DISCONNECTED, RequestRunner } from "./RequestRunner.ts";
import { DATA_PREFIX, SESSION_KEY, type SessionRecord } from "./SessionRecord.ts";
import { scoped, type SessionStorage } from "./SessionStorage.ts";

/** Seconds a client told 429 should wait: about the time a reading client needs to drain a full queue. */
export const RETRY_AFTER_SECONDS = 1;
/** Resource subscriptions one session may hold: bounds the record's size. */
export const MAX_SUBSCRIPTIONS = 1_000;

export interface SessionDeps {
  server: McpServer;
  storage: SessionStorage;
  config: Config;
  logger: Logger;
  env: Readonly<Record<string, unknown>>;
  /** Where changes for everyone go (2026-07-28 `subscriptions/listen` streams); optional. */
  broadcast?: Broadcaster;
  /** Asks the host to call `wakeup()` at this epoch-millisecond time (a Durable Object alarm). */
  scheduleWakeup(atMs: number): Promise<void>;
}

export class Session<T extends Transport = Transport> {
  readonly transport: T;
  readonly #deps: SessionDeps;
  readonly #log: Logger;
  readonly #budget: QueueBudget;
  readonly #runner: RequestRunner;
  #record: SessionRecord;
  #lastActivity = Date.now();
  #ended = false;

  private constructor(record: SessionRecord, type: TransportType<T>, deps: SessionDeps) {
    this.#record = record;
    this.#deps = deps;
    this.#log = deps.logger.child({ session: record.id });
    const { config } = deps;
    this.#budget = QueueBudget.fromConfig(config);
    const hooks: SessionHooks = {
      setLogLevel: async (level) => {
        this.#record = { ...this.#record, logLevel: level };
        await this.#persist();
      },
      subscribe: async (uri) => {
        const current = this.#record.subscriptions ?? [];
        if (current.includes(uri)) return;
        if (current.length >= MAX_SUBSCRIPTIONS) throw McpError.invalidParams(`A session may subscribe to at most ${MAX_SUBSCRIPTIONS} resources`);
        this.#record = { ...this.#record, subscriptions: [...current, uri] };
        await this.#persist();
      },
      unsubscribe: async (uri) => {
        const current = this.#record.subscriptions ?? [];
        if (!current.includes(uri)) return;
        this.#record = { ...this.#record, subscriptions: current.filter((u) => u !== uri) };
        await this.#persist();
      },
      overrides: () => this.#record.overrides ?? {},
      setOverrides: async (next) => {
        this.#record = { ...this.#record, overrides: next };
        await this.#persist();
      },
    };
    this.#runner = new RequestRunner({
      server: deps.server,
      hooks,
      config,
      log: this.#log,
      env: deps.env,
      storage: scoped(deps.storage, DATA_PREFIX),
      budget: this.#budget,
      session: () => this.#info(),
      logLevel: () => this.#record.logLevel,
      broadcast: deps.broadcast,
      resourceUpdated: async (uri, signal) => {
        const message = { jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri } };
        await deps.broadcast?.publish(resourceTopic(uri), message);
        if (!this.#record.subscriptions?.includes(uri)) return;
        await this.transport.serverOutlet().send(message, "notification", signal);
      },
    });
    this.transport = type.create(this.#link());
  }

  /**
   * The session stored under this host, or undefined if there is none (never created, or ended).
   * `types` are the transports this host serves; the stored kind picks one.
   */
  static async load(deps: SessionDeps, types: readonly TransportType[]): Promise<Session | undefined> {
    const record = await deps.storage.get<SessionRecord>(SESSION_KEY);
    if (!record) return undefined;
    const type = types.find((t) => t.kind === record.transport);
    if (!type) {
      throw new Error(`Session ${record.id} was stored with transport "${record.transport}", which this host does not serve (it serves ${types.map((t) => t.kind).join(", ")})`);
    }
    const session = new Session(record, type, deps);
    await session.transport.restore?.();
    return session;
  }

  static async create<T extends Transport>(id: string, type: TransportType<T>, deps: SessionDeps): Promise<Session<T>> {
    const session = new Session({ id, transport: type.kind, createdAt: Date.now() }, type, deps);
    await session.#persist();
    session.#log.info("session.open", { transport: type.kind });
    return session;
  }

  get ended(): boolean {
    return this.#ended;
  }

  get record(): Readonly<SessionRecord> {
    return this.#record;
  }

  get queueStats() {
    const { bytes, messages, reserved } = this.#budget;
    return { bytes, messages, reserved, running: this.#runner.running, streamOpen: this.transport.connected };
  }

  // ---- Lifetime ----

  /** Host timer callback: ends the session once it has been idle, with no stream, past the TTL. */
  async wakeup(now = Date.now()): Promise<"alive" | "ended"> {
    if (this.transport.connected) return "alive";
    const due = this.#lastActivity + this.#deps.config.sessionIdleTtlMs;
    if (now < due) {
      await this.#deps.scheduleWakeup(due);
      return "alive";
    }
    await this.end("idle-expired");
    return "ended";
  }

  /** Ends the session for good: streams closed, handlers aborted, storage deleted. */
  async end(reason: string): Promise<void> {
    this.#ended = true;
    this.transport.close();
    this.#runner.abortAll(DISCONNECTED);
    await this.#deps.storage.deleteAll();
    this.#log.info("session.end", { reason });
  }

  // ---- Internals ----

  /** What the transport sees of this session. */
  #link(): TransportLink {
    return {
      sessionId: this.#record.id,
      config: this.#deps.config,
      log: this.#log,
      budget: this.#budget,
      storage: this.#deps.storage,
      protocolVersion: () => this.#record.protocolVersion ?? DEFAULT_PROTOCOL_VERSION,
      admit: (messages) => this.#admit(messages),
      accept: (messages, replies) => this.#intake(messages, replies),
      closed: (stream, reason, cancel) => this.#closed(stream, reason, cancel),
      touch: () => this.#touch(),
    };
  }

  /** The 429 answer when a message's requests do not fit the budget, else undefined. */
  #admit(messages: JsonRpcMessage[]): Refusal | undefined {
    const requests = messages.filter(isRequest);
    if (requests.length === 0 || this.#budget.canAdmit(requests.length)) return undefined;
    const { bytes, messages: queued } = this.#budget;
    this.#log.warn("queue.full", { bytes, messages: queued, reserved: this.#budget.reserved, refused: requests.length });
    const error = new McpError(429, ErrorCode.ServerBusy, `Session queue is full (${queued} messages, ${bytes} bytes waiting for the client to read); retry after ${RETRY_AFTER_SECONDS}s`);
    return {
      status: 429,
      headers: { "retry-after": String(RETRY_AFTER_SECONDS) },
      body: { jsonrpc: "2.0", id: requests.length === 1 ? requests[0]!.id : null, error: error.toJsonRpc() },
    };
  }

  /** Starts requests (answered on `channel`), applies notifications, routes client responses. */
  async #intake(messages: JsonRpcMessage[], channel: Outlet | undefined): Promise<void> {
    for (const message of messages) {
      if (isRequest(message)) {
        this.#budget.reserve();
        if (message.method === "initialize") await this.#initialize(message, channel!);
        else this.#runner.start(message, channel!);
      } else if (isNotification(message)) {
        this.#onNotification(message.method, message.params ?? {});
      } else if (!this.#runner.clientRequests.settle(message)) {
        this.#log.warn("rpc.unexpected-response", { id: message.id });
      }
    }
  }

  async #initialize(request: JsonRpcRequest, channel: Outlet): Promise<void> {
    const { result, negotiated } = this.#deps.server.initialize(request.params ?? {});
    this.#record = { ...this.#record, ...negotiated };
    await this.#persist();
    this.#log.info("session.initialized", { protocolVersion: negotiated.protocolVersion, client: negotiated.clientInfo?.name });
    await this.#runner.reply(request.id, channel, { result });
  }

  #onNotification(method: string, params: Record<string, unknown>): void {
    if (method === "notifications/cancelled") {
      const known = this.#runner.cancel(params.requestId);
      this.#log.info("rpc.cancelled", { id: params.requestId, known, reason: params.reason });
      return;
    }
    // notifications/initialized and the rest need no action; a client may never send initialized.
    this.#log.debug("rpc.notification", { method });
  }

  #closed(stream: string, reason: string, cancel: boolean): void {
    this.#touch();
    this.#log.info("stream.closed", { stream, reason });
    if (this.#ended) return;
    // The client is gone: nobody will read what is running (the transport drops what is queued).
    if (cancel) this.#runner.abortAll(DISCONNECTED);
    if (!this.transport.connected) this.#scheduleExpiry();
  }

  #scheduleExpiry(): void {
    void this.#deps.scheduleWakeup(this.#lastActivity + this.#deps.config.sessionIdleTtlMs).catch((error) => {
      this.#log.error("session.schedule-failed", { message: String(error) });
    });
  }

  #info(): SessionInfo {
    const { id, protocolVersion, clientInfo, clientCapabilities } = this.#record;
    return { id, protocolVersion: protocolVersion ?? DEFAULT_PROTOCOL_VERSION, clientInfo, clientCapabilities };
  }

  #touch(): void {
    this.#lastActivity = Date.now();
  }

  async #persist(): Promise<void> {
    await this.#deps.storage.put(SESSION_KEY, this.#record);
  }
}

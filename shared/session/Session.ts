/**
 * One MCP session, independent of where it is hosted: its persisted record, its channels (SSE
 * streams), its outbound budget, and the requests it is running. A Durable Object hosts it on
 * Workers (`durable/SessionObject.ts`); any host that supplies `SessionDeps` can.
 *
 * Three transports share it. Legacy HTTP+SSE (`transport: "sse"`): one channel, opened by
 * `attach()`, fed by `receive()`. stdio (`"stdio"`, driven by `serveStdio`): the same, but the
 * channel is framed as newline-delimited JSON, with no keepalives. Streamable HTTP
 * (`"streamable"`): `post()` answers each POST with JSON or its own SSE stream, `listen()` opens
 * the standalone GET stream or resumes any stream after `Last-Event-ID`; every event is stored
 * before it is written (`EventStore`).
 *
 * Rules it keeps:
 * - Admission: a POST whose requests would not fit in the session's budget is refused whole with
 *   429 and Retry-After; what is accepted holds a reservation until answered, so no reply is
 *   dropped for lack of room.
 * - A legacy or stdio client that goes away ends its requests (one teardown: handlers abort,
 *   queue released, timers cleared). A Streamable HTTP disconnection is not a cancellation
 *   (transports spec): handlers go on and their events wait in storage for the client to resume.
 * - The record outlives its streams until the idle TTL passes; nothing in memory is authoritative.
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
import { Channel } from "./Channel.ts";
import { EventStore } from "./EventStore.ts";
import { QueueBudget } from "./QueueBudget.ts";
import { DISCONNECTED, RequestRunner } from "./RequestRunner.ts";
import { DATA_PREFIX, SESSION_KEY, type SessionRecord, type TransportKind } from "./SessionRecord.ts";
import { scoped, type SessionStorage } from "./SessionStorage.ts";
import type { CloseReason } from "./SseStream.ts";

/** Seconds a client told 429 should wait: about the time a reading client needs to drain a full queue. */
export const RETRY_AFTER_SECONDS = 1;
/** Largest single event kept for resumption; larger ones go out live only. Below storage's value limit. */
export const MAX_STORED_EVENT_BYTES = 1_048_576;
/** Resource subscriptions one session may hold: bounds the record's size. */
export const MAX_SUBSCRIPTIONS = 1_000;
/** Protocol revisions whose clients understand the SEP-1699 priming event. */
const PRIMING_SINCE = "2025-11-25";

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

/** What the legacy transport answers a POST with; replies themselves go out on the stream. */
export interface ReceiveOutcome {
  status: number;
  /** A JSON-RPC error response, as JSON text (text crosses the Durable Object RPC boundary as is). */
  body?: string;
  headers?: Record<string, string>;
}

export class Session {
  readonly #deps: SessionDeps;
  readonly #log: Logger;
  readonly #budget: QueueBudget;
  readonly #runner: RequestRunner;
  readonly #legacy: Channel | undefined;
  readonly #events: EventStore | undefined;
  /** Live Streamable HTTP channels by stream id: unfinished POST streams and the standalone stream. */
  readonly #channels = new Map<string, Channel>();
  /** Replies still owed on each POST channel; at zero the channel finishes. */
  readonly #owed = new Map<Channel, number>();
  #standalone: Channel | undefined;
  #record: SessionRecord;
  #lastActivity = Date.now();
  #ended = false;

  private constructor(record: SessionRecord, deps: SessionDeps) {
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
      onSettled: (channel) => this.#settled(channel),
      broadcast: deps.broadcast,
      resourceUpdated: async (uri, signal) => {
        const message = { jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri } };
        await deps.broadcast?.publish(resourceTopic(uri), message);
        if (!this.#record.subscriptions?.includes(uri)) return;
        await this.#serverChannel().send(message, "notification", signal);
      },
    });
    if (record.transport === "sse" || record.transport === "stdio") {
      const stdio = record.transport === "stdio";
      this.#legacy = new Channel({
        id: stdio ? "stdio" : "legacy",
        budget: this.#budget,
        // A pipe needs no keepalive, and stdout may carry nothing but MCP messages.
        keepaliveIntervalMs: stdio ? undefined : config.keepaliveIntervalMs,
        framing: stdio ? "ndjson" : "sse",
        log: this.#log,
        onDisconnect: (reason) => this.#legacyClosed(reason),
      });
    } else {
      this.#events = new EventStore(deps.storage, { maxEvents: config.maxStoredEvents, maxBytes: config.maxStoredBytes, maxEventBytes: MAX_STORED_EVENT_BYTES });
    }
  }

  /** The session stored under this host, or undefined if there is none (never created, or ended). */
  static async load(deps: SessionDeps): Promise<Session | undefined> {
    const record = await deps.storage.get<SessionRecord>(SESSION_KEY);
    if (!record) return undefined;
    const session = new Session(record, deps);
    await session.#events?.load();
    return session;
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
    const { bytes, messages, reserved } = this.#budget;
    return { bytes, messages, reserved, running: this.#runner.running, streamOpen: this.#anyConnected() };
  }

  // ---- Legacy HTTP+SSE (2024-11-05), and stdio ----

  /** Opens the legacy (or stdio) stream; `first` (the `endpoint` event) is its first bytes. */
  attach(first?: string): Response {
    const legacy = this.#legacy;
    if (!legacy) throw McpError.invalidRequest("This is a Streamable HTTP session; use GET /mcp", 400);
    if (legacy.connected) {
      throw new McpError(409, ErrorCode.InvalidRequest, "This session already has an open stream; close it before opening another");
    }
    this.#touch();
    this.#log.info("stream.open", { stream: legacy.id });
    return legacy.connect(first);
  }

  /** Takes one legacy POST's messages. Requests are answered on the stream; this says 202 or why not. */
  async receive(messages: JsonRpcMessage[]): Promise<ReceiveOutcome> {
    const legacy = this.#legacy;
    if (!legacy) throw McpError.invalidRequest("This is a Streamable HTTP session; use POST /mcp", 400);
    this.#touch();
    const refused = this.#admit(messages);
    if (refused) return { status: refused.status, headers: refused.headers, body: JSON.stringify(refused.body) };
    await this.#intake(messages, legacy);
    return { status: 202 };
  }

  // ---- Streamable HTTP (2025-03-26 … 2025-11-25) ----

  /**
   * Answers one POST: 202 for notifications and responses only; otherwise the requests' replies,
   * as one JSON object when the single request produces nothing but its reply, else as an SSE
   * stream carrying its notifications, server requests and replies.
   */
  async post(messages: JsonRpcMessage[], headers: Record<string, string> = {}): Promise<Response> {
    if (!this.#events) throw McpError.invalidRequest("This is a legacy HTTP+SSE session; use POST /message", 400);
    this.#touch();
    const refused = this.#admit(messages);
    if (refused) return Response.json(refused.body, { status: refused.status, headers: refused.headers });
    const requests = messages.filter(isRequest).length;
    if (requests === 0) {
      await this.#intake(messages, undefined);
      return new Response(null, { status: 202 });
    }
    const channel = this.#newChannel();
    this.#owed.set(channel, requests);
    const response = channel.respond(requests === 1 && messages.length === 1, headers);
    await this.#intake(messages, channel);
    return response;
  }

  /**
   * `GET /mcp`. With `Last-Event-ID`, resumes the stream that id belongs to: replays its stored
   * events after that id, then continues live if the stream is unfinished. Without, opens the
   * standalone stream for server-initiated messages (one at a time).
   */
  async listen(lastEventId: string | null): Promise<Response> {
    if (!this.#events) throw McpError.invalidRequest("This is a legacy HTTP+SSE session; use GET /sse", 400);
    this.#touch();
    if (lastEventId !== null) return this.#resume(lastEventId);
    if (this.#standalone?.connected) {
      throw new McpError(409, ErrorCode.InvalidRequest, "This session already has an open GET stream; resume it with Last-Event-ID or close it first");
    }
    const standalone = this.#serverChannel();
    this.#log.info("stream.open", { stream: standalone.id, standalone: true });
    return standalone.connect();
  }

  // ---- Lifetime ----

  /** Host timer callback: ends the session once it has been idle, with no stream, past the TTL. */
  async wakeup(now = Date.now()): Promise<"alive" | "ended"> {
    if (this.#anyConnected()) return "alive";
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
    this.#legacy?.close();
    for (const channel of this.#channels.values()) channel.close();
    this.#runner.abortAll(DISCONNECTED);
    this.#legacy?.discard();
    await this.#deps.storage.deleteAll();
    this.#log.info("session.end", { reason });
  }

  // ---- Internals ----

  /** The 429 answer when a message's requests do not fit the budget, else undefined. */
  #admit(messages: JsonRpcMessage[]): { status: number; headers: Record<string, string>; body: object } | undefined {
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
  async #intake(messages: JsonRpcMessage[], channel: Channel | undefined): Promise<void> {
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

  async #initialize(request: JsonRpcRequest, channel: Channel): Promise<void> {
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

  async #resume(lastEventId: string): Promise<Response> {
    const match = /^([0-9a-f]{12})\.(\d{1,10})$/.exec(lastEventId);
    if (!match) throw McpError.invalidRequest(`Malformed Last-Event-ID ${JSON.stringify(lastEventId)}: expected an event id this session sent`);
    const [, streamId, seq] = match as unknown as [string, string, string];
    let channel = this.#channels.get(streamId);
    if (!channel && this.#events!.has(streamId)) {
      // A finished stream whose events are still stored: replay them, then end the response.
      channel = this.#newChannel(streamId, false);
      channel.finish();
    }
    if (!channel) {
      throw new McpError(404, ErrorCode.InvalidRequest, `Last-Event-ID ${JSON.stringify(lastEventId)} belongs to no stream of this session (or its events have expired)`);
    }
    this.#log.info("stream.resume", { stream: streamId, after: Number(seq) });
    return channel.resume(Number(seq));
  }

  /** Where messages that answer no request go: the legacy stream, or the standalone GET stream. */
  #serverChannel(): Channel {
    if (this.#legacy) return this.#legacy;
    return (this.#standalone ??= this.#newChannel());
  }

  #newChannel(id = newStreamId(), live = true): Channel {
    const version = this.#record.protocolVersion ?? DEFAULT_PROTOCOL_VERSION;
    const channel = new Channel({
      id,
      budget: this.#budget,
      keepaliveIntervalMs: this.#deps.config.keepaliveIntervalMs,
      log: this.#log,
      events: this.#events,
      primingRetryMs: version >= PRIMING_SINCE ? this.#deps.config.sseRetryMs : undefined,
      onDisconnect: (reason) => this.#streamClosed(channel, reason),
    });
    if (live) this.#channels.set(id, channel);
    return channel;
  }

  /** A reply went out (or was skipped) on `channel`: a POST stream with nothing more owed finishes. */
  #settled(channel: Channel): void {
    const owed = this.#owed.get(channel);
    if (owed === undefined) return;
    if (owed > 1) {
      this.#owed.set(channel, owed - 1);
      return;
    }
    this.#owed.delete(channel);
    this.#channels.delete(channel.id);
    channel.finish();
  }

  #legacyClosed(reason: CloseReason): void {
    this.#touch();
    this.#log.info("stream.closed", { stream: this.#legacy!.id, reason });
    if (this.#ended) return;
    if (reason !== "server-closed") {
      // The legacy client is gone: nobody will read what is queued or running.
      this.#runner.abortAll(DISCONNECTED);
      this.#legacy!.discard();
    }
    this.#scheduleExpiry();
  }

  #streamClosed(channel: Channel, reason: CloseReason): void {
    this.#touch();
    this.#log.info("stream.closed", { stream: channel.id, reason });
    if (!this.#ended && !this.#anyConnected()) this.#scheduleExpiry();
  }

  #scheduleExpiry(): void {
    void this.#deps.scheduleWakeup(this.#lastActivity + this.#deps.config.sessionIdleTtlMs).catch((error) => {
      this.#log.error("session.schedule-failed", { message: String(error) });
    });
  }

  #anyConnected(): boolean {
    if (this.#legacy?.connected) return true;
    for (const channel of this.#channels.values()) if (channel.connected) return true;
    return false;
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

/** 48 random bits: unique among one session's streams, and short in every event id. */
function newStreamId(): string {
  let hex = "";
  for (const byte of crypto.getRandomValues(new Uint8Array(6))) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

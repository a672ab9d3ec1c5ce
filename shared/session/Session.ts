/**
 * One MCP session, independent of where it is hosted and of how its client connects: its
 * persisted record, its outbound budget, the requests it is running, and its idle expiry. A
 * Durable Object hosts it on Workers, `LocalSessions` in one process; connections are its
 * transport's business (`Transport.ts`). The session keeps these rules:
 *
 * - Admission: a batch whose requests would not fit in the session's budget is refused whole
 *   with 429 and Retry-After; what is accepted holds a reservation until answered, so no reply
 *   is dropped for lack of room.
 * - Requests run through the execution core (`runExchange`, via `Exchanges`: ids, cancellation,
 *   at most MAX_CONCURRENT_HANDLERS at once) with the session's scope: its storage, its client as
 *   `initialize` declared it, requests to the client answered by `ClientRequests`.
 * - A client that is gone (the transport says `cancel`) ends its requests: handlers abort, the
 *   transport drops its queue. A Streamable HTTP disconnection is not a cancellation
 *   (transports spec): handlers go on and their events wait in storage for the client to resume.
 * - Expiry is stored, not kept in memory: the record holds its deadline (`expiresAt`), armed as
 *   the host's wakeup when the session is created. Activity pushes it to now + 1.5 × TTL once
 *   less than one TTL is left, so a session ends between TTL and 1.5 × TTL after its last
 *   activity, and a busy one rewrites its record at most once per half TTL. A wakeup (or a load)
 *   after the deadline ends the session, unless a client is connected or a request is running,
 *   which count as activity. An evicted or restarted host therefore expires on time.
 * - Ending (expiry, DELETE) wipes the storage: every key, the stored events, the alarm; writes
 *   are refused from then on (`SessionStorage`), so a handler still running leaves nothing.
 * - The record is changed by one update at a time, stored first and then adopted, so a refused
 *   write (a record over its size limit) leaves memory and storage alike.
 */
import { ANONYMOUS } from "../shares/clientKey.ts";
import type { Principal } from "../auth/Principal.ts";
import { resourceTopic } from "../broadcast/Broadcaster.ts";
import type { Announcement, ResourceFollows } from "./ResourceFollows.ts";
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";
import type { Scope } from "../exchange/Exchange.ts";
import { DISCONNECTED, Exchanges } from "../exchange/Exchanges.ts";
import { isNotification, isRequest, type JsonRpcMessage, type JsonRpcRequest, notification, request, type RequestId } from "../jsonrpc/messages.ts";
import type { Logger } from "../log/Logger.ts";
import { logId } from "../log/logId.ts";
import { QueueBudget } from "../outbound/QueueBudget.ts";
import { describeMissing, requiredCapability } from "../protocol/requiredCapability.ts";
import { DEFAULT_PROTOCOL_VERSION } from "../protocol/versions.ts";
import { LIST_CHANGED_METHOD, type ListKind, switchedState, switchOverrides } from "../definition/ListKind.ts";
import type { Method } from "../definition/Method.ts";
import { type KeyValueStore, scoped } from "../storage/KeyValueStore.ts";
import { SessionStorage } from "../storage/SessionStorage.ts";
import { runInHome } from "../home/runInHome.ts";
import { ClientRequests } from "./ClientRequests.ts";
import { sessionMethods } from "./sessionMethods.ts";
import { checkRecordSize, DATA_PREFIX, SESSION_KEY, type SessionRecord } from "./SessionRecord.ts";
import type { Refusal, ReplyChannel, Transport, TransportLink, TransportType } from "./Transport.ts";
import { type HopTrace, type Network, OVER_HTTP, type RequestOrigin } from "../telemetry/Telemetry.ts";
import type { Runtime } from "../runtime/Runtime.ts";

/** Seconds a client told 429 should wait: about the time a reading client needs to drain a full queue. */
export const RETRY_AFTER_SECONDS = 1;
/** How far past one TTL a pushed deadline goes (see the module header): fewer writes, at most this much longer life. */
const DEADLINE_SLACK = 0.5;

/**
 * The runtime's members a session uses (`shares`: taken by the host at creation, renewed and given
 * back here; `broadcast`: optional, where a host's sessions fan out no changes), and the host's
 * own facts.
 */
export interface SessionDeps extends Pick<Runtime, "server" | "config" | "logger" | "env" | "homes" | "shares" | "telemetry">, Partial<Pick<Runtime, "broadcast">> {
  storage: KeyValueStore;
  /** How requests arrive, for their spans; default `OVER_HTTP`. */
  network?: Network;
  /** Asks the host to call `wakeup()` at this epoch-millisecond time (a Durable Object alarm). */
  scheduleWakeup(atMs: number): Promise<void>;
  /**
   * Whether a relay still carries one of this session's streams to its client, though no
   * transport connection is in memory yet (a hibernated Durable Object's sockets, before they are
   * reattached): a client connected that way keeps the session alive like any other.
   */
  relaying?(): boolean;
  /** Where offered (a host in a process), its subscriptions follow changes announced by others (`ResourceFollows`); else it hears its own only. */
  follows?: typeof ResourceFollows;
}

export class Session<T extends Transport = Transport> {
  readonly transport: T;
  /** The requests in flight: shared with 2026-07-28 requests on the same connection (`serveMessages`). */
  readonly exchanges: Exchanges;
  readonly #deps: SessionDeps;
  readonly #storage: SessionStorage;
  readonly #log: Logger;
  /** The session's `logId`: its log lines' and spans' name for it. */
  readonly #tag: string;
  readonly #budget: QueueBudget;
  readonly #clientRequests: ClientRequests;
  readonly #methods: Record<string, Method>;
  readonly #scope: Scope;
  readonly #follows: ResourceFollows | undefined;
  #record: SessionRecord;
  /** The last record update, so the next applies its patch to the result (one at a time). */
  #updating: Promise<unknown> = Promise.resolve();
  #ended = false;

  private constructor(record: SessionRecord, type: TransportType<T>, deps: SessionDeps) {
    this.#record = record;
    this.#deps = deps;
    this.#storage = new SessionStorage(deps.storage);
    this.#tag = logId(record.id);
    this.#log = deps.logger.child({ session: this.#tag });
    this.#budget = QueueBudget.fromConfig(deps.config);
    this.exchanges = new Exchanges(deps.config.maxConcurrentHandlers);
    this.#clientRequests = new ClientRequests(deps.config.handlerTimeoutMs);
    const session = this;
    this.#methods = sessionMethods({
      server: deps.server,
      log: this.#log,
      get record() {
        return session.#record;
      },
      update: (patch) => this.#update(patch),
    });
    this.#scope = this.#sessionScope();
    this.transport = type.create(this.#link());
    this.#follows = deps.follows && new deps.follows(deps.broadcast, record.id, (json) => this.transport.notify(json), this.#log);
  }

  /**
   * The session stored under this host, or undefined if there is none (never created, or ended).
   * `types` are the transports this host serves; the stored kind picks one.
   */
  static async load(deps: SessionDeps, types: readonly TransportType[], now = Date.now()): Promise<Session | undefined> {
    const record = await deps.storage.get<SessionRecord>(SESSION_KEY);
    if (!record) return undefined;
    const type = types.find((t) => t.kind === record.transport);
    if (!type) {
      throw new Error(`Session ${record.id} was stored with transport "${record.transport}", which this host does not serve (it serves ${types.map((t) => t.kind).join(", ")})`);
    }
    const session = new Session(record, type, deps);
    await session.transport.restore?.();
    session.#follows?.sync(record.subscriptions ?? []);
    if (record.expiresAt === undefined) {
      // Stored before deadlines were: it gets one now, and its wakeup.
      await session.#touch(now);
      await deps.scheduleWakeup(session.expiresAt);
    } else if (session.#idle(now)) {
      // Its host missed the wakeup (evicted, restarted): it ends now, not on first use.
      await session.end("idle-expired");
      return undefined;
    }
    return session;
  }

  /** `owner`: the digest of the principal it is bound to (see `SessionRecord.owner`); `shareKey`: whose fair share it holds. */
  static async create<T extends Transport>(id: string, type: TransportType<T>, deps: SessionDeps, owner?: string, shareKey?: string): Promise<Session<T>> {
    const now = Date.now();
    const record: SessionRecord = { id, transport: type.kind, createdAt: now, expiresAt: pushedDeadline(now, deps.config.sessionIdleTtlMs) };
    if (owner !== undefined) record.owner = owner;
    if (shareKey !== undefined) record.shareKey = shareKey;
    const session = new Session(record, type, deps);
    await session.#storage.put(SESSION_KEY, session.#record);
    await deps.scheduleWakeup(session.#record.expiresAt!);
    session.#log.info("session.open", { transport: type.kind });
    return session;
  }

  get ended(): boolean {
    return this.#ended;
  }

  get record(): Readonly<SessionRecord> {
    return this.#record;
  }

  /** The session's outbound budget, which every queue of its connection counts against. */
  get budget(): QueueBudget {
    return this.#budget;
  }

  get queueStats() {
    const { bytes, messages, reserved } = this.#budget;
    return { bytes, messages, reserved, running: this.exchanges.running, streamOpen: this.transport.connected };
  }

  // ---- Lifetime ----

  /** The stored deadline; the session ends at the first wakeup after it with nothing connected or running. */
  get expiresAt(): number {
    return this.#record.expiresAt ?? 0;
  }

  /**
   * The host's wakeup (an alarm, a timer), or a load: ends the session if it is idle past its
   * deadline; otherwise arms the next wakeup at the deadline (pushed first if a client is still
   * connected or a request still running). Harmless to call twice, or after the session ended.
   */
  async wakeup(now = Date.now()): Promise<"alive" | "ended"> {
    if (this.#ended) return "ended";
    if (this.#idle(now)) {
      await this.end("idle-expired");
      return "ended";
    }
    // A client still connected, or a request still running, is activity.
    if (this.#connected() || this.exchanges.size > 0) await this.#touch(now);
    await this.#deps.scheduleWakeup(this.expiresAt);
    return "alive";
  }

  /** Past its deadline with no client connected and no request running. */
  #idle(now: number): boolean {
    return now >= this.expiresAt && !this.#connected() && this.exchanges.size === 0;
  }

  #connected(): boolean {
    return this.transport.connected || this.#deps.relaying?.() === true;
  }

  /** Ends the session for good: streams closed, handlers aborted, every key and the wakeup deleted. Idempotent. */
  async end(reason: string): Promise<void> {
    const first = !this.#ended;
    this.#ended = true;
    this.#follows?.close();
    this.transport.close();
    this.exchanges.abortAll(DISCONNECTED);
    await this.#storage.wipe();
    if (!first) return;
    this.#log.info("session.end", { reason });
    const { shareKey, id } = this.#record;
    // Its client's share frees now, at its deadline too: the share, renewed to that deadline, no
    // longer counts, but a store keeps its row until it is given back or swept.
    if (shareKey !== undefined) {
      await this.#deps.shares?.release("session", shareKey, id).catch((error) => this.#log.warn("share.release-failed", { message: String(error) }));
    }
  }

  // ---- Internals ----

  /** What the transport sees of this session. */
  #link(): TransportLink {
    return {
      sessionId: this.#record.id,
      config: this.#deps.config,
      log: this.#log,
      budget: this.#budget,
      storage: this.#storage,
      protocolVersion: () => this.#record.protocolVersion ?? DEFAULT_PROTOCOL_VERSION,
      admit: (requests, size) => this.admit(requests, size),
      accept: (messages, replies, size, auth, trace) => this.#accept(messages, replies, size, auth, trace),
      closed: (stream, reason, cancel) => this.#closed(stream, reason, cancel),
      touch: () => this.#touch(),
    };
  }

  /** What a request's handler has in this session. */
  #sessionScope(): Scope {
    const deps = this.#deps;
    const session = this;
    return {
      env: deps.env,
      get client() {
        const { protocolVersion, clientInfo, clientCapabilities } = session.#record;
        return { protocolVersion: protocolVersion ?? DEFAULT_PROTOCOL_VERSION, info: clientInfo, capabilities: clientCapabilities ?? {} };
      },
      session: {
        id: this.#record.id,
        storage: scoped(this.#storage, DATA_PREFIX),
        isEnabled: (kind, id) => switchedState(kind, id, deps.server.declared(kind, id), this.#record.overrides ?? {}),
        setEnabled: (kind, id, enabled) => this.#setEnabled(kind, id, enabled),
      },
      logLevel: () => this.#record.logLevel,
      ask: async (method, params, _key, signal, send) => {
        // A session's request to the client has its own JSON-RPC id; `_key` names 2026-07-28 input rounds only.
        const missing = requiredCapability(method, params, this.#record.clientCapabilities);
        if (missing) throw new Error(describeMissing(method, missing));
        const { id, result } = this.#clientRequests.open(method, signal);
        // If sending fails, the same abort also rejects `result`; observe it so it is not reported unhandled.
        result.catch(() => {});
        await send(request(id, method, params));
        return result;
      },
      resourceUpdated: async (uri, signal) => {
        const message = notification("notifications/resources/updated", { uri });
        // Named as this session's, so its own follow skips it: it hears it at once, below.
        await deps.broadcast?.publish(resourceTopic(uri), { ...message, origin: this.#record.id } satisfies Announcement);
        if (this.#record.subscriptions?.includes(uri)) await this.transport.notify(JSON.stringify(message), signal);
      },
      listChanged: async (feature) => {
        await deps.broadcast?.publish(feature, notification(LIST_CHANGED_METHOD[feature]));
      },
    };
  }

  /**
   * The 429 answer when a message's requests do not fit the budget, else undefined. Transports ask
   * through their link; a connection that also carries 2026-07-28 requests asks here (`serveMessages`).
   */
  admit(requests: readonly RequestId[], size: number): Refusal | undefined {
    if (requests.length === 0 || this.#budget.canAdmit(requests.length, size)) return undefined;
    const { bytes, messages: queued, reserved, reservedBytes } = this.#budget;
    this.#log.warn("queue.full", { bytes, messages: queued, reserved, reservedBytes, refused: requests.length });
    const error = new McpError(
      429,
      ErrorCode.ServerBusy,
      `Session queue is full (${queued} messages, ${bytes} bytes waiting for the client to read; ${reserved} requests, ${reservedBytes} bytes in flight); retry after ${RETRY_AFTER_SECONDS}s`,
      undefined,
      { "retry-after": String(RETRY_AFTER_SECONDS) },
    );
    return { error, id: requests.length === 1 ? requests[0]! : null };
  }

  /** Starts requests (answered through `replies`), applies notifications, routes client responses. */
  async #accept(messages: JsonRpcMessage[], replies: ReplyChannel | undefined, size: number, auth: Principal | undefined, trace?: HopTrace): Promise<void> {
    // Each request of a batch holds an equal share of its size until it is answered.
    const share = Math.ceil(size / Math.max(1, messages.filter(isRequest).length));
    for (const message of messages) {
      if (isRequest(message)) {
        const started = this.#start(message, replies!, share, auth, trace);
        // What initialize negotiates applies to the rest of its batch (2024-11-05 clients may batch).
        if (message.method === "initialize") await started;
      } else if (isNotification(message)) {
        this.#onNotification(message.method, message.params ?? {});
      } else if (!this.#clientRequests.settle(message)) {
        this.#log.warn("rpc.unexpected-response", { id: message.id });
      }
    }
  }

  #start(message: JsonRpcRequest, replies: ReplyChannel, size: number, auth: Principal | undefined, trace: HopTrace | undefined): Promise<void> {
    // Its fields are gathered only where the line is written: most deployments log above debug.
    if (this.#log.enabled("debug")) this.#log.debug("rpc.in", { id: message.id, method: message.method });
    const { config, server, telemetry } = this.#deps;
    return this.exchanges.start({
      request: message,
      auth,
      run: (ctx) => {
        const params = message.params ?? {};
        if (Object.hasOwn(this.#methods, message.method)) return this.#methods[message.method]!(params, ctx);
        const method = server.method(message.method);
        if (!method) throw McpError.methodNotFound(message.method);
        return runInHome(server, message.method, params, ctx, method, { homes: this.#deps.homes, owner: this.#record.owner, client: async () => this.#record.shareKey ?? this.#record.owner ?? ANONYMOUS });
      },
      scope: this.#scope,
      outlet: replies.outlet(this.#budget.reserve(size)),
      timeoutMs: config.handlerTimeoutMs,
      maxReplyBytes: config.maxQueueBytes,
      log: this.#log,
      onError: server.onError,
      trace: telemetry && { telemetry, origin: this.#origin(trace) },
    });
  }

  /** Where this session's requests arrive, for their spans: under the hop's span where one carried them (a Worker's). */
  #origin(trace: HopTrace | undefined): RequestOrigin {
    return {
      ...(this.#deps.network ?? OVER_HTTP),
      protocolVersion: this.#record.protocolVersion ?? DEFAULT_PROTOCOL_VERSION,
      sessionTag: this.#tag,
      parent: trace?.parent,
      link: trace?.link,
    };
  }

  #onNotification(method: string, params: Record<string, unknown>): void {
    if (method === "notifications/cancelled") {
      const known = this.exchanges.cancel(params.requestId);
      this.#log.info("rpc.cancelled", { id: params.requestId, known, reason: params.reason });
      return;
    }
    // notifications/initialized and the rest need no action; a client may never send initialized.
    this.#log.debug("rpc.notification", { method });
  }

  /** `ctx.session.setEnabled`: resolves with whether the definition's state changed (a list_changed is then due). */
  async #setEnabled(kind: ListKind, id: string, enabled: boolean): Promise<boolean> {
    const next = switchOverrides(this.#record.overrides ?? {}, kind, id, enabled, this.#deps.server.declared(kind, id));
    if (!next) return false;
    await this.#update({ overrides: next });
    return true;
  }

  #closed(stream: string, reason: string, cancel: boolean): void {
    this.#log.info("stream.closed", { stream, reason });
    if (this.#ended) return;
    // The client is gone: nobody will read what is running (the transport drops what is queued).
    if (cancel) this.exchanges.abortAll(DISCONNECTED);
    // A stream open until now was activity: the deadline counts from here.
    this.#touch().catch((error) => this.#log.error("session.touch-failed", { message: String(error) }));
  }

  /** The client showed up: pushes the stored deadline when less than one TTL of it is left, and its client's share with it. */
  async #touch(now = Date.now()): Promise<void> {
    const ttl = this.#deps.config.sessionIdleTtlMs;
    if (this.#ended || this.expiresAt - now >= ttl) return;
    const expiresAt = pushedDeadline(now, ttl);
    await this.#update({ expiresAt });
    const { shareKey, id } = this.#record;
    if (shareKey !== undefined) await this.#deps.shares?.acquire("session", shareKey, id, { until: expiresAt });
  }

  /** Changes the record: stored first, then adopted, one update at a time (see the module header). */
  #update(patch: Partial<SessionRecord>): Promise<void> {
    const next = this.#updating.then(async () => {
      const record = { ...this.#record, ...patch };
      checkRecordSize(record);
      await this.#storage.put(SESSION_KEY, record);
      this.#record = record;
      if (patch.subscriptions && !this.#ended) this.#follows?.sync(patch.subscriptions);
    });
    this.#updating = next.catch(() => {});
    return next;
  }
}

/** A deadline pushed by activity at `now`, or a new session's (see the module header). */
export function pushedDeadline(now: number, ttlMs: number): number {
  return now + ttlMs + Math.floor(ttlMs * DEADLINE_SLACK);
}

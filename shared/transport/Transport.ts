/**
 * The transport interface: how one session meets its client. The split of work:
 *
 * - The session (`shared/session/Session.ts`) knows MCP: the record, admission against the queue
 *   budget, the requests it runs, notifications, the idle expiry. It knows nothing of HTTP,
 *   pipes or sockets.
 * - A transport knows connections: which `Outlet` a request's reply, progress and server
 *   requests go to, where messages that answer no request go, and what a lost connection means.
 *
 * They talk through two small interfaces, the equivalent of the usual start/send/close and
 * onmessage/onclose pair: the session calls the transport's `serverOutlet()` and `close()`, and
 * an `Outlet.send()` per message; the transport calls `link.admit()` + `link.accept()` for each
 * batch of incoming messages and `link.closed()` when a connection ends. A transport is built by
 * the session from a `TransportType`, because the session owns the link and the transport's
 * lifetime; the type's `kind` is stored in the session record, so a session reloaded after a
 * Durable Object eviction or a Deno restart is given the same transport again.
 *
 * Built in: `SseTransport` (2024-11-05 HTTP+SSE), `StreamableTransport` (2025-03-26 … 2025-11-25
 * Streamable HTTP) and `MessageTransport` (any duplex stream of whole messages: stdio, and the
 * WebSocket example in the README). The 2026-07-28 stateless era has no session and so no
 * transport: each request is its own exchange (`shared/stateless/`).
 *
 * Most new transports need none of this: anything that carries whole JSON-RPC messages both ways
 * (a WebSocket, a TCP socket with a framing, a worker port) is a `MessageStream` handed to
 * `serveMessages`. Implement `Transport` when a client's messages travel over several
 * connections (as HTTP does), and so need routing.
 */
import type { Config } from "../config/readConfig.ts";
import type { JsonRpcMessage } from "../jsonrpc/messages.ts";
import type { Logger } from "../log/Logger.ts";
import type { QueueBudget } from "../session/QueueBudget.ts";
import type { SessionStorage } from "../session/SessionStorage.ts";

/** What a message is to the budget: replies had room reserved at admission, notifications wait for room. */
export type SendKind = "reply" | "notification";

/** Where a session writes messages to its client: one stream, or the pieces of one. */
export interface Outlet {
  /**
   * Sends one JSON-RPC message. A reply is queued at once (its room was reserved); a
   * notification or server request waits for room in the session's budget, giving up when
   * `signal` aborts. `onQueued` runs in the synchronous step that queues a reply (or decides it
   * needs none), so the caller can hand its reservation over with nothing counted twice. `status`
   * is the HTTP status of a reply that becomes a whole JSON response; elsewhere it means nothing.
   */
  send(message: object, kind: SendKind, signal?: AbortSignal, onQueued?: () => void, status?: number): Promise<void>;
  /** A request answered on this outlet is done (its reply sent, or dropped after a cancellation). */
  settled(): void;
  /** SEP-1699 polling: end the current connection but not the stream. A no-op where that means nothing. */
  disconnect(): void;
}

/** The 429 a batch gets when its requests do not fit the session's budget. */
export interface Refusal {
  status: number;
  headers: Record<string, string>;
  /** A JSON-RPC error response naming the request (or id null for several). */
  body: object;
}

/** The session's side, as a transport sees it. */
export interface TransportLink {
  readonly sessionId: string;
  readonly config: Config;
  readonly log: Logger;
  /** The session's outbound budget: every outlet's queue counts against it. */
  readonly budget: QueueBudget;
  /** The session's storage (a transport may keep events here for resumption). */
  readonly storage: SessionStorage;
  /** The negotiated revision, or the default before `initialize`. */
  protocolVersion(): string;
  /** The refusal for a batch whose requests do not fit the budget; undefined when they do. Ask before `accept`. */
  admit(messages: JsonRpcMessage[]): Refusal | undefined;
  /** Takes admitted messages: requests start and are answered on `replies`; notifications and client responses apply. */
  accept(messages: JsonRpcMessage[], replies: Outlet | undefined): Promise<void>;
  /**
   * A connection ended. With `cancel`, the client is gone and so are its requests (HTTP+SSE,
   * stdio); without, requests go on and their messages wait for a resumption (Streamable HTTP).
   */
  closed(stream: string, reason: string, cancel: boolean): void;
  /** The client showed up: the idle expiry counts from now. */
  touch(): void;
}

export interface Transport {
  /** Where messages that answer no request go: list changes, resource updates, log lines of no request. */
  serverOutlet(): Outlet;
  /** True while a client connection is open; an open connection keeps the session from idle expiry. */
  readonly connected: boolean;
  /** Restores what the transport keeps in storage, once, when its session is reloaded. */
  restore?(): Promise<void>;
  /** The session ended: every connection closes now and queued messages are dropped. */
  close(): void;
}

/** How a session builds its transport. `kind` is stored with the session (see the module header). */
export interface TransportType<T extends Transport = Transport> {
  readonly kind: string;
  create(link: TransportLink): T;
}

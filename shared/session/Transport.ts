/**
 * The transport interface: how one session meets its client. The split of work:
 *
 * - The session (`Session.ts`) knows MCP: the record, admission against the queue budget, the
 *   requests it runs, the idle expiry. It knows nothing of HTTP, pipes or sockets.
 * - A transport knows connections: which outlet a request's reply and messages go to, where
 *   messages that answer no request go, and what a lost connection means.
 *
 * They talk through two small interfaces, the equivalent of the usual start/send/close and
 * onmessage/onclose pair: the transport calls `link.admit()` + `link.accept()` for each batch of
 * incoming messages and `link.closed()` when a connection ends; the session calls the
 * transport's `notify()` and `close()`, and each request's `Outlet`. The session builds its
 * transport from a `TransportType` because it owns the link and the transport's lifetime; the
 * type's `kind` is stored in the session record, so a session reloaded after a Durable Object
 * eviction or a Deno restart is given the same transport again.
 *
 * Built in (`shared/transport/`): `SingleStreamTransport.sse` (2024-11-05 HTTP+SSE),
 * `SingleStreamTransport.messages(kind)` (any duplex stream of whole messages: stdio, a WebSocket),
 * `StreamableHttpTransport` (2025-03-26 … 2025-11-25 Streamable HTTP). The 2026-07-28 stateless era
 * has no session and so no transport: each request is its own exchange (`shared/stateless/`).
 *
 * Names kept to one meaning each: "legacy" is only 2024-11-05 HTTP+SSE (`/sse`, `/message`);
 * "listen" is only 2026-07-28 `subscriptions/listen`; `GET /mcp` "opens a stream" (operation
 * `stream`, `StreamableHttpTransport.openStream`). The two eras on `/mcp` are named for how each
 * is served: `session` (2025-03-26 … 2025-11-25) and `stateless` (2026-07-28).
 *
 * Most new transports need none of this: anything that carries whole JSON-RPC messages both ways
 * is a `MessageStream` handed to `serveMessages`. Implement `Transport` when a client's messages
 * travel over several connections (as HTTP does), and so need routing.
 */
import type { Principal } from "../auth/Principal.ts";
import type { Config } from "../config/readConfig.ts";
import type { McpError } from "../errors/McpError.ts";
import type { Outlet } from "../exchange/Exchange.ts";
import type { JsonRpcMessage, RequestId } from "../jsonrpc/messages.ts";
import type { Logger } from "../log/Logger.ts";
import type { QueueBudget, Reservation } from "../outbound/QueueBudget.ts";
import type { KeyValueStore } from "../storage/KeyValueStore.ts";
import type { HopTrace } from "../telemetry/Telemetry.ts";

/** Where one batch's requests are answered: an outlet per request, holding its reservation. */
export interface ReplyChannel {
  outlet(reservation: Reservation): Outlet;
}

/** A batch whose requests do not fit the session's budget: 429 on HTTP, a JSON-RPC error on a stream. */
export interface Refusal {
  error: McpError;
  /** The one request's id, or null for a batch of several. */
  id: RequestId | null;
}

/** The session's side, as a transport sees it. */
export interface TransportLink {
  readonly sessionId: string;
  readonly config: Config;
  readonly log: Logger;
  /** The session's outbound budget: every queue of the transport counts against it. */
  readonly budget: QueueBudget;
  /** The session's storage (a transport may keep events here for resumption). */
  readonly storage: KeyValueStore;
  /** The negotiated revision, or the default before `initialize`. */
  protocolVersion(): string;
  /**
   * The refusal for a batch whose requests (`requests`: their ids, `requestIds`) do not fit the
   * budget; undefined when they do. Ask before `accept`. `size` is the batch's text length,
   * reserved while its requests are in flight.
   */
  admit(requests: readonly RequestId[], size: number): Refusal | undefined;
  /**
   * Takes admitted messages: requests start and are answered through `replies`; notifications and
   * client responses apply. `auth` is the principal the messages' own request established (their
   * handlers' `ctx.auth`), undefined where tokens are not checked.
   */
  accept(messages: JsonRpcMessage[], replies: ReplyChannel | undefined, size: number, auth?: Principal, trace?: HopTrace): Promise<void>;
  /**
   * A connection ended. With `cancel`, the client is gone and so are its requests (HTTP+SSE,
   * stdio); without, requests go on and their messages wait for a resumption (Streamable HTTP).
   */
  closed(stream: string, reason: string, cancel: boolean): void;
  /** The client showed up: the idle expiry counts from now (storing the deadline when it must move). */
  touch(): Promise<void>;
}

export interface Transport {
  /**
   * A message that answers no request (a list change, a resource update): queued once the budget
   * has room, giving up when `signal` aborts; without a signal, queued at once.
   */
  notify(json: string, signal?: AbortSignal): Promise<void>;
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

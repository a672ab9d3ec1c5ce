/**
 * A transport with one outgoing stream that carries everything: every reply, notification and
 * server request. Two built-in kinds:
 * - `StreamTransport.sse`: 2024-11-05 HTTP+SSE. The stream is `GET /sse` (SSE `message` events,
 *   keepalive comments); the client's messages arrive by `POST /message` (202, or 429 when the
 *   budget is full).
 * - `StreamTransport.messages(kind)`: any duplex stream of whole messages, driven by
 *   `serveMessages` (stdio, a WebSocket): each chunk of the stream is one JSON text, no keepalives.
 *
 * Losing the stream is the client leaving: its requests are aborted and what is queued for it
 * is dropped (one teardown). While no stream is open, outgoing messages wait in the bounded queue;
 * a legacy client may reopen its stream with `GET /sse?sessionId=` within the idle TTL.
 *
 * Not here: routing (there is nothing to route), resumption (no event ids on these wires).
 */
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";
import type { JsonRpcMessage } from "../jsonrpc/messages.ts";
import type { QueueBudget } from "../session/QueueBudget.ts";
import { Channel, type Framing } from "./Channel.ts";
import type { Outlet, Refusal, Transport, TransportLink, TransportType } from "./Transport.ts";

export class StreamTransport implements Transport {
  /** 2024-11-05 HTTP+SSE. */
  static readonly sse: TransportType<StreamTransport> = {
    kind: "sse",
    create: (link) => new StreamTransport(link, "legacy", "sse", link.config.keepaliveIntervalMs),
  };

  /** Whole messages on a duplex stream; `kind` names it in the session record and the logs ("stdio", "websocket"). */
  static messages(kind: string): TransportType<StreamTransport> {
    return { kind, create: (link) => new StreamTransport(link, kind, "message", undefined) };
  }

  readonly #link: TransportLink;
  readonly #channel: Channel;

  private constructor(link: TransportLink, id: string, framing: Framing, keepaliveIntervalMs: number | undefined) {
    this.#link = link;
    this.#channel = new Channel({
      id,
      budget: link.budget,
      keepaliveIntervalMs,
      framing,
      log: link.log,
      onDisconnect: (reason) => {
        // The client is gone unless we closed the stream ourselves (the session ended).
        const gone = reason !== "server-closed";
        this.#link.closed(id, reason, gone);
        if (gone) this.#channel.discard();
      },
    });
  }

  get connected(): boolean {
    return this.#channel.connected;
  }

  /** The session's queue budget: what else writes to this stream (2026-07-28 requests on stdio) reserves room in. */
  get budget(): QueueBudget {
    return this.#link.budget;
  }

  /** Opens the stream; `first` (the legacy `endpoint` event) is its first bytes. One stream at a time. */
  open(first?: string): Response {
    if (this.#channel.connected) {
      throw new McpError(409, ErrorCode.InvalidRequest, "This session already has an open stream; close it before opening another");
    }
    this.#link.touch();
    this.#link.log.info("stream.open", { stream: this.#channel.id });
    return this.#channel.connect(first);
  }

  /** Takes one batch of the client's messages; replies go out on the stream. The refusal if it did not fit. */
  async deliver(messages: JsonRpcMessage[]): Promise<Refusal | undefined> {
    this.#link.touch();
    const refused = this.#link.admit(messages);
    if (refused) return refused;
    await this.#link.accept(messages, this.#channel);
    return undefined;
  }

  serverOutlet(): Outlet {
    return this.#channel;
  }

  close(): void {
    this.#channel.close();
    this.#channel.discard();
  }
}

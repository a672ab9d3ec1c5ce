/**
 * A transport with one outgoing stream that carries everything: every reply, notification and
 * server request. Two built-in kinds:
 * - `SingleStreamTransport.sse`: 2024-11-05 HTTP+SSE. The stream is `GET /sse` (SSE `message` events,
 *   keepalive comments); the client's messages arrive by `POST /message` (202, or 429 when the
 *   budget is full).
 * - `SingleStreamTransport.messages(kind)`: any duplex stream of whole messages, driven by
 *   `serveMessages` (stdio, a WebSocket): the stream carries the JSON texts themselves.
 *
 * Losing the stream is the client leaving: its requests are aborted and what is queued for it
 * is dropped (one teardown). While no stream is open, outgoing messages wait in the bounded queue;
 * a legacy client may reopen its stream with `GET /sse?sessionId=` within the idle TTL.
 *
 * Not here: routing (there is nothing to route), resumption (no event ids on these wires).
 */
import type { Principal } from "../auth/Principal.ts";
import { type Checked, passed } from "../errors/Checked.ts";
import { type JsonRpcMessage, type RequestId, requestIds } from "../jsonrpc/messages.ts";
import { parseMessages } from "../jsonrpc/parseMessages.ts";
import { decodeUtf8 } from "../http/readBody.ts";
import { SSE_KEEPALIVE, sseMessage } from "../outbound/encodeSse.ts";
import { LiveStream } from "../outbound/LiveStream.ts";
import type { Frame } from "../outbound/OutboundQueue.ts";
import type { Refusal, ReplyChannel, Transport, TransportLink, TransportType } from "../session/Transport.ts";
import type { HopTrace } from "../telemetry/Telemetry.ts";

export class SingleStreamTransport<T extends Frame = Frame> implements Transport {
  /** 2024-11-05 HTTP+SSE. */
  static readonly sse: TransportType<SingleStreamTransport<Uint8Array>> = {
    kind: "sse",
    create: (link) => new SingleStreamTransport<Uint8Array>(link, "legacy", sseMessage, { intervalMs: link.config.keepaliveIntervalMs, frame: SSE_KEEPALIVE }),
  };

  /** Whole messages on a duplex stream; `kind` names it in the session record and the logs ("stdio", "websocket"). */
  static messages(kind: string): TransportType<SingleStreamTransport<string>> {
    return { kind, create: (link) => new SingleStreamTransport<string>(link, kind, (json) => json, undefined) };
  }

  readonly #link: TransportLink;
  readonly #id: string;
  readonly #stream: LiveStream<T>;
  /** Every request's answer goes on the one stream. */
  readonly replies: ReplyChannel;

  private constructor(link: TransportLink, id: string, frame: (json: string) => T, keepalive: { intervalMs: number; frame: T } | undefined) {
    this.#link = link;
    this.#id = id;
    const stream: LiveStream<T> = new LiveStream<T>({
      budget: link.budget,
      frame,
      keepalive,
      onDisconnect: (reason) => {
        // The client is gone unless we closed the stream ourselves (the session ended).
        const gone = reason !== "server-closed";
        this.#link.closed(id, reason, gone);
        if (gone) stream.discard();
      },
    });
    this.#stream = stream;
    this.replies = {
      outlet: (reservation) => ({
        reply: (_message, json) => stream.reply(json, reservation),
        notify: (_message, json, signal) => stream.notify(json, signal),
        drop: () => reservation.release(),
      }),
    };
  }

  get connected(): boolean {
    return this.#stream.connected;
  }

  /**
   * Opens the stream; `first` (the legacy `endpoint` event) is its first frame. A stream still
   * open is replaced, not refused: a client reconnects when it thinks its stream is dead, which
   * it may be without the server having been told. The replaced connection
   * ends without cancelling anything. `relayed`: see `SessionOperation`.
   */
  async open(first?: T, relayed = false): Promise<ReadableStream<T>> {
    const body = this.#stream.connect(first, relayed);
    this.#link.log.info("stream.open", { stream: this.#id });
    await this.#link.touch();
    return body;
  }

  /** Takes one batch of the client's messages; replies go out on the stream. The refusal if it did not fit. */
  async deliver(messages: JsonRpcMessage[], size: number, auth?: Principal, trace?: HopTrace): Promise<Refusal | undefined> {
    return this.#deliver(requestIds(messages), size, () => passed(messages), auth, trace);
  }

  /**
   * `deliver` for a body as the route read and checked it (`requests`: its requests' ids): parsed
   * only once the batch is admitted, so a refused one costs no parse here.
   */
  async deliverBody(body: Uint8Array, requests: readonly RequestId[], size: number, auth?: Principal, trace?: HopTrace): Promise<Refusal | undefined> {
    return this.#deliver(requests, size, () => parsedBody(body), auth, trace);
  }

  async #deliver(requests: readonly RequestId[], size: number, messages: () => Checked<JsonRpcMessage[]>, auth: Principal | undefined, trace: HopTrace | undefined): Promise<Refusal | undefined> {
    await this.#link.touch();
    const refused = this.#link.admit(requests, size);
    if (refused) return refused;
    const batch = messages();
    if (!batch.ok) return { error: batch.error, id: batch.id ?? null };
    await this.#link.accept(batch.value, this.replies, size, auth, trace);
    return undefined;
  }

  notify(json: string, signal?: AbortSignal): Promise<void> {
    return this.#stream.notify(json, signal);
  }

  close(): void {
    this.#stream.close();
  }
}

/** A body the route already checked, checked again where it arrived (the same strict decode and parse: nothing trusted across the hop). */
function parsedBody(body: Uint8Array): Checked<JsonRpcMessage[]> {
  const text = decodeUtf8(body);
  if (!text.ok) return text;
  const parsed = parseMessages(text.value);
  return parsed.ok ? passed(parsed.value.messages) : parsed;
}

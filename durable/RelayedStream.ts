/**
 * One client stream as its session object sends it to the Worker that relays it (the link is
 * described in `relayProtocol.ts`): it reads the stream's body — one frame per read, from the
 * session's bounded queue — and sends each frame over the hibernatable WebSocket while the
 * Worker has credit, resuming when an acknowledgement arrives.
 *
 * What is kept where. The socket's attachment (`RelayState`) survives hibernation: which stream
 * it carries and the byte counts sent and acknowledged, so a woken object knows the credit left.
 * The reader, and any frames still queued, live in memory only. So while frames wait for credit
 * (the client is slow), a timer holds the object resident: hibernating then would lose them.
 * With nothing to send, nothing is pending — the read waits on a promise, not on I/O — and the
 * object may hibernate; a woken object reads the stream again from its newest event.
 *
 * One teardown: the client left (socket closed by the Worker), the stream ended (its body done:
 * the session ended, or a finished stream was replayed), or a send failed — each runs `#end` once.
 */
import type { Relayed } from "../shared/host/SessionHost.ts";
import type { Logger } from "../shared/log/Logger.ts";
import { CLIENT_LEFT, RELAY_WINDOW_BYTES, STREAM_ENDED } from "./relayProtocol.ts";

/** What a relay socket's attachment holds (plain data; serialised with the socket). */
export interface RelayState {
  relayed: Relayed;
  /** Bytes sent on this socket, all time. */
  sent: number;
  /** Bytes the Worker's client has read, as last acknowledged. */
  acked: number;
}

/** While frames wait for credit, this keeps the object resident (see the module header). */
const HOLD_INTERVAL_MS = 10_000;

export class RelayedStream {
  readonly #socket: WebSocket;
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #state: RelayState;
  readonly #log: Logger;
  #credit: (() => void) | undefined;
  #hold: ReturnType<typeof setInterval> | undefined;
  #ended = false;

  constructor(socket: WebSocket, body: ReadableStream<Uint8Array>, state: RelayState, log: Logger) {
    this.#socket = socket;
    this.#reader = body.getReader();
    this.#state = state;
    this.#log = log;
    this.#pump().catch((error: unknown) => this.#end(1011, "stream-error", error));
  }

  /** The Worker's client has read `total` bytes in all: credit for more. */
  ack(total: number): void {
    if (total <= this.#state.acked || total > this.#state.sent) return;
    this.#state.acked = total;
    this.#socket.serializeAttachment(this.#state);
    const resume = this.#credit;
    this.#credit = undefined;
    resume?.();
  }

  /** The Worker closed the socket: its client is gone. The stream's reader is cancelled, which is the stream's own disconnect. */
  clientLeft(): void {
    this.#end(1000, CLIENT_LEFT);
  }

  async #pump(): Promise<void> {
    while (!this.#ended) {
      if (this.#state.sent - this.#state.acked >= RELAY_WINDOW_BYTES) {
        this.#hold ??= setInterval(() => {}, HOLD_INTERVAL_MS);
        await new Promise<void>((resolve) => (this.#credit = resolve));
        clearInterval(this.#hold);
        this.#hold = undefined;
        continue;
      }
      const { done, value } = await this.#reader.read();
      if (this.#ended) return;
      if (done) return this.#end(1000, STREAM_ENDED);
      this.#socket.send(value);
      this.#state.sent += value.byteLength;
      this.#socket.serializeAttachment(this.#state);
    }
  }

  #end(code: number, reason: string, error?: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    clearInterval(this.#hold);
    this.#hold = undefined;
    this.#credit?.();
    if (error !== undefined) this.#log.warn("relay.failed", { message: String(error) });
    // Cancelling the reader is the stream's disconnect (a no-op once it has ended by itself).
    this.#reader.cancel(reason).catch(() => {});
    if (reason === CLIENT_LEFT) return;
    try {
      this.#socket.close(code, reason);
    } catch {
      // already closed by the other end
    }
  }
}

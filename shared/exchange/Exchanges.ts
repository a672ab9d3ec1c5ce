/**
 * The requests one client connection (a session, or a message stream) has in flight: the one
 * place their ids are kept, so that a second request with an id still in use is refused
 * (-32600), `notifications/cancelled` reaches the request it names, and a client that left takes
 * its requests with it. At most `concurrency` handlers run at once; the rest wait their turn in
 * order (each holds a reservation, so the wait list is bounded by the queue budget).
 *
 * JSON-RPC ids 1 and "1" are different requests.
 */
import { McpError } from "../errors/McpError.ts";
import { errorReply, type RequestId } from "../jsonrpc/messages.ts";
import type { Exchange } from "./Exchange.ts";
import { Cancellation } from "./Cancellation.ts";
import { runExchange } from "./runExchange.ts";
import { Slots } from "./Slots.ts";

/** Abort reasons after which no response is sent: nobody is waiting for one. */
export const CANCELLED = Symbol("cancelled by the client");
export const DISCONNECTED = Symbol("client disconnected");

/** The refusal of a request whose id is still in flight on the same connection. */
export function idInUse(id: RequestId): McpError {
  return McpError.invalidRequest(`Request id ${JSON.stringify(id)} is already in use by a request in flight`);
}

export class Exchanges {
  readonly #slots: Slots;
  readonly #inFlight = new Map<string, Cancellation>();

  constructor(concurrency: number) {
    this.#slots = new Slots(concurrency);
  }

  /** Handlers running now (not those waiting for a slot). */
  get running(): number {
    return this.#slots.running;
  }

  /** Requests accepted and not yet answered, running or waiting. */
  get size(): number {
    return this.#inFlight.size;
  }

  /**
   * Starts `exchange` in its turn; resolves once it is answered (or dropped). One whose id is in
   * use is answered -32600 at once, on its own outlet.
   */
  async start(exchange: Exchange): Promise<void> {
    const held = this.hold(exchange.request.id);
    if (!held) {
      const { id } = exchange.request;
      const reply = errorReply(id, idInUse(id));
      try {
        await exchange.outlet.reply(reply, JSON.stringify(reply));
      } catch (error) {
        exchange.outlet.drop();
        exchange.log.error("rpc.reply-failed", { id, message: String(error) });
      }
      return;
    }
    await this.#slots.acquire();
    try {
      // Set on the exchange itself, not a copy: an exchange may keep its parts on its prototype.
      exchange.cancellation = held.cancellation;
      await runExchange(exchange);
    } finally {
      this.#slots.release();
      held.release();
    }
  }

  /**
   * Registers `id` as in flight: the controller that `cancel` and `abortAll` abort, and the
   * release to call when it is over. Undefined when the id is in use. (`start` holds its
   * request's id; a `subscriptions/listen`, which is not a handler and takes no slot, holds its own.)
   */
  hold(id: RequestId): { cancellation: Cancellation; release(): void } | undefined {
    const key = keyOf(id);
    if (this.#inFlight.has(key)) return undefined;
    const cancellation = new Cancellation();
    this.#inFlight.set(key, cancellation);
    return {
      cancellation,
      release: () => {
        if (this.#inFlight.get(key) === cancellation) this.#inFlight.delete(key);
      },
    };
  }

  /** `notifications/cancelled`: aborts the request; an unknown or finished one is ignored (spec). */
  cancel(id: unknown, reason: unknown = CANCELLED): boolean {
    const cancellation = typeof id === "string" || typeof id === "number" ? this.#inFlight.get(keyOf(id)) : undefined;
    cancellation?.abort(reason);
    return cancellation !== undefined;
  }

  /** Aborts every request, e.g. `DISCONNECTED` when the client went away. */
  abortAll(reason: unknown): void {
    for (const cancellation of this.#inFlight.values()) cancellation.abort(reason);
  }
}

function keyOf(id: RequestId): string {
  return `${typeof id}:${id}`;
}

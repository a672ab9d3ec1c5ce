/**
 * Requests this server sends to its client (`sampling/createMessage`, `elicitation/create`,
 * `roots/list`) and the wait for their answers. The session sends the request frame; the
 * client POSTs its JSON-RPC response, which `settle()` routes back to the waiting handler.
 *
 * Every wait ends: with the client's result, with a `ClientRequestError` (the client answered
 * with an error, or did not answer within the deadline), or with the handler's abort reason.
 * Ids carry a per-instance random prefix, so an answer meant for an earlier instance of the
 * session (before an eviction) can never be mistaken for one of ours.
 *
 * Not here: framing, capability checks, which stream the request goes out on.
 */
import type { JsonRpcResponse, RequestId } from "../jsonrpc/messages.ts";

/** The client answered with a JSON-RPC error, or not at all in time. Tools see it as a failure to report. */
export class ClientRequestError extends Error {
  override readonly name = "ClientRequestError";
  constructor(
    readonly method: string,
    readonly code: number | undefined,
    message: string,
  ) {
    super(message);
  }
}

interface Waiter {
  method: string;
  resolve(result: Record<string, unknown>): void;
  reject(error: unknown): void;
}

export class ClientRequests {
  readonly #prefix = crypto.getRandomValues(new Uint32Array(1))[0]!.toString(36);
  readonly #waiters = new Map<RequestId, Waiter>();
  #next = 0;

  constructor(private readonly timeoutMs: number) {}

  get pending(): number {
    return this.#waiters.size;
  }

  /**
   * Registers a request about to be sent. `result` settles as described above; it rejects with
   * `signal.reason` when the handler is aborted first.
   */
  open(method: string, signal: AbortSignal): { id: string; result: Promise<Record<string, unknown>> } {
    const id = `${this.#prefix}-${++this.#next}`;
    const result = new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(() => {
        finish();
        reject(new ClientRequestError(method, undefined, `The client did not answer ${method} within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      const onAbort = () => {
        finish();
        reject(signal.reason);
      };
      const finish = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        this.#waiters.delete(id);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.#waiters.set(id, {
        method,
        resolve: (value) => {
          finish();
          resolve(value);
        },
        reject: (error) => {
          finish();
          reject(error);
        },
      });
      if (signal.aborted) onAbort();
    });
    return { id, result };
  }

  /** Routes a client response to its waiter. False when nobody waits for that id. */
  settle(response: JsonRpcResponse): boolean {
    const waiter = response.id === null ? undefined : this.#waiters.get(response.id);
    if (!waiter) return false;
    if ("result" in response) waiter.resolve(response.result);
    else waiter.reject(new ClientRequestError(waiter.method, response.error.code, `The client answered ${waiter.method} with error ${response.error.code}: ${response.error.message}`));
    return true;
  }
}

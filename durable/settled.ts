/**
 * An RPC method's outcome as a plain value: what the Worker and the task and home objects say to
 * each other. RPC carries an `Error`'s message but not its class, so an `McpError` (its HTTP status
 * and JSON-RPC code) is settled into a value on the object's side and thrown again on the caller's.
 * Anything else stays thrown (`settle`), a failure of ours logged where it is caught — or, where
 * an error is an expected way for a call to end (a home's handler aborted, or rejected by an ask
 * the request answers later), it travels as its message (`settleAll`), so the object does not
 * report it as uncaught.
 */
import { type JsonRpcErrorObject, McpError } from "../shared/errors/McpError.ts";

export type Settled<T> = { ok: true; value: T } | { ok: false; status: number; error: JsonRpcErrorObject; headers?: Record<string, string> } | { ok: false; thrown: string };

/** The object's side: the operation's value, or its `McpError` as a value. */
export async function settle<T>(operation: Promise<T>): Promise<Settled<T>> {
  try {
    return { ok: true, value: await operation };
  } catch (error) {
    if (!(error instanceof McpError)) throw error;
    return { ok: false, status: error.status, error: error.toJsonRpc(), ...(error.headers ? { headers: error.headers } : {}) };
  }
}

/** Like `settle`, but any other error comes back as its message too. */
export async function settleAll<T>(operation: Promise<T>): Promise<Settled<T>> {
  return settle(operation).catch((error: unknown) => ({ ok: false, thrown: error instanceof Error ? error.message : String(error) }));
}

/** The caller's side: the value, or the `McpError` (or other error) thrown again. */
export function unsettle<T>(settled: Settled<T>): T {
  if (settled.ok) return settled.value;
  if ("thrown" in settled) throw new Error(settled.thrown);
  throw new McpError(settled.status, settled.error.code, settled.error.message, settled.error.data, settled.headers);
}

/**
 * What every guard returns — every check that may refuse a request, from the Host header to a
 * 2026-07-28 `_meta`: the value it checked, or the `McpError` that refuses the request, with the
 * request's id when the guard could read it, so that the refusal answers that request. Expected
 * refusals are values, not exceptions; the caller decides what to do with one.
 *
 * @example
 * const session = requireMcpSessionId(request);
 * if (!session.ok) return errorResponse(session.error, session.id);
 * use(session.value);
 */
import type { McpError } from "./McpError.ts";

export interface Refused {
  ok: false;
  error: McpError;
  /** The id of the request refused, when it could be read; its JSON-RPC error answers it. */
  id?: string | number | null;
}

export type Checked<T = undefined> = { ok: true; value: T } | Refused;

/** A check that passed with nothing to hand on. */
export const PASSED: Checked = Object.freeze({ ok: true, value: undefined });

export function passed<T>(value: T): Checked<T> {
  return { ok: true, value };
}

export function refused(error: McpError, id?: string | number | null): Refused {
  return id === undefined ? { ok: false, error } : { ok: false, error, id };
}

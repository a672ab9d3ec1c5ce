/**
 * `LISTED_FOR`: set by an extension on a tool it rewrote, to say whether `tools/list` shows the
 * tool to a request (e.g. an app-only tool, only to clients that render views). Calls are not
 * affected. Under a symbol, so it is never listed or sent.
 */

export const LISTED_FOR: unique symbol = Symbol("durable-mcp listed for");

/** What `LISTED_FOR` decides from: the client's declared capabilities (its `initialize`, or a 2026-07-28 request's `_meta`). */
export type ListedFor = (client: { readonly capabilities: Record<string, unknown> }) => boolean;

/** A definition an extension may have marked with `LISTED_FOR`. */
export interface Listed {
  [LISTED_FOR]?: ListedFor;
}

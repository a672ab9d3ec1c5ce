/**
 * `watch()`: change fan-out, listed in a definition's `use` by a server whose lists or resources
 * can change (`listChanged`, resources, definitions declared with `enabled`). On Workers its
 * `workerd` variant (`durable/watchOnWorkers.ts`) brings the watch class (`McpWatch`, bound as
 * `MCP_WATCH`): one Durable Object per watched topic carries each change to every isolate; without
 * it a 2026-07-28 listener hears only the changes made in its own isolate. A process (Deno, Node,
 * stdio) is one isolate: there it changes nothing; processes that share a store fan out through it
 * (`postgres/PgBroadcaster.ts` on PostgreSQL, `deno/KvBroadcaster.ts` on Deno KV; both hand each
 * process's changes to its subscribers through `FanOut`). No MCP extension: nothing is advertised.
 */
import type { Extension } from "../../shared/definition/ServerOptions.ts";

/** Its name in the list (`use: watch() is listed twice`). */
export const WATCH = "watch";

/** @example defineServer({ …, listChanged: { tools: true }, use: [watch()] }) */
export function watch(): Extension<"McpWatch"> {
  return { id: WATCH };
}

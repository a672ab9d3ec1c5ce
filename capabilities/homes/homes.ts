/**
 * `homes()`: state that outlives the connection, listed in a definition's `use` by a server whose
 * definitions keep state in a home of their own (`home: "user"` or a handle), or that counts each
 * client's sessions and tasks against a fair share on Workers. On Workers its `workerd` variant
 * (`durable/homesOnWorkers.ts`) brings the home class (`McpHome`, bound as `MCP_HOME`): one
 * Durable Object per user and per handle, which also counts the fair shares. A process (Deno,
 * Node, stdio) keeps its homes itself. No MCP extension: nothing is advertised.
 */
import type { Extension } from "../../shared/definition/ServerOptions.ts";
import { HOMES_CAPABILITY } from "../../shared/definition/Home.ts";

/** Its name in the list (`use: homes is listed twice`). */
export const HOMES = HOMES_CAPABILITY;

/** @example defineServer({ …, tools: [tool({ …, home: "user" })], use: [homes()] }) */
export function homes(): Extension<"McpHome"> {
  return { id: HOMES };
}

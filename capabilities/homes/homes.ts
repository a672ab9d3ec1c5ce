/**
 * `homes()`: state that outlives the connection, listed in a definition's `use` by a server whose
 * definitions keep state in a home of their own (`home: "user"` or a handle), or that counts each
 * client's sessions and tasks against a fair share on Workers. On Workers its `workerd` variant
 * (`durable/homesOnWorkers.ts`) brings the home class (`McpHome`, bound as `MCP_HOME`): one
 * Durable Object per user and per handle, which also counts the fair shares. This is the variant of
 * every runtime but Workers: it brings the host of a process's homes (`LocalHomes`, in memory; Deno
 * with a KV file makes its own, `deno/kvHomes.ts`). No MCP extension: nothing is advertised.
 */
import type { Extension } from "../../shared/definition/ServerOptions.ts";
import { HOMES_CAPABILITY } from "../../shared/definition/Home.ts";
import type { LocalHomesPart } from "../../shared/home/LocalHomesPart.ts";
import { LocalHomes } from "./LocalHomes.ts";

const LOCAL_HOMES: LocalHomesPart = { homes: (options) => new LocalHomes(options) };

/** @example defineServer({ …, tools: [tool({ …, home: "user" })], use: [homes()] }) */
export function homes(): Extension<"McpHome"> {
  return { id: HOMES_CAPABILITY, local: LOCAL_HOMES };
}

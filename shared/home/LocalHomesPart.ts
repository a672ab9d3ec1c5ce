/**
 * What `homes()` brings to a process (Node, Deno, a message stream, a test client), in its `local`
 * part: the host of the server's homes there. The core finds it in the definition's `use`, so a
 * server without homes carries no host of them; a definition that declares homes without
 * `homes()` in its list is a definition problem (`CompiledServer`), never a silent fallback.
 *
 * On Workers, where the `workerd` variant of `homes()` makes the part, what a Worker serves
 * itself (`serveMessages` over a socket) reaches the same home objects as its HTTP requests.
 *
 * Not here: the host itself (`capabilities/homes/LocalHomes.ts`).
 */
import type { Config } from "../config/readConfig.ts";
import type { ServerEnv } from "../definition/RequestContext.ts";
import type { Logger } from "../log/Logger.ts";
import type { CompiledServer } from "../server/CompiledServer.ts";
import type { AtomicStore } from "../storage/AtomicStore.ts";
import type { Homes } from "./Homes.ts";

/** Homes as a runtime outside the router holds them: they live as long as it, and `close()` stops what their host runs (a process's timer), never the homes. */
export type LocalHomeHost = Homes & { close(): void };

export interface LocalHomesOptions {
  server: CompiledServer;
  config: Config;
  logger: Logger;
  /** One home's store, by its name; each name must get its own keyspace. Default: in memory, for as long as the host (on Workers: the home objects, which keep their own). */
  storeFor?(name: string): AtomicStore;
}

export interface LocalHomesPart {
  /** The homes of a server hosted with `env`; undefined where the runtime has none to offer (on Workers, `MCP_HOME` unbound). */
  homes(options: LocalHomesOptions, env: ServerEnv): LocalHomeHost | undefined;
}

/** The homes that `homes()` in the definition's `use` brings; undefined where no definition has a home of its own. */
export function localHomes(options: LocalHomesOptions, env: ServerEnv): LocalHomeHost | undefined {
  if (!options.server.hasHomes) return undefined;
  const part = options.server.use.find((capability) => (capability.local as Partial<LocalHomesPart> | undefined)?.homes)?.local as LocalHomesPart | undefined;
  return part?.homes(options, env);
}

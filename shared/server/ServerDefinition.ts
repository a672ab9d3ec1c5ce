/**
 * What `defineServer` returns, as its users see it: an opaque value that the runtime entries
 * (`createWorker`, `serveDeno`, `serveNode`, `serveStdio`, `serveMessages`, `testClient`) take,
 * and whose one readable member is `problem`. What it is made of (`CompiledServer`) is the
 * runtimes' business, reached through `compiledOf`, so that it can change without a user's code
 * noticing.
 */
import { CompiledServer, DEFINED } from "./CompiledServer.ts";

/** A server definition made by `defineServer`, for a runtime entry to serve. */
export interface ServerDefinition {
  /** Brands the type: only what `defineServer` makes passes for one. */
  readonly [DEFINED]: true;
  /**
   * Why the options cannot be served (a sentence naming what to fix); undefined when they can.
   * A runtime entry serves a page saying so instead of failing to load, and a process refuses to start.
   */
  readonly problem: Error | undefined;
}

/** What `server` is made of. @throws TypeError naming `entry` for anything `defineServer` did not make. */
export function compiledOf(server: ServerDefinition, entry: string): CompiledServer {
  if (server instanceof CompiledServer) return server;
  throw new TypeError(`${entry} takes what defineServer() returns`);
}


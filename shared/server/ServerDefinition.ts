/**
 * What `defineServer` returns, as its users see it: an opaque value that the runtime entries
 * (`createWorker`, `serveDeno`, `serveNode`, `serveStdio`, `serveMessages`, `testClient`) take,
 * and whose one readable member is `problem`. What it is made of (`CompiledServer`) is the
 * runtimes' business, reached through `compiledOf`, so that it can change without a user's code
 * noticing.
 */
import { CompiledServer, DEFINED } from "./CompiledServer.ts";

/**
 * A server definition made by `defineServer`, for a runtime entry to serve. `Objects`: the names
 * of the Durable Object classes the capabilities of its `use` list bring to a Worker entry
 * (`"McpTask"`), a type only.
 */
export interface ServerDefinition<Objects extends string = never> {
  /** Brands the type: only what `defineServer` makes passes for one. */
  readonly [DEFINED]: true;
  /** Type only, never set: what `createWorker` offers (contravariant, so any definition is a `ServerDefinition`). */
  readonly "~objects"?: (objects: Objects) => void;
  /**
   * Why the options cannot be served (a sentence naming what to fix); undefined when they can.
   * A runtime entry serves a page saying so instead of failing to load, and a process refuses to start.
   */
  readonly problem: Error | undefined;
}

/** What `server` is made of. @throws TypeError naming `entry` for anything `defineServer` did not make. */
export function compiledOf<Objects extends string>(server: ServerDefinition<Objects>, entry: string): CompiledServer<Objects> {
  if (server instanceof CompiledServer) return server as CompiledServer<Objects>;
  throw new TypeError(`${entry} takes what defineServer() returns`);
}


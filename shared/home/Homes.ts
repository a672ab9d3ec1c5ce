/**
 * Where homes live, as the eras see them (issue 20): one operation that runs a request's method
 * in its home, and one that deletes everything a user has. On Workers each home is a Durable
 * Object of `MCP_HOME` (`durable/durableHomes.ts`); in a process, `LocalHomes`, in memory or in
 * Deno KV. Every host runs the same `HomeHost`.
 *
 * A home is named by what it belongs to, never by a value the client chose: a user's by the
 * digest of the principal's issuer and subject (`Caller.owner`), a handle's by the handle, which
 * the server mints — 128 bits from the platform CSPRNG, as session and task ids are.
 */
import type { Result } from "../definition/Method.ts";
import type { RequestContext } from "../definition/RequestContext.ts";
import { randomHex } from "../bytes/randomHex.ts";

/** The home one request runs in. */
export type HomeAddress =
  /** The principal's own home; `owner` is its digest. */
  | { kind: "user"; owner: string }
  /**
   * A handle's home. `owner` is the caller's digest (undefined without authorization): the handle
   * answers as unknown to anyone but the principal it was minted for. `fresh`: minted for this
   * call, so nothing may be stored under it yet.
   */
  | { kind: "handle"; id: string; owner: string | undefined; fresh: boolean };

/** A request's method and params, as its home runs them. */
export interface HomeCall {
  method: string;
  params: Record<string, unknown>;
}

export interface Homes {
  /**
   * Runs `call` in its home with `ctx` (the request's own context: its signal, its client, how it
   * reports and asks), `ctx.storage` being the home's. Resolves with the method's result; rejects
   * as the method would.
   */
  run(address: HomeAddress, call: HomeCall, ctx: RequestContext): Promise<Result>;
  /** Deletes the home of the principal with this digest, every key and alarm of it. */
  erase(owner: string): Promise<void>;
}

/** The name a home goes by in its host (a Durable Object's `idFromName`, a KV key prefix). */
export function homeName(address: HomeAddress): string {
  return address.kind === "user" ? `user:${address.owner}` : `handle:${address.id}`;
}

/** A new handle: 128 bits, hex, as unguessable as a session id. */
export function newHandle(): string {
  return randomHex(16);
}

/** Whether `value` could be a handle of ours: anything else is unknown without waking a home. */
export function isHandle(value: unknown): value is string {
  return typeof value === "string" && /^[0-9a-f]{32}$/.test(value);
}

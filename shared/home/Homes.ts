/**
 * Where homes live, as the eras see them: one operation that runs a request's method
 * in its home, and one that deletes everything a user has. On Workers each home is a Durable
 * Object of `MCP_HOME` (`capabilities/homes/durable/durableHomes.ts`); in a process, `LocalHomes`
 * (`capabilities/homes/`), in memory or in Deno KV. Every host runs the same `HomeHost`.
 *
 * A home is named by what it belongs to, never by a value the client chose: a user's by the
 * digest of the principal's issuer and subject (`Caller.owner`), a handle's by the handle, which
 * the server mints — 128 bits from the platform CSPRNG, as session and task ids are.
 */
import type { Result } from "../definition/Method.ts";
import type { RequestContext } from "../definition/RequestContext.ts";
import { randomHex } from "../bytes/randomHex.ts";
import { isPrincipalKey } from "../shares/clientKey.ts";

/** The home one request runs in. */
export type HomeAddress =
  /** The principal's own home; `owner` is its digest. */
  | { kind: "user"; owner: string }
  /**
   * A handle's home. `owner` is the caller's digest (undefined without authorization): the handle
   * answers as unknown to anyone but the principal it was minted for. `definition`: the name of
   * the definition asking, which must be the one that minted it. `fresh`: minted for this call, so
   * nothing may be stored under it yet; `client` (`clientKey`) is whose fair share of handles it
   * takes if it is kept.
   */
  | { kind: "handle"; id: string; owner: string | undefined; definition: string; fresh: boolean; client?: string };

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
  /** Deletes the home of the principal with this digest, every key and alarm of it, and the homes of the handles minted for them. */
  erase(owner: string): Promise<void>;
}

/** The name a home goes by in its host (a Durable Object's `idFromName`, a KV key prefix). */
export function homeName(address: HomeAddress): string {
  return address.kind === "user" ? `user:${address.owner}` : handleHomeName(address.id);
}

/** The name of the home of the handle `id`. */
export function handleHomeName(id: string): string {
  return `handle:${id}`;
}

/**
 * The home that counts a client's fair shares (`clientKey`), handles among them: a signed-in
 * principal's own, else one for the client's address, which holds nothing else.
 */
export function clientHomeName(client: string): string {
  return isPrincipalKey(client) ? homeName({ kind: "user", owner: client }) : `client:${client}`;
}

/** A new handle: 128 bits, hex, as unguessable as a session id. */
export function newHandle(): string {
  return randomHex(16);
}

/** Whether `value` could be a handle of ours: anything else is unknown without waking a home. */
export function isHandle(value: unknown): value is string {
  return typeof value === "string" && /^[0-9a-f]{32}$/.test(value);
}

/**
 * Where a definition's handler runs, and so whose storage its `ctx.storage` is. State
 * that must outlive a connection needs a home that is not one: the 2026-07-28 revision has no
 * session, and claude.ai starts a new session before nearly every call.
 *
 * - `"session"` (the default): the handler runs with the request's session, where there is one
 *   (2025 revisions, HTTP+SSE, stdio), and `ctx.storage` is that session's; on 2026-07-28 there
 *   is none.
 * - `"user"`: the signed-in principal's own home — on Workers a Durable Object per principal,
 *   keyed by the digest of its issuer and subject — where the handler runs, so its storage is
 *   local, transactional and the same in every era. Needs `authorization`.
 * - `{ handle: "<argument>" }`: state addressed by an unguessable handle the server mints and the
 *   model passes back in that argument (2026-07-28 "Stateful Tools"). A call without the argument
 *   opens a new handle (`ctx.handle`), kept once something is stored under it; a handle minted for
 *   one principal is unknown to every other, and one minted by a definition is unknown to
 *   definitions of other names (a tool, and a prompt or template of the same name, share one).
 *
 * Not here: how a request finds its home (`CompiledServer.homeOf`, `home/runInHome.ts`) and how
 * a home runs (`capabilities/homes/HomeHost.ts`).
 */

/** A handle home: `handle` names the tool or prompt argument (or template variable) that carries the handle. */
/** The name `homes()` has in a definition's `use`: what a definition with a home of its own needs listed. */
export const HOMES_CAPABILITY = "homes";

export interface HandleHome {
  handle: string;
}

export type Home = "session" | "user" | HandleHome;

/**
 * The declaration, checked: undefined for `"session"` (or none).
 * @throws TypeError naming the definition for anything else
 */
export function checkHome(what: string, home: unknown): "user" | HandleHome | undefined {
  if (home === undefined || home === "session") return undefined;
  if (home === "user") return home;
  if (typeof home === "object" && home !== null && typeof (home as HandleHome).handle === "string" && /^[A-Za-z0-9_.-]{1,64}$/.test((home as HandleHome).handle)) {
    return { handle: (home as HandleHome).handle };
  }
  throw new TypeError(`${what} has "home": ${JSON.stringify(home)}; it must be "session", "user" or { handle: "<argument name>" }`);
}

/**
 * Where one request runs: a user's home, or a handle's — `id` as the request gave it (checked by
 * the home), or undefined for a call that opens a new handle; `definition`, the name of the
 * definition asking, to which the handle must belong.
 */
export type HomePlan = { kind: "user" } | { kind: "handle"; argument: string; id: unknown; definition: string };

/** The plan for a request to the definition named `definition` with this home, given the arguments (or template variables) that may carry a handle. */
export function planFor(home: "user" | HandleHome, args: unknown, definition: string): HomePlan {
  if (home === "user") return USER_PLAN;
  const value = typeof args === "object" && args !== null ? (args as Record<string, unknown>)[home.handle] : undefined;
  return { kind: "handle", argument: home.handle, id: value, definition };
}

const USER_PLAN: HomePlan = Object.freeze({ kind: "user" });

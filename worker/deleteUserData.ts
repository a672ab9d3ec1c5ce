/**
 * Deletes everything a user has in this deployment (a data-protection request): their home — every
 * key and SQL table of `home: "user"` definitions, and its alarm — found by the same digest of
 * issuer and subject the requests use, so the user need not be signed in. Call it from a route or
 * a scheduled job of your own with the Worker's `env`.
 *
 * @example await deleteUserData(env, { issuer: "https://auth.example.com", subject: "user-123" })
 */
import { ownerOf } from "../shared/auth/Caller.ts";
import { eraseUserHome } from "../durable/durableHomes.ts";
import type { HomeObject } from "../durable/HomeObject.ts";

export async function deleteUserData(env: { MCP_HOME?: DurableObjectNamespace<HomeObject> }, who: { issuer: string; subject: string }): Promise<void> {
  if (!env.MCP_HOME) throw new TypeError("deleteUserData needs the MCP_HOME binding, where users' homes live");
  await eraseUserHome(env.MCP_HOME, await ownerOf(who));
}

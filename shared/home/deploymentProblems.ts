/**
 * What keeps a deployment from serving the homes its definitions declare, in the sentence every
 * entry reports it with — at start where there is a start (Deno, stdio), on `GET /` and in every
 * MCP answer on Workers, as a broken definition is (issue 20: never a silent fallback).
 */
import type { ServerDefinition } from "../server/ServerDefinition.ts";

/**
 * A `home: "user"` definition where requests carry no signed-in user.
 * @param fix what gives `where` a signed-in user; default: a deployment's `authorization`
 */
export function userHomeNeedsSignIn(where: string, fix = "configure `authorization`"): TypeError {
  return new TypeError(`Some definitions keep their state in the signed-in user's home (home: "user"), and ${where} has no signed-in user: ${fix}, or keep that state under a handle (home: { handle: "…" })`);
}

/**
 * Why this deployment cannot serve the definition's homes, or undefined when it can.
 * @param authorized whether requests are authenticated (`authorization` configured)
 * @param hosted whether the deployment hosts homes (on Workers, `MCP_HOME` is bound)
 */
export function homeProblem(server: ServerDefinition, authorized: boolean, hosted: boolean): TypeError | undefined {
  const { user, handle } = server.homes;
  if (user && !authorized) return userHomeNeedsSignIn("this deployment");
  if ((user || handle) && !hosted) {
    return new TypeError(
      'Some definitions keep their state in a home of their own (home: "user" or a handle), and this deployment hosts no homes: on Workers, export `class McpHome extends homeObject(server) {}` from the entry and bind it as MCP_HOME (see the README, "State that outlives the connection")',
    );
  }
  return undefined;
}

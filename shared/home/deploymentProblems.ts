/**
 * What keeps a deployment from serving the homes its definitions declare, in the sentence every
 * entry reports it with — at start where there is a start (Deno, stdio), on `GET /`, `/health`
 * and in every MCP answer on Workers, as a broken definition is: never a silent fallback. On
 * Workers it names the Durable Object bindings there are, so a misspelled `MCP_HOME` shows.
 */
import type { CompiledServer } from "../server/CompiledServer.ts";

/**
 * A `home: "user"` definition where requests carry no signed-in user.
 * @param fix what gives `where` a signed-in user; default: a deployment's `authorization`
 */
export function userHomeNeedsSignIn(where: string, fix = "configure `authorization`"): TypeError {
  return new TypeError(`Some definitions keep their state in the signed-in user's home (home: "user"), and ${where} has no signed-in user: ${fix}, or keep that state under a handle (home: { handle: "…" })`);
}

/** The binding the home class is looked for under, on Workers. */
const HOME_BINDING = "MCP_HOME";

/**
 * Why this deployment cannot serve the definition's homes, or undefined when it can.
 * @param authorized whether requests are authenticated (`authorization` configured)
 * @param hosted whether the deployment hosts homes (on Workers, `MCP_HOME` is bound)
 * @param bound the Durable Object bindings there are, where the runtime has them (Workers)
 */
export function homeProblem(server: CompiledServer, authorized: boolean, hosted: boolean, bound?: readonly string[]): TypeError | undefined {
  const { user, handle } = server.homes;
  if (user && !authorized) return userHomeNeedsSignIn("this deployment");
  if ((user || handle) && !hosted) {
    return new TypeError(
      `Some definitions keep their state in a home of their own (home: "user" or a handle), and this deployment hosts no homes: on Workers, export \`class McpHome extends worker.McpHome {}\` from the entry and bind it as ${HOME_BINDING}, with "McpHome" in a migration's new_sqlite_classes${bound ? `; ${whatIsBound(bound)}` : ""}`,
    );
  }
  return undefined;
}

/** What the Worker binds instead of the home class, and the name closest to it. */
function whatIsBound(bound: readonly string[]): string {
  if (bound.length === 0) return "this Worker binds no Durable Object namespace";
  const listed = bound.length === 1 ? bound[0] : `${bound.slice(0, -1).join(", ")} and ${bound.at(-1)}`;
  // A name with HOME in it (MCP_HOMES, HOME, McpHome) is most likely the home class under another name.
  const near = bound.find((name) => /home/i.test(name));
  return `this Worker binds ${listed}, and no ${HOME_BINDING}${near ? `: is ${near} meant to be ${HOME_BINDING}?` : ""}`;
}

/**
 * The names in `env` bound to Durable Object namespaces, where a runtime binds them (Workers).
 * Told by their class, not by a method: a service binding's RPC stub answers any method name.
 */
export function durableObjectBindings(env: Readonly<Record<string, unknown>>): string[] {
  return Object.keys(env).filter((name) => {
    const value = env[name];
    return typeof value === "object" && value !== null && value.constructor?.name === "DurableObjectNamespace";
  });
}

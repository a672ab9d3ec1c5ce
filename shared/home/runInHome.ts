/**
 * Where an era runs a request's method: in the request's own scope, or —
 * when the definition it names declares a home of its own — in that home, wherever its host keeps
 * it (a Durable Object on Workers, this process elsewhere). The three eras and tasks call this
 * one function, so a user tool sees the same storage for the same person over 2026-07-28, a 2025
 * session, HTTP+SSE and stdio alike.
 *
 * A handle that cannot be ours (not 32 hex digits) is refused here without waking any home; a
 * call without one opens a new handle.
 */
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";
import type { Method, Result } from "../definition/Method.ts";
import type { HomePlan } from "../definition/Home.ts";
import type { RequestContext } from "../definition/RequestContext.ts";
import type { CompiledServer } from "../server/CompiledServer.ts";
import { ANONYMOUS } from "../shares/clientKey.ts";
import { unknownHandle } from "./unknownHandle.ts";
import { type HomeAddress, type HomeCall, type Homes, isHandle, newHandle } from "./Homes.ts";

/** What an era knows of where homes are and who is asking. */
export interface HomeRoute {
  /** Where homes live; undefined where the deployment hosts none. */
  homes: Homes | undefined;
  /** The digest of the request's principal (`Caller.owner`); undefined without authorization. */
  owner: string | undefined;
  /** The handle a call that names none opens; default a new one. A task passes its own id, so that each run of it opens the same. */
  freshHandle?: string;
  /** Whose fair share of handles a new one takes (`clientKey`), asked only for a call that opens one; default the owner, else the anonymous client. */
  client?: () => Promise<string>;
}

/** Runs `method` (found by the era, `local`) where the definition it names lives. */
export function runInHome(server: CompiledServer, method: string, params: Record<string, unknown>, ctx: RequestContext, local: Method, route: HomeRoute): Promise<Result> {
  const plan = server.homeOf(method, params);
  // Most calls name no home: they run here with no extra promise turn.
  return plan ? inHome(plan, { method, params }, ctx, route) : local(params, ctx);
}

/** Runs `call` in the home `plan` names, once the handle (or the user) and whose share a new handle takes are known. */
async function inHome(plan: HomePlan, call: HomeCall, ctx: RequestContext, route: HomeRoute): Promise<Result> {
  let address: HomeAddress;
  if (plan.kind === "user") {
    if (route.owner === undefined) throw notHosted(`${describe(call)} keeps its state in the signed-in user's home, and this request has no user: configure \`authorization\``);
    address = { kind: "user", owner: route.owner };
  } else if (plan.id === undefined) {
    const client = (await route.client?.()) ?? route.owner ?? ANONYMOUS;
    address = { kind: "handle", id: route.freshHandle ?? newHandle(), owner: route.owner, definition: plan.definition, fresh: true, client };
  } else if (!isHandle(plan.id)) {
    return unknownHandle(call, plan.id);
  } else {
    address = { kind: "handle", id: plan.id, owner: route.owner, definition: plan.definition, fresh: false };
  }
  if (!route.homes) throw notHosted(`${describe(call)} keeps its state in a home of its own, and this deployment hosts none (on Workers: bind MCP_HOME)`);
  return route.homes.run(address, call, ctx);
}

function describe(call: { method: string; params: Record<string, unknown> }): string {
  const name = call.params.name ?? call.params.uri;
  return typeof name === "string" ? `${call.method} of ${JSON.stringify(name.slice(0, 200))}` : call.method;
}

function notHosted(sentence: string): McpError {
  return new McpError(500, ErrorCode.InternalError, sentence);
}

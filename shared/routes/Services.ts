/**
 * What the MCP route handlers share, built once per environment by the router (per isolate on
 * Workers, once per process elsewhere): the environment's runtime, with what the routes keep
 * beside it, and the one shape every handler has.
 */
import type { ClientAddress } from "../http/clientAddress.ts";
import type { Caller } from "../auth/Caller.ts";
import type { Gatekeeper } from "../auth/Gatekeeper.ts";
import { errorResponse } from "../http/errorResponse.ts";
import type { Sessions } from "../host/SessionOperation.ts";
import type { JsonRpcMessage } from "../jsonrpc/messages.ts";
import type { Runtime } from "../runtime/Runtime.ts";
import type { StatelessHost } from "../stateless/statelessExchange.ts";

/** What the routes serve one environment with: its runtime, and where its sessions live (Durable Objects on Workers, this process elsewhere). */
export type HttpRuntime = Runtime & { readonly sessions: Sessions };

export interface Services extends StatelessHost {
  readonly runtime: HttpRuntime;
  /** Token and rate checks; undefined when neither is configured. */
  readonly gate: Gatekeeper | undefined;
  /** Why this deployment cannot serve the definition: the definition's own problem, or homes it declares but cannot host; undefined when it can. */
  readonly problem?: Error;
  /** What this deployment serves less of than the definition asks (task tools without a task host), for `GET /`; served all the same. */
  readonly warnings: readonly string[];
}

/**
 * `caller`: who sent the request, where the server checks tokens; `address`: its network address,
 * where the runtime knows it (fair shares of clients without a token), read when first asked for:
 * most requests never need it, and reading it is a header read, a platform call.
 */
export type Handler = (request: Request, services: Services, caller: Caller | undefined, address: ClientAddress) => Response | Promise<Response>;

/** The 403 answer for messages that name a definition whose scopes the caller's token lacks (`Gatekeeper.refuseScopes`); undefined when they may go on. */
export function refuseScopes(request: Request, messages: readonly JsonRpcMessage[], services: Services, caller: Caller | undefined): Response | undefined {
  if (!services.gate || !caller) return undefined;
  const needed = services.runtime.server.scopesNeeded(messages);
  const denied = needed.length === 0 ? undefined : services.gate.refuseScopes(request, needed, caller);
  if (!denied) return undefined;
  const only = messages.length === 1 ? messages[0] : undefined;
  return errorResponse(denied, only && "id" in only ? only.id : null);
}

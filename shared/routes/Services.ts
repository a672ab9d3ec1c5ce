/**
 * What the MCP route handlers share, built once per environment by the router (per isolate on
 * Workers, once per process elsewhere), and the one shape every handler has.
 */
import type { ClientAddress } from "../http/clientAddress.ts";
import type { Caller } from "../auth/Caller.ts";
import type { Gatekeeper } from "../auth/Gatekeeper.ts";
import type { Config } from "../config/readConfig.ts";
import { errorResponse } from "../http/errorResponse.ts";
import type { Sessions } from "../host/SessionOperation.ts";
import type { JsonRpcMessage } from "../jsonrpc/messages.ts";
import type { Logger } from "../log/Logger.ts";
import type { CompiledServer } from "../server/CompiledServer.ts";
import type { StatelessDeps } from "../stateless/statelessExchange.ts";
import type { Telemetry } from "../telemetry/Telemetry.ts";

export interface Services {
  config: Config;
  logger: Logger;
  definition: CompiledServer;
  sessions: Sessions;
  stateless: StatelessDeps;
  /** Token and rate checks; undefined when neither is configured. */
  gate: Gatekeeper | undefined;
  /** Where request spans go; undefined where tracing is off. */
  telemetry?: Telemetry;
  /** Why this deployment cannot serve the definition: the definition's own problem, or homes it declares but cannot host; undefined when it can. */
  problem?: Error;
  /** What this deployment serves less of than the definition asks (task tools without a task host), for `GET /`; served all the same. */
  warnings?: readonly string[];
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
  const needed = services.definition.scopesNeeded(messages);
  const denied = needed.length === 0 ? undefined : services.gate.refuseScopes(request, needed, caller);
  if (!denied) return undefined;
  const only = messages.length === 1 ? messages[0] : undefined;
  return errorResponse(denied, only && "id" in only ? only.id : null);
}

/**
 * What the router asks of the checks in front of the MCP routes, where the server checks tokens
 * or limits rates: one `admit` per request, before any session, object or handler is reached,
 * and a scope check per batch of messages. The core names these calls and holds none of their
 * code: `oauth()` and `rateLimits()` (the oauth capability) bring the one implementation, so a
 * server with neither ships none of it.
 */
import type { Checked } from "../errors/Checked.ts";
import type { McpError } from "../errors/McpError.ts";
import type { Caller } from "./Caller.ts";

export interface Gatekeeper {
  /** The protected-resource metadata, when `request` asks for it; it is open to all. */
  metadata(request: Request): Response | undefined;
  /** Why requests addressed like `request` cannot be served (a token check without the `resource` this host needs); undefined when they can. */
  addressProblem(request: Request): Error | undefined;
  /**
   * The request's caller (undefined where tokens are not checked), or its refusal (401, 403, 400
   * with a bearer challenge; 429 past a rate limit).
   * @param address the client's address, where the runtime knows it
   */
  admit(request: Request, env: Readonly<Record<string, unknown>>, address: string | undefined): Promise<Checked<Caller | undefined>>;
  /**
   * The 403 for a request whose caller's token lacks some of `needed` (the scopes of the tools,
   * prompts or resources it names); undefined when it may go on.
   */
  refuseScopes(request: Request, needed: readonly string[], caller: Caller | undefined): McpError | undefined;
}

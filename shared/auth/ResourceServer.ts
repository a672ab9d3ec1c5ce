/**
 * The OAuth 2.1 resource server for one environment, as the core passes it on: made by the
 * `authorization` option (`oauth()`), handed to the gate that checks tokens, and asked before a
 * process binds its port whether it may check tokens on the names it would answer. The one
 * implementation is the oauth capability's `OAuthResourceServer`; the core holds none of its code.
 */
import type { Checked } from "../errors/Checked.ts";
import type { McpError } from "../errors/McpError.ts";
import type { Principal } from "./Principal.ts";

export interface ResourceServer {
  /** The protected-resource metadata, if `request` asks for it at one of its well-known URLs; else undefined. */
  metadata(request: Request): Response | undefined;
  /** The request's principal, or the refusal (401, 403 or 400, with its `WWW-Authenticate`). */
  authenticate(request: Request, env: Readonly<Record<string, unknown>>): Promise<Checked<Principal>>;
  /** The 403 for a request whose token lacks `needed`, its challenge naming them with the scopes already `granted`. */
  insufficientScope(request: Request, needed: readonly string[], granted: readonly string[]): McpError;
  /** Why requests addressed like `request` cannot be served; undefined when they can. */
  addressProblem(request: Request): McpError | undefined;
  /**
   * Why a process bound to `hostname` and answering `allowedHosts` (empty: any name) may not
   * check tokens as configured; undefined when it may.
   */
  bindProblem(hostname: string, allowedHosts: readonly string[]): TypeError | undefined;
}

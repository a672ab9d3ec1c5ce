/**
 * Host validation against DNS rebinding, the complement of `originPolicy`: a page on
 * `http://evil.test:8787` whose name was rebound to 127.0.0.1 sends `Host: evil.test:8787`, and
 * a same-origin GET from it carries no `Origin` at all. A server that knows the names it is
 * reached by (`ALLOWED_HOSTS`) refuses every other name before any route runs. Deployments
 * usually leave the list empty: the platform routes only the names bound to the Worker.
 */
import { type Checked, PASSED, refused } from "../errors/Checked.ts";
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";

/** Refused with 403 (a JSON-RPC error, no id) when `allowedHosts` is set and the request's host is not on it. */
export function checkHost(request: Request, allowedHosts: readonly string[]): Checked {
  if (allowedHosts.length === 0) return PASSED;
  const { hostname } = new URL(request.url);
  if (allowedHosts.includes(hostname)) return PASSED;
  return refused(new McpError(403, ErrorCode.InvalidRequest, `Host ${JSON.stringify(hostname)} is not allowed; add it to ALLOWED_HOSTS to serve requests addressed to it`));
}

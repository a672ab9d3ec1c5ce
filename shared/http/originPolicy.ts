/**
 * Origin validation against DNS rebinding (transports spec, "Security Warning": a present but
 * invalid `Origin` MUST get 403). A rebinding page has its own origin (`http://evil.test:8787`)
 * even when its host name resolves to 127.0.0.1, so "same origin as the request" proves
 * nothing and is not a reason to allow. What is allowed:
 * - no `Origin` at all (non-browser clients: SDKs, curl, desktop apps);
 * - an origin on the `ALLOWED_ORIGINS` list, or any origin when that list is `*`;
 * - in local development only (the server itself reached on a loopback host), loopback origins
 *   such as `http://localhost:6274`, so the MCP Inspector and local web apps work untouched.
 */
import { type Checked, PASSED, refused } from "../errors/Checked.ts";
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";
import { requestHeaders } from "./requestHeaders.ts";

export interface OriginPolicy {
  /** Exact origins (`scheme://host[:port]`), or "*" for any. */
  allowed: readonly string[] | "*";
}

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host === "localhost" || host.endsWith(".localhost") || host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** True when a browser page at `origin` may talk to this server at `requestUrl`. */
export function isAllowedOrigin(origin: string, requestUrl: URL, policy: OriginPolicy): boolean {
  if (policy.allowed === "*") return true;
  if (policy.allowed.includes(origin)) return true;
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false; // "null" (sandboxed pages, file://) and garbage
  }
  return isLoopbackHost(requestUrl.hostname) && isLoopbackHost(parsed.hostname) && (parsed.protocol === "http:" || parsed.protocol === "https:");
}

/** Refused with 403 (a JSON-RPC error, no id) for a present, disallowed Origin. */
export function checkOrigin(request: Request, policy: OriginPolicy, origin = requestHeaders(request).get("origin")): Checked {
  if (origin === null || isAllowedOrigin(origin, new URL(request.url), policy)) return PASSED;
  return refused(new McpError(403, ErrorCode.InvalidRequest, `Origin ${JSON.stringify(origin)} is not allowed; add it to ALLOWED_ORIGINS to let browser pages on it connect`));
}

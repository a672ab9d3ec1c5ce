/**
 * CORS for browser-based MCP clients. The preflight is answered before anything else, and every
 * response to an allowed origin — errors included — carries the CORS headers, so a browser
 * client can read the JSON-RPC error instead of an opaque network failure. `Mcp-Session-Id` is
 * exposed: a browser client cannot continue a session without reading it.
 *
 * Origin validation itself is `checkOrigin()`; this module only decorates what it allowed.
 */
import { isPlain } from "./Answer.ts";
import { isAllowedOrigin, type OriginPolicy } from "./originPolicy.ts";
import { requestHeaders } from "./requestHeaders.ts";

/** How long a browser may cache a preflight answer. */
export const PREFLIGHT_MAX_AGE_SECONDS = 86_400;

const ALLOW_METHODS = "GET, POST, DELETE, OPTIONS";
const ALLOW_HEADERS = ["content-type", "accept", "authorization", "mcp-session-id", "mcp-protocol-version", "last-event-id", "mcp-method", "mcp-name", "dpop"];
const EXPOSE_HEADERS = "mcp-session-id, mcp-protocol-version, www-authenticate, retry-after";

/**
 * The answer to an `OPTIONS` preflight, or undefined for any other request. `method` and `origin`:
 * the request's, where the caller has read them already (each read is a platform call).
 */
export function preflight(request: Request, policy: OriginPolicy, method = request.method, origin = requestHeaders(request).get("origin")): Response | undefined {
  if (method !== "OPTIONS") return undefined;
  const headers = new Headers({ vary: "Origin" });
  if (origin !== null && isAllowedOrigin(origin, new URL(request.url), policy)) {
    // Echo what was asked for, beyond the MCP set: custom `x-mcp-header` parameters travel as headers.
    const requested = (requestHeaders(request).get("access-control-request-headers") ?? "").split(",").map((h) => h.trim().toLowerCase()).filter(Boolean);
    headers.set("access-control-allow-origin", origin);
    headers.set("access-control-allow-methods", ALLOW_METHODS);
    headers.set("access-control-allow-headers", [...new Set([...ALLOW_HEADERS, ...requested])].join(", "));
    headers.set("access-control-max-age", String(PREFLIGHT_MAX_AGE_SECONDS));
  }
  return new Response(null, { status: 204, headers });
}

/** `response` with CORS headers for the request's origin (`origin`, where the caller has read it), when that origin is allowed. */
export function withCors(response: Response, request: Request, policy: OriginPolicy, origin = requestHeaders(request).get("origin")): Response {
  // An upgraded request is the socket's now (Deno refuses to read it again), and needs no CORS.
  if (origin === null || response.status === 101 || !isAllowedOrigin(origin, new URL(request.url), policy)) return response;
  // Responses from a Durable Object have immutable headers; a shallow copy keeps the body streaming.
  // One made from plain data here has its own, set in place: it stays plain (`toResponse`).
  const copy = isPlain(response) ? response : new Response(response.body, response);
  copy.headers.set("access-control-allow-origin", origin);
  copy.headers.set("access-control-expose-headers", EXPOSE_HEADERS);
  copy.headers.append("vary", "Origin");
  return copy;
}

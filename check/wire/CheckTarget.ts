/**
 * The server under check and how to reach it: the MCP URL, the legacy HTTP+SSE URL beside it,
 * headers to send with every request (a bearer token for a server behind sign-in), the browser
 * origin the CORS probe pretends to be, and one deadline per request. `send` is the only way the
 * probes reach the network (the SDK clients aside, which follow the same redirect rule), so each
 * request is bounded in time, carries the same headers, and never leaves the origin it was sent to.
 */
import { CrossOriginRedirect } from "./CrossOriginRedirect.ts";

/** How many redirects within the origin one request follows, as fetch's own limit is 20. */
export const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export interface CheckTarget {
  url: URL;
  /** The HTTP+SSE endpoint (default: `/sse` beside the MCP URL). */
  sseUrl: URL;
  /** Sent with every request but the unauthenticated OAuth probe (`--header`, `--token`). */
  headers: Record<string, string>;
  /**
   * The bearer token for the HTTP+SSE endpoint (`--sse-token`), in place of `headers`'
   * Authorization: behind sign-in `/sse` is a protected resource of its own.
   */
  sseToken?: string;
  /** The browser origin of the CORS probe (default: the MCP Inspector's, `http://localhost:6274`). */
  origin: string;
  /** Each request's deadline. */
  timeoutMs: number;
}

/**
 * The path `name` beside the MCP endpoint: on its base path when the URL ends in `/mcp`
 * (`/x/mcp` → `/x/sse`), else at the origin's root. `sse` is the HTTP+SSE endpoint most servers
 * serve there; `""` is where a durable-mcp deployment describes itself.
 */
export function besideMcp(url: URL, name: string): URL {
  const base = url.pathname.replace(/\/mcp\/?$/, "");
  return new URL(`${base === url.pathname ? "" : base}/${name}`, url.origin);
}

/**
 * `fetch` with the target's deadline; `headers` replace the target's own where both name one.
 * A redirect within the origin is followed, as hosts follow it, when it keeps the method (307,
 * 308, or any for GET and HEAD); one to another origin rejects with `CrossOriginRedirect`; any
 * other comes back as it is.
 */
export async function send(target: CheckTarget, url: URL | string, init: RequestInit & { anonymous?: boolean } = {}): Promise<Response> {
  const { anonymous, headers, ...rest } = init;
  const merged = new Headers(anonymous ? {} : target.headers);
  for (const [name, value] of new Headers(headers)) merged.set(name, value);
  const signal = AbortSignal.timeout(target.timeoutMs);
  const method = (rest.method ?? "GET").toUpperCase();
  let current = new URL(url);
  for (let followed = 0; ; followed++) {
    const response = await fetch(current, { ...rest, headers: merged, signal, redirect: "manual" });
    const location = REDIRECTS.has(response.status) ? response.headers.get("location") : null;
    const keepsMethod = method === "GET" || method === "HEAD" || response.status === 307 || response.status === 308;
    if (location === null || !keepsMethod || followed === MAX_REDIRECTS) return response;
    const next = parsed(location, current);
    if (!next) return response;
    await response.body?.cancel();
    if (next.origin !== current.origin) throw new CrossOriginRedirect(method, current, response.status, next);
    current = next;
  }
}

/** `location` resolved against `base`, or undefined when it is no URL (the response then stands as it is). */
function parsed(location: string, base: URL): URL | undefined {
  try {
    return new URL(location, base);
  } catch {
    return undefined;
  }
}

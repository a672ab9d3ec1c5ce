/**
 * The server under check and how to reach it: the MCP URL, the legacy HTTP+SSE URL beside it,
 * headers to send with every request (a bearer token for a server behind sign-in), the browser
 * origin the CORS probe pretends to be, and one deadline per request. `send` is the only way the
 * probes reach the network, so each request is bounded in time and carries the same headers.
 */
export interface CheckTarget {
  url: URL;
  /** The HTTP+SSE endpoint (default: `/sse` beside the MCP URL). */
  sseUrl: URL;
  /** Sent with every request but the unauthenticated OAuth probe (`--header`, `--token`). */
  headers: Record<string, string>;
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

/** `fetch` with the target's deadline; `headers` replace the target's own where both name one. */
export function send(target: CheckTarget, url: URL | string, init: RequestInit & { anonymous?: boolean } = {}): Promise<Response> {
  const { anonymous, headers, ...rest } = init;
  const merged = new Headers(anonymous ? {} : target.headers);
  for (const [name, value] of new Headers(headers)) merged.set(name, value);
  // Redirects are followed, as hosts follow them (fetch drops Authorization when one leaves the origin).
  return fetch(url, { ...rest, headers: merged, signal: AbortSignal.timeout(target.timeoutMs) });
}

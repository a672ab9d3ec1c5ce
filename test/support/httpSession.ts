/**
 * Test helper: open a session over real HTTP, the way the contract suite drives a server that
 * `startServer` started on either runtime — a legacy HTTP+SSE session (`GET /sse`, then POSTs to
 * the endpoint it names), or a 2025-11-25 Streamable HTTP session (`initialize` on `/mcp`). The
 * HTTP counterpart of `test/runtime/helpers.ts`, which reaches workerd through `SELF.fetch`.
 *
 * Not here: assertions. A session that does not open throws with the status it got.
 *
 * @example
 * const session = await openLegacySession(server.url);
 * await session.post(call(1, "toUpperCase", { input: "hi" }));   // 202
 * await session.reader.nextMessage();                              // { id: 1, result: … }
 */
import { SseReader } from "./SseReader.ts";
import { call, initialize } from "./messages.ts";

export { call, initialize };

export const BOTH = "application/json, text/event-stream";

export interface LegacySession {
  sessionId: string;
  /** The absolute URL the `endpoint` event names. */
  endpoint: string;
  reader: SseReader;
  /** Objects are sent as JSON; strings and bytes are sent as they are. */
  post(body: unknown, init?: RequestInit): Promise<Response>;
}

export async function openLegacySession(baseUrl: string): Promise<LegacySession> {
  const response = await fetch(`${baseUrl}/sse`, { headers: { accept: "text/event-stream" } });
  if (response.status !== 200 || !response.body) throw new Error(`GET /sse answered ${response.status}`);
  const reader = new SseReader(response.body);
  const first = await reader.next();
  if (first.event !== "endpoint") throw new Error(`the first event was ${first.event}, not endpoint`);
  const endpoint = new URL(first.data, baseUrl).href;
  const sessionId = new URL(endpoint).searchParams.get("sessionId")!;
  return { sessionId, endpoint, reader, post: (body, init) => postJson(endpoint, body, init) };
}

export interface StreamableSession {
  sessionId: string;
  /** `Mcp-Session-Id` and `MCP-Protocol-Version`, for every later request of the session. */
  headers: Record<string, string>;
  post(body: unknown, init?: RequestInit): Promise<Response>;
}

export async function openStreamableSession(baseUrl: string, protocolVersion = "2025-11-25"): Promise<StreamableSession> {
  const url = `${baseUrl}/mcp`;
  const init = { headers: { "content-type": "application/json", accept: BOTH } };
  const response = await postJson(url, initialize(0, protocolVersion), init);
  const sessionId = response.headers.get("mcp-session-id");
  await response.arrayBuffer();
  if (response.status !== 200 || !sessionId) throw new Error(`initialize answered ${response.status} without a session id`);
  const headers = { "content-type": "application/json", accept: BOTH, "mcp-session-id": sessionId, "mcp-protocol-version": protocolVersion };
  const initialized = await postJson(url, { jsonrpc: "2.0", method: "notifications/initialized" }, { headers });
  if (initialized.status !== 202) throw new Error(`notifications/initialized answered ${initialized.status}`);
  return { sessionId, headers, post: (body, more = {}) => postJson(url, body, { ...more, headers: { ...headers, ...(more.headers as Record<string, string>) } }) };
}

/** A POST with `content-type: application/json` unless `init.headers` says otherwise. */
export function postJson(url: string, body: unknown, init: RequestInit = {}): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" || body instanceof Uint8Array ? body : JSON.stringify(body),
    ...init,
  });
}

export const MODERN = "2026-07-28";

/**
 * One 2026-07-28 request to `${baseUrl}/mcp`: `_meta` naming the revision and the client's
 * `capabilities`, the `Mcp-Method` header, `Mcp-Name` when `name` is given, and any `headers`
 * besides (a bearer token).
 */
export function postModern(
  baseUrl: string,
  method: string,
  params: Record<string, unknown>,
  { capabilities = {}, name, headers = {} }: { capabilities?: Record<string, unknown>; name?: string; headers?: Record<string, string> } = {},
): Promise<Response> {
  const _meta = { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": capabilities };
  return postJson(`${baseUrl}/mcp`, { jsonrpc: "2.0", id: 1, method, params: { ...params, _meta } }, {
    headers: { "content-type": "application/json", accept: BOTH, "mcp-protocol-version": MODERN, "mcp-method": method, ...(name === undefined ? {} : { "mcp-name": name }), ...headers },
  });
}

/** Shared steps of the runtime tests: open a legacy session, post to it, read its replies. */
import { env, SELF } from "cloudflare:test";
import { vi } from "vitest";
import { SseReader } from "../support/SseReader.ts";
import { call, initialize } from "../support/messages.ts";

export { call, initialize };

export const BASE = "http://durable-mcp.test";

/** The Durable Object that hosts session `sessionId`: the same `idFromName` the Worker uses. */
export function sessionStub(sessionId: string) {
  return env.MCP_SESSION.get(env.MCP_SESSION.idFromName(sessionId));
}

export interface OpenSession {
  sessionId: string;
  endpoint: string;
  reader: SseReader;
  /** Objects are sent as JSON; strings and bytes are sent as they are. */
  post(body: unknown, init?: RequestInit): Promise<Response>;
  /**
   * Ends the session from the server's side — the `end` operation a 2025 client's DELETE sends;
   * HTTP+SSE has no request for it — and reads the stream to the end the server gives it. For
   * tests whose subject is not a client leaving: a stream merely dropped is found gone by the
   * Worker's next keepalive write, which workerd prints ("disconnected: pump canceled").
   */
  close(): Promise<void>;
}

export async function openSession(): Promise<OpenSession> {
  const response = await SELF.fetch(`${BASE}/sse`, { headers: { accept: "text/event-stream" } });
  if (response.status !== 200 || !response.body) throw new Error(`GET /sse answered ${response.status}`);
  const reader = new SseReader(response.body);
  const first = await reader.next();
  if (first.event !== "endpoint") throw new Error(`first event was ${first.event}`);
  const sessionId = new URL(first.data, BASE).searchParams.get("sessionId")!;
  return {
    sessionId,
    endpoint: first.data,
    reader,
    post: (body, init) => post(first.data, body, init),
    close: () => closeSession(sessionId, reader),
  };
}

/** `OpenSession.close` for any session and the streams it has open: ends it as DELETE does, then reads each stream to its end. */
export async function closeSession(sessionId: string, ...streams: SseReader[]): Promise<void> {
  await sessionStub(sessionId).apply({ kind: "end", sessionId });
  for (const stream of streams) {
    for (;;) {
      // Whatever was still on its way, then the end.
      try {
        await stream.next();
      } catch (error) {
        if (String(error).includes("SSE stream ended")) break;
        throw error;
      }
    }
  }
}

export function post(endpoint: string, body: unknown, init: RequestInit = {}): Promise<Response> {
  return SELF.fetch(new URL(endpoint, BASE), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" || body instanceof Uint8Array ? body : JSON.stringify(body),
    ...init,
  });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it returns a truthy value or `timeoutMs` passes. */
export async function eventually<T>(check: () => Promise<T> | T, timeoutMs = 3_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await sleep(20);
  }
}

export const MODERN = "2026-07-28";

/**
 * One 2026-07-28 request through the Worker: `_meta` with the protocol version and
 * `capabilities`, and the `Mcp-Method` header (`headers` adds `Mcp-Name` and the like).
 */
export function postModern(method: string, params: Record<string, unknown> = {}, { headers = {}, capabilities = {} }: { headers?: Record<string, string>; capabilities?: Record<string, unknown> } = {}): Promise<Response> {
  return SELF.fetch(`${BASE}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": MODERN, "mcp-method": method, ...headers },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: nextModernId++,
      method,
      params: { ...params, _meta: { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": capabilities } },
    }),
  });
}
let nextModernId = 1;

/**
 * The lines logged on `console.error` from now until `restore()` — by the test's Worker and its
 * objects too, which run in the test's isolate — kept instead of printed, JSON lines parsed (any
 * other line kept as `{ text }`). For a test that makes its server log an error on purpose: it
 * asserts the lines, so nothing is printed and nothing else is hidden.
 */
export function captureErrorLines(): { lines: Record<string, unknown>[]; restore(): void } {
  const lines: Record<string, unknown>[] = [];
  const spy = vi.spyOn(console, "error").mockImplementation((line: unknown) => {
    try {
      lines.push(JSON.parse(String(line)) as Record<string, unknown>);
    } catch {
      lines.push({ text: String(line) });
    }
  });
  return { lines, restore: () => spy.mockRestore() };
}

/**
 * The requests the probes send, spelled as the hosts that send them do: a 2026-07-28 request
 * carries its revision, client and capabilities in `_meta` and its method in `Mcp-Method`
 * (2026-07-28 transports, "Protocol Version Header"); a 2025 client opens with `initialize` and
 * then sends `MCP-Protocol-Version` on every request.
 */
import { type CheckTarget, send } from "./CheckTarget.ts";
import { type PostOptions, postRpc, type RpcAnswer } from "./postRpc.ts";

export const MODERN_VERSION = "2026-07-28";
export const LEGACY_VERSION = "2025-11-25";
export const CLIENT_INFO = { name: "durable-mcp-check", version: "1.0.0" };

let nextId = 1;

/** A 2026-07-28 request for `method`, with the `_meta` and headers the revision requires. */
export function modernRequest(target: CheckTarget, method: string, params: Record<string, unknown> = {}, options: PostOptions = {}): Promise<RpcAnswer> {
  const _meta = {
    "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
    "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  const headers = { "mcp-protocol-version": MODERN_VERSION, "mcp-method": method, ...options.headers };
  return postRpc(target, { jsonrpc: "2.0", id: nextId++, method, params: { ...params, _meta } }, { ...options, headers });
}

/** A 2025-11-25 `initialize`, sent with no session, as every 2025 client opens. */
export function initialize(target: CheckTarget, options: PostOptions = {}): Promise<RpcAnswer> {
  const params = { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: CLIENT_INFO };
  return postRpc(target, { jsonrpc: "2.0", id: nextId++, method: "initialize", params }, options);
}

/** A 2025 request or notification (no `id`) after `initialize`, in the session `sessionId` if there is one. */
export function legacyMessage(target: CheckTarget, method: string, sessionId?: string | null, notification = false): Promise<RpcAnswer> {
  const headers: Record<string, string> = { "mcp-protocol-version": LEGACY_VERSION };
  if (sessionId) headers["mcp-session-id"] = sessionId;
  const body = notification ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", id: nextId++, method, params: {} };
  return postRpc(target, body, { headers });
}

/** "HTTP 400: <the error's message>" or "HTTP 200: no result", for a finding to quote. */
export function describeAnswer(answer: RpcAnswer): string {
  const detail = answer.message?.error ? `JSON-RPC error ${answer.message.error.code}: ${answer.message.error.message}` : answer.message?.result ? "a result" : answer.text ? JSON.stringify(answer.text.slice(0, 120)) : "no JSON-RPC answer";
  return `HTTP ${answer.status}, ${detail}`;
}

/** Ends a 2025 session the probe opened (transports spec, "Session Management"); a server may refuse with 405. */
export async function closeSession(target: CheckTarget, sessionId: string | null): Promise<void> {
  if (!sessionId) return;
  const response = await send(target, target.url, { method: "DELETE", headers: { "mcp-session-id": sessionId, "mcp-protocol-version": LEGACY_VERSION } }).catch(() => undefined);
  await response?.body?.cancel();
}

/**
 * Which protocol era a POST to `/mcp` belongs to, decided once per request (2026-07-28
 * "Versioning", "Backward Compatibility with Initialization-Based Versions": a dual-era server
 * "selects its behavior from how the client opens"), in two steps: the body first
 * (`namesRevision`), then, only for a body that names no revision, the `MCP-Protocol-Version`
 * header (`eraOfVersionHeader`), so that a 2026-07-28 request reads no header for it.
 *
 * - `stateless` (2026-07-28): the body carries `_meta["io.modelcontextprotocol/protocolVersion"]`, or the
 *   `MCP-Protocol-Version` header names something other than a session revision (2026-07-28, or
 *   a version we do not know, which the stateless path then refuses properly). Served in the
 *   Worker, without a session; an `Mcp-Session-Id` on such a request is ignored, as the spec asks.
 * - `session` (2025-03-26 … 2025-11-25, Streamable HTTP with `Mcp-Session-Id`): everything else — `initialize`, requests with `Mcp-Session-Id`, an earlier
 *   `MCP-Protocol-Version`, or no version at all (2025-03-26 clients send none).
 */
import type { JsonRpcMessage } from "../jsonrpc/messages.ts";
import { META } from "../protocol/metaKeys.ts";
import { isModernVersion, isSupportedVersion } from "../protocol/versions.ts";

/** Named for how each is served, so neither is confused with "legacy" (2024-11-05 HTTP+SSE, `/sse`). */
export type Era = "stateless" | "session";

/** A single message that names its revision in `_meta`: stateless, whatever the headers say. */
export function namesRevision(messages: readonly JsonRpcMessage[], batch: boolean): boolean {
  return !batch && messages.length === 1 && carriesVersionMeta(messages[0]!);
}

/** The era of a POST whose body names no revision, from its `MCP-Protocol-Version` header (null when absent). */
export function eraOfVersionHeader(header: string | null, batch: boolean): Era {
  if (header === null || isSupportedVersion(header)) return "session";
  // A batch is a 2025-03-26 construct whatever its header says.
  return batch ? "session" : "stateless";
}

/** A message whose `params._meta` names a protocol version: how a 2026-07-28 request says what it is, on any transport. */
export function carriesVersionMeta(message: JsonRpcMessage): boolean {
  const meta = "method" in message ? message.params?._meta : undefined;
  return meta !== null && typeof meta === "object" && META.protocolVersion in meta;
}

/**
 * The same decision for a GET or DELETE, which has no body: only a header naming a stateless
 * revision (2026-07-28) makes it stateless. An unknown version stays on the session path, which answers it 400
 * as 2025-11-25 requires.
 */
export function classifyBodiless(headers: Headers): Era {
  return isModernVersion(headers.get("mcp-protocol-version")) ? "stateless" : "session";
}

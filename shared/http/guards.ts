/**
 * Pure request guards: each returns a `Checked` value — what it checked, or the `McpError` that
 * refuses the request. Routes compose them in order; none throws, none reads the body.
 */
import { type Checked, PASSED, passed, refused } from "../errors/Checked.ts";
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";
import { isSupportedVersion, type ProtocolVersion, SUPPORTED_PROTOCOL_VERSIONS } from "../protocol/versions.ts";
import { requestHeaders } from "./requestHeaders.ts";

/** Session ids this server mints: 128 random bits as 32 lowercase hex digits (`newSessionId()`). */
export const SESSION_ID_PATTERN = /^[0-9a-f]{32}$/;

/** `application/json`, optionally with `charset=utf-8`; anything else is 415. */
export function requireJsonContentType(request: Request): Checked {
  const header = requestHeaders(request).get("content-type");
  // What every client sends, checked without splitting anything.
  if (header === "application/json" || header === "application/json; charset=utf-8") return PASSED;
  const [type = "", ...params] = (header ?? "").split(";").map((part) => part.trim().toLowerCase());
  if (type !== "application/json") {
    return refused(new McpError(415, ErrorCode.InvalidRequest, `Content-Type must be application/json, got ${header === null ? "none" : JSON.stringify(header)}`));
  }
  const charset = params.find((p) => p.startsWith("charset="))?.slice("charset=".length).replace(/"/g, "");
  if (charset !== undefined && charset !== "utf-8" && charset !== "utf8") {
    return refused(new McpError(415, ErrorCode.InvalidRequest, `Only UTF-8 JSON is accepted, got charset ${JSON.stringify(charset)}`));
  }
  return PASSED;
}

/** The `sessionId` query parameter of the legacy POST endpoint: present and well-formed. */
export function requireSessionId(url: URL): Checked<string> {
  const sessionId = url.searchParams.get("sessionId");
  if (sessionId === null || sessionId === "") {
    return refused(new McpError(400, ErrorCode.InvalidRequest, "Missing sessionId query parameter; open a session with GET /sse first"));
  }
  if (!SESSION_ID_PATTERN.test(sessionId)) {
    return refused(new McpError(400, ErrorCode.InvalidRequest, "Malformed sessionId: expected 32 lowercase hex digits as sent in the endpoint event"));
  }
  return passed(sessionId);
}

/**
 * The `Mcp-Session-Id` header of a Streamable HTTP request: 400 when absent, 404 when it cannot be
 * ours. `sessionId`: the header, where the caller has read it already (each read is a platform call).
 */
export function requireMcpSessionId(request: Request, sessionId = requestHeaders(request).get("mcp-session-id")): Checked<string> {
  if (sessionId === null || sessionId === "") {
    return refused(new McpError(400, ErrorCode.InvalidRequest, "Missing Mcp-Session-Id header; initialize a session first"));
  }
  if (!SESSION_ID_PATTERN.test(sessionId)) {
    // Not an id this server mints, so no such session: 404 tells the client to initialize anew.
    return refused(new McpError(404, ErrorCode.InvalidRequest, "Unknown session: initialize a new one"));
  }
  return passed(sessionId);
}

/**
 * The `Accept` header lists every media type in `needed` (or a wildcard covering it); 406
 * otherwise. Streamable HTTP clients MUST accept both JSON and SSE on POST, SSE on GET.
 */
export function requireAccept(request: Request, needed: readonly string[]): Checked {
  const header = requestHeaders(request).get("accept") ?? "";
  if (needed.every((type) => listsExactly(header, type))) return PASSED;
  const offered = header.split(",").map((part) => part.split(";")[0]!.trim().toLowerCase());
  const accepts = (type: string) => offered.includes(type) || offered.includes("*/*") || offered.includes(`${type.split("/")[0]}/*`);
  const missing = needed.filter((type) => !accepts(type));
  if (missing.length === 0) return PASSED;
  return refused(new McpError(406, ErrorCode.InvalidRequest, `Accept must include ${needed.join(" and ")}; missing ${missing.join(", ")}`));
}

/**
 * Whether the Accept value names `type` as one whole entry (between list separators, before any
 * parameters): the common case, found without splitting the header into arrays.
 */
function listsExactly(header: string, type: string): boolean {
  const at = header.indexOf(type);
  if (at < 0) return false;
  const before = at === 0 ? "," : header[at - 1]!;
  const after = header[at + type.length] ?? ",";
  return (before === "," || before === " ") && (after === "," || after === ";" || after === " ");
}

/**
 * The `MCP-Protocol-Version` header of a session request (transports spec, "Protocol Version
 * Header"): absent means 2025-03-26 for backwards compatibility; present but unsupported is a 400.
 * `header`: its value, where the caller has read it already (each read is a platform call).
 */
export function requireProtocolVersion(request: Request, header = requestHeaders(request).get("mcp-protocol-version")): Checked<ProtocolVersion> {
  if (header === null) return passed("2025-03-26");
  if (isSupportedVersion(header)) return passed(header);
  return refused(new McpError(400, ErrorCode.InvalidRequest, `Unsupported MCP-Protocol-Version ${JSON.stringify(header)}; supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")}`));
}

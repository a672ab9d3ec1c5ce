/**
 * Pure request guards: each returns an `McpError` value when the request must be refused, and
 * `undefined` when it may go on. Routes compose them in order; none throws, none reads the body.
 */
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";

/** Session ids this server mints: 128 random bits as 32 lowercase hex digits (`newSessionId()`). */
export const SESSION_ID_PATTERN = /^[0-9a-f]{32}$/;

/** `application/json`, optionally with `charset=utf-8`; anything else is 415. */
export function requireJsonContentType(request: Request): McpError | undefined {
  const header = request.headers.get("content-type");
  const [type = "", ...params] = (header ?? "").split(";").map((part) => part.trim().toLowerCase());
  if (type !== "application/json") {
    return new McpError(415, ErrorCode.InvalidRequest, `Content-Type must be application/json, got ${header === null ? "none" : JSON.stringify(header)}`);
  }
  const charset = params.find((p) => p.startsWith("charset="))?.slice("charset=".length).replace(/"/g, "");
  if (charset !== undefined && charset !== "utf-8" && charset !== "utf8") {
    return new McpError(415, ErrorCode.InvalidRequest, `Only UTF-8 JSON is accepted, got charset ${JSON.stringify(charset)}`);
  }
  return undefined;
}

/** The `sessionId` query parameter of the legacy POST endpoint: present and well-formed. */
export function requireSessionId(url: URL): { ok: true; sessionId: string } | { ok: false; error: McpError } {
  const sessionId = url.searchParams.get("sessionId");
  if (sessionId === null || sessionId === "") {
    return { ok: false, error: new McpError(400, ErrorCode.InvalidRequest, "Missing sessionId query parameter; open a session with GET /sse first") };
  }
  if (!SESSION_ID_PATTERN.test(sessionId)) {
    return { ok: false, error: new McpError(400, ErrorCode.InvalidRequest, "Malformed sessionId: expected 32 lowercase hex digits as sent in the endpoint event") };
  }
  return { ok: true, sessionId };
}

/** The `Mcp-Session-Id` header of a Streamable HTTP request: 400 when absent, 404 when it cannot be ours. */
export function requireMcpSessionId(request: Request): { ok: true; sessionId: string } | { ok: false; error: McpError } {
  const sessionId = request.headers.get("mcp-session-id");
  if (sessionId === null || sessionId === "") {
    return { ok: false, error: new McpError(400, ErrorCode.InvalidRequest, "Missing Mcp-Session-Id header; initialize a session first") };
  }
  if (!SESSION_ID_PATTERN.test(sessionId)) {
    // Not an id this server mints, so no such session: 404 tells the client to initialize anew.
    return { ok: false, error: new McpError(404, ErrorCode.InvalidRequest, "Unknown session: initialize a new one") };
  }
  return { ok: true, sessionId };
}

/**
 * The `Accept` header lists every media type in `needed` (or a wildcard covering it); 406
 * otherwise. Streamable HTTP clients MUST accept both JSON and SSE on POST, SSE on GET.
 */
export function requireAccept(request: Request, needed: readonly string[]): McpError | undefined {
  const header = request.headers.get("accept") ?? "";
  const offered = header.split(",").map((part) => part.split(";")[0]!.trim().toLowerCase());
  const accepts = (type: string) => offered.includes(type) || offered.includes("*/*") || offered.includes(`${type.split("/")[0]}/*`);
  const missing = needed.filter((type) => !accepts(type));
  if (missing.length === 0) return undefined;
  return new McpError(406, ErrorCode.InvalidRequest, `Accept must include ${needed.join(" and ")}; missing ${missing.join(", ")}`);
}

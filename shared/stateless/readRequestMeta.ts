/**
 * The per-request `_meta` of a 2026-07-28 request, checked in the order the spec's errors imply
 * (and the referee probes): the `MCP-Protocol-Version` header must exist (-32020), the required
 * `_meta` keys must exist (-32602), header and body must agree (-32020), and the version must be
 * one we serve (-32022, listing them). Every failure is HTTP 400.
 *
 * A transport with no header layer (stdio and other message streams: "All request metadata for
 * the stdio transport is carried inline") passes no headers, and the header checks do not apply.
 */
import { type Checked, passed, refused } from "../errors/Checked.ts";
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";
import { isLogLevel, type LogLevel } from "../protocol/logLevels.ts";
import { META } from "../protocol/metaKeys.ts";
import { isModernVersion, MODERN_PROTOCOL_VERSIONS, type ModernProtocolVersion, type ProtocolVersion } from "../protocol/versions.ts";
import { isObject } from "../jsonrpc/isObject.ts";
import type { Implementation } from "../definition/types.ts";

export interface RequestMeta {
  /** A 2025 revision only for a request sent without a session (`sessionlessPost`). */
  protocolVersion: ModernProtocolVersion | ProtocolVersion;
  clientCapabilities: Record<string, unknown>;
  clientInfo?: Implementation;
  /** Only when the request asked for log notifications. */
  logLevel?: LogLevel;
  progressToken?: string | number;
}

export function readRequestMeta(headers: Headers | undefined, params: Record<string, unknown> | undefined): Checked<RequestMeta> {
  const header = headers ? headers.get("mcp-protocol-version") : undefined;
  if (header === null) return refused(new McpError(400, ErrorCode.HeaderMismatch, "Missing MCP-Protocol-Version header"));
  const meta = params?._meta;
  if (!isObject(meta)) return refused(McpError.invalidParams(`Missing params._meta with "${META.protocolVersion}" and "${META.clientCapabilities}"`));
  const version = meta[META.protocolVersion];
  if (typeof version !== "string") return refused(McpError.invalidParams(`Missing _meta["${META.protocolVersion}"]`));
  const capabilities = meta[META.clientCapabilities];
  if (!isObject(capabilities)) return refused(McpError.invalidParams(`Missing _meta["${META.clientCapabilities}"] (send {} for none)`));
  if (header !== undefined && header.trim() !== version) {
    return refused(new McpError(400, ErrorCode.HeaderMismatch, `MCP-Protocol-Version header ${JSON.stringify(header)} does not match _meta protocol version ${JSON.stringify(version)}`));
  }
  if (!isModernVersion(version)) {
    return refused(new McpError(400, ErrorCode.UnsupportedProtocolVersion, "Unsupported protocol version", {
      supported: [...MODERN_PROTOCOL_VERSIONS],
      requested: version,
    }));
  }
  const result: RequestMeta = { protocolVersion: version, clientCapabilities: capabilities };
  const info = meta[META.clientInfo];
  if (isObject(info) && typeof info.name === "string" && typeof info.version === "string") result.clientInfo = info as unknown as Implementation;
  const level = meta[META.logLevel];
  if (level !== undefined) {
    if (!isLogLevel(level)) return refused(McpError.invalidParams(`Invalid _meta["${META.logLevel}"]: ${JSON.stringify(level)}`));
    result.logLevel = level;
  }
  const token = meta.progressToken;
  if (typeof token === "string" || typeof token === "number") result.progressToken = token;
  return passed(result);
}

/**
 * `durable-mcp/protocol`: the protocol's own constants, for code that speaks MCP beside a server
 * definition (a transport of your own, a test that reads the wire): the revisions served, the
 * JSON-RPC error codes an `McpError` carries, and the identifiers of the extensions the
 * definition's `extensions` offer. A server definition needs none of them.
 *
 * @example
 * import { ErrorCode } from "durable-mcp/protocol";
 * throw new McpError(409, ErrorCode.InvalidRequest, "That note was changed meanwhile; read it again");
 */
export { ErrorCode, type ErrorCodeValue } from "./errors/errorCodes.ts";
export { LATEST_PROTOCOL_VERSION, MODERN_PROTOCOL_VERSIONS, type ModernProtocolVersion, type ProtocolVersion, SUPPORTED_PROTOCOL_VERSIONS } from "./protocol/versions.ts";
export type { LogLevel } from "./protocol/logLevels.ts";
export { APPS_EXTENSION, VIEW_MIME_TYPE } from "../capabilities/apps/appsExtension.ts";
export { SKILLS_EXTENSION } from "../capabilities/skills/skills.ts";
export { TASKS_EXTENSION } from "./methods/tasksExtension.ts";

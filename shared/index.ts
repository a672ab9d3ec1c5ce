/**
 * durable-mcp's runtime-agnostic core: what a server author and a runtime host import.
 * Web-standard APIs only (no `node:`, no `cloudflare:`), so Workers, Deno and Node all run it.
 */

// Defining a server
export { defineServer, tool } from "./server/defineServer.ts";
export { McpServer } from "./server/McpServer.ts";
export { toolError } from "./server/callTool.ts";
export type * from "./server/types.ts";

// Errors
export { McpError } from "./errors/McpError.ts";
export { ErrorCode } from "./errors/errorCodes.ts";

// Protocol
export { SUPPORTED_PROTOCOL_VERSIONS, LATEST_PROTOCOL_VERSION, negotiateVersion } from "./protocol/versions.ts";
export type { LogLevel } from "./protocol/logLevels.ts";

// Hosting a session (for runtime adapters)
export { Session, type SessionDeps, type ReceiveOutcome } from "./session/Session.ts";
export type { SessionStorage } from "./session/SessionStorage.ts";
export { MemoryStorage } from "./session/MemoryStorage.ts";
export { readConfig, DEFAULT_CONFIG, type Config } from "./config/readConfig.ts";
export { Logger } from "./log/Logger.ts";

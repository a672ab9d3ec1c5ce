/**
 * durable-mcp's runtime-agnostic core: what a server author and a runtime host import.
 * Web-standard APIs only (no `node:`, no `cloudflare:`), so Workers, Deno and Node all run it.
 */

// Defining a server
export { defineServer, tool, prompt, resourceTemplate } from "./server/defineServer.ts";
export { McpServer } from "./server/McpServer.ts";
export type * from "./server/types.ts";
export type { ListKind } from "./server/ListKind.ts";

// Tools
export { toolError } from "./server/callTool.ts";

// Resources
export type { ResourceDefinition, ResourceTemplateDefinition, ResourceReturn, TemplateVariables } from "./server/ResourceDefinition.ts";
export { UriTemplate } from "./server/UriTemplate.ts";
export { toBase64 } from "./server/toBase64.ts";

// Prompts
export type { PromptDefinition, PromptMessage, GetPromptResult, PromptArguments } from "./server/PromptDefinition.ts";
export type { PromptArgument } from "./server/promptArguments.ts";

// Completion
export { MAX_COMPLETION_VALUES } from "./server/completionMethods.ts";

// Errors
export { McpError } from "./errors/McpError.ts";
export { ErrorCode } from "./errors/errorCodes.ts";

// Protocol
export { SUPPORTED_PROTOCOL_VERSIONS, LATEST_PROTOCOL_VERSION, negotiateVersion } from "./protocol/versions.ts";
export type { LogLevel } from "./protocol/logLevels.ts";

// Hosting a session (for runtime adapters)
export type { SessionHooks, Negotiated } from "./server/McpServer.ts";
export { Session, type SessionDeps } from "./session/Session.ts";
export { SessionEndpoint, type SessionApi, type ReceiveOutcome } from "./session/SessionEndpoint.ts";
export type { SessionStorage } from "./session/SessionStorage.ts";
export { MemoryStorage } from "./session/MemoryStorage.ts";
export { readConfig, DEFAULT_CONFIG, type Config } from "./config/readConfig.ts";
export { Logger, stderrSink } from "./log/Logger.ts";

// Serving over stdin/stdout (desktop clients)
export { serveStdio, type StdioOptions } from "./stdio/serveStdio.ts";

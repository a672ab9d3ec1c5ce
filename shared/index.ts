/**
 * `durable-mcp`: defining a server — its tools, resources and prompts, and the context their
 * handlers get. Serving it is one of the runtime entries: `durable-mcp/cloudflare` (a Worker, one
 * Durable Object per session), `durable-mcp/deno`, `durable-mcp/node`, `durable-mcp/stdio`;
 * `durable-mcp/transport` for transports of your own; `durable-mcp/protocol` for the protocol's
 * constants (versions, error codes, extension ids). Web-standard APIs only (no `node:`, no
 * `cloudflare:`), so Workers, Deno, Node and bundlers all take it.
 *
 * @example
 * import * as z from "zod/mini";
 * import { defineServer, tool } from "durable-mcp";
 *
 * export default defineServer({
 *   name: "my-server", version: "1.0.0", toJsonSchema: z.toJSONSchema,
 *   tools: [tool({ name: "shout", description: "Upper-cases text", input: z.object({ text: z.string() }), handler: async ({ text }) => text.toUpperCase() })],
 * });
 */

// Plain JSON Schema as a Standard Schema: its validator ships only in a Worker that calls it.
// First, because the bundler lays modules out in import order and such a Worker gzips smaller
// with the validator ahead of the core.
export { jsonSchema, type JsonSchemaObject } from "./schema/jsonSchema.ts";

// Defining a server
export { defineServer, tool } from "./server/defineServer.ts";
export { prompt } from "./server/prompt.ts";
export { resource, resourceTemplate } from "./server/resource.ts";
export type { ServerDefinition } from "./server/ServerDefinition.ts";
export type { CacheableMethod, CacheHint, HandlerErrorInfo, ServerOptions } from "./definition/ServerOptions.ts";
export type { InferInput, InferOutput, JsonSchemaConverter, StandardSchemaV1 } from "./schema/standardSchema.ts";

// Tools
export { toolError } from "./methods/callTool.ts";
export type { AnyToolDefinition, HandlerReturn, TaskOptions, TaskSupport, ToolDefinition, ToolReturn } from "./definition/ToolDefinition.ts";

// Resources
export type { ResourceDefinition, ResourceReturn, ResourceTemplateDefinition, TemplateVariables } from "./definition/ResourceDefinition.ts";

// Prompts and completion
export type { GetPromptResult, PromptArguments, PromptDefinition, PromptMessage } from "./definition/PromptDefinition.ts";
export type { PromptArgument } from "./methods/promptArguments.ts";

// Capabilities (the definition's `use`): each factory brings its code, so a server without one ships none of it
export type { Extension, ExtensionParts } from "./definition/ServerOptions.ts";
export { apps } from "../capabilities/apps/apps.ts";
export { view, type View, type ViewCsp, type ViewDefinition, type ViewPermissions } from "../capabilities/apps/view.ts";
export { rendersViews } from "../capabilities/apps/appsExtension.ts";
export type { ToolView, ToolVisibility } from "./definition/ToolView.ts";
export { skills, type SkillsOptions } from "../capabilities/skills/skills.ts";
export { tasks } from "../capabilities/tasks/tasks.ts";
export { watch } from "../capabilities/watch/watch.ts";
export { homes } from "../capabilities/homes/homes.ts";
export { skill, type Skill, type SkillDefinition, type SkillFile } from "../capabilities/skills/skill.ts";

// What a handler gets
export type {
  ClientView,
  Completer,
  ContextIn,
  HomeContext,
  HomeStorage,
  CompletionContext,
  CreateMessageParams,
  CreateMessageResult,
  ElicitParams,
  ElicitResult,
  InputOptions,
  ListRootsResult,
  RequestContext,
  SamplingMessage,
  ServerEnv,
  SessionContext,
  SqlDatabase,
  SqlRows,
  SqlValue,
} from "./definition/RequestContext.ts";
export type { HandleHome, Home } from "./definition/Home.ts";
export type { HandlerStorage, KeyValueStore } from "./storage/KeyValueStore.ts";
export type { ListFeature, ListKind } from "./definition/ListKind.ts";
export type * from "./definition/types.ts";

// Operating it: traces and metrics (`otlp()` in the definition's `use`)
export { otlp } from "../capabilities/telemetry/otlp.ts";
export type { RequestOrigin, RequestSpan, Telemetry, TelemetryFactory, TelemetryServices } from "./telemetry/Telemetry.ts";

// Authorization (the router's `authorization` and `rateLimits` options)
export type { AuthorizationOptions } from "../capabilities/oauth/OAuthResourceServer.ts";
export type { Authorization } from "./auth/Authorization.ts";
export { oauth } from "../capabilities/oauth/oauth.ts";
export type { Principal } from "./auth/Principal.ts";
export type { TokenVerifier } from "../capabilities/oauth/TokenVerifier.ts";
export { jwtVerifier, type JwtVerifierOptions } from "../capabilities/oauth/jwtVerifier.ts";
export type { RateLimits } from "../capabilities/oauth/OAuthGatekeeper.ts";
export type { RateLimitPolicy } from "./auth/RateLimitPolicy.ts";
export { rateLimits } from "../capabilities/oauth/rateLimits.ts";
export type { RateLimit } from "../capabilities/oauth/RateLimiter.ts";

// Errors: a protocol error a handler throws (`McpError.invalidParams("…")`; codes in `durable-mcp/protocol`)
export { McpError } from "./errors/McpError.ts";
export type { LogLevel } from "./protocol/logLevels.ts";

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

// Defining a server. The types are those a definition split over several files names; smaller
// ones are reached through them (`ServerOptions["caching"]`, `RequestContext["client"]`).
export { defineServer, tool } from "./server/defineServer.ts";
export { prompt } from "./server/prompt.ts";
export { resource, resourceTemplate } from "./server/resource.ts";
export type { ServerDefinition } from "./server/ServerDefinition.ts";
export type { ServerOptions } from "./definition/ServerOptions.ts";

// Tools
export { toolError } from "./methods/callTool.ts";
export type { AnyToolDefinition, ToolDefinition } from "./definition/ToolDefinition.ts";

// Resources
export type { ResourceDefinition, ResourceTemplateDefinition } from "./definition/ResourceDefinition.ts";

// Prompts
export type { PromptDefinition, PromptMessage } from "./definition/PromptDefinition.ts";

// What a handler returns
export type { CallToolResult, ContentBlock, ResourceContents } from "./definition/types.ts";

// Capabilities (the definition's `use`): each factory brings its code, so a server without one ships none of it
export type { Extension, ExtensionParts } from "./definition/ServerOptions.ts";
export { type AppsOptions, apps } from "../capabilities/apps/apps.ts";
export { view, type View, type ViewDefinition } from "../capabilities/apps/view.ts";
export { rendersViews } from "../capabilities/apps/appsExtension.ts";
export { skills, type SkillsOptions } from "../capabilities/skills/skills.ts";
export { tasks } from "../capabilities/tasks/tasks.ts";
export { watch } from "../capabilities/watch/watch.ts";
export { homes } from "../capabilities/homes/homes.ts";
export { skill, type Skill, type SkillDefinition } from "../capabilities/skills/skill.ts";

// What a handler gets
export type {
  Completer,
  CompletionContext,
  ContextIn,
  CreateMessageParams,
  ElicitParams,
  HomeContext,
  HomeStorage,
  RequestContext,
  ServerEnv,
  SessionContext,
} from "./definition/RequestContext.ts";
export type { HandlerStorage } from "./storage/KeyValueStore.ts";

// Operating it: traces and metrics (`otlp()` in the definition's `use`)
export { otlp } from "../capabilities/telemetry/otlp.ts";

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
export type { DpopOptions } from "../capabilities/oauth/DpopGuard.ts";
// DPoP at an authorization server's token endpoint, on any runtime: the resource server's own proof check and replay store.
export { checkDpopProof } from "../capabilities/oauth/checkDpopProof.ts";
export { DpopReplayStore } from "../capabilities/oauth/DpopReplayStore.ts";

// Errors: a protocol error a handler throws (`McpError.invalidParams("…")`; codes in `durable-mcp/protocol`)
export { McpError } from "./errors/McpError.ts";

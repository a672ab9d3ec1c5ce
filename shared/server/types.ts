/**
 * The shapes a server author touches: tools, content blocks, results, and the context a handler
 * gets. Resources live in `ResourceDefinition.ts` and prompts in `PromptDefinition.ts`; all three
 * follow one pattern (a name, a description, a schema, an async function taking a `RequestContext`).
 *
 * Wire shapes follow the MCP 2025-11-25 schema (`schema/2025-11-25/schema.ts`); `icons` are not
 * modelled yet.
 */
import type { RequestId } from "../jsonrpc/messages.ts";
import type { LogLevel } from "../protocol/logLevels.ts";
import type { SessionStorage } from "../session/SessionStorage.ts";
import type { ListKind } from "./ListKind.ts";
import type { PromptDefinition } from "./PromptDefinition.ts";
import type { ResourceDefinition, ResourceTemplateDefinition } from "./ResourceDefinition.ts";
import type { InferInput, InferOutput, JsonSchemaConverter, StandardSchemaV1 } from "./standardSchema.ts";

/** MCP `Implementation`: who a client or server says it is. */
export interface Implementation {
  name: string;
  version: string;
  title?: string;
}

/** MCP `Role`: who speaks a prompt message, or whom a piece of content is for. */
export type Role = "user" | "assistant";

/** MCP `Annotations`: display hints on content and resources (resources spec, "Annotations"). */
export interface Annotations {
  audience?: Role[];
  /** 0 (entirely optional) to 1 (effectively required). */
  priority?: number;
  /** ISO 8601, e.g. "2025-01-12T15:00:58Z". */
  lastModified?: string;
}

/** The `_meta` field the schema allows on most objects (basic spec, "General fields: _meta"). */
export type Meta = Record<string, unknown>;

/** Hints about a tool's behaviour (MCP `ToolAnnotations`); clients must not trust them blindly. */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** MCP `TextResourceContents` / `BlobResourceContents`: what `resources/read` answers with. */
export type ResourceContents =
  | { uri: string; mimeType?: string; text: string; _meta?: Meta }
  | { uri: string; mimeType?: string; /** base64 */ blob: string; _meta?: Meta };

interface BlockExtras {
  annotations?: Annotations;
  _meta?: Meta;
}

/** MCP `ContentBlock`: one piece of a tool result or a prompt message. */
export type ContentBlock = BlockExtras &
  (
    | { type: "text"; text: string }
    | { type: "image"; /** base64 */ data: string; mimeType: string }
    | { type: "audio"; /** base64 */ data: string; mimeType: string }
    | { type: "resource_link"; uri: string; name: string; title?: string; mimeType?: string; description?: string; size?: number }
    /** An embedded resource (MCP `EmbeddedResource`), e.g. a file's text inside a prompt. */
    | { type: "resource"; resource: ResourceContents }
  );

export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Meta;
}

/** What the session knows about its client, as negotiated by `initialize`. */
export interface SessionInfo {
  id: string;
  protocolVersion: string;
  clientInfo?: Implementation;
  clientCapabilities?: Record<string, unknown>;
}

/** Everything a handler may use besides its arguments. One object per request. */
export interface RequestContext {
  /** Aborted when the client cancels, disconnects, or the handler times out. Pass it to `fetch`. */
  signal: AbortSignal;
  requestId: RequestId;
  session: SessionInfo;
  /**
   * Reports progress if the client asked for it (`_meta.progressToken`); a no-op otherwise.
   * Resolves once the notification is queued: a handler that reports faster than the client
   * reads is slowed down, never buffered without limit.
   */
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /** Sends `notifications/message` if `level` passes the client's `logging/setLevel` threshold. */
  log(level: LogLevel, data: unknown, logger?: string): Promise<void>;
  /** This session's own key-value storage; durable on Workers. Gone when the session ends. */
  storage: Omit<SessionStorage, "deleteAll">;
  /** The runtime's environment (Worker `env`, or the Deno host's variables). */
  env: Readonly<Record<string, unknown>>;
  /**
   * Asks the client's model for a completion (`sampling/createMessage`) and waits for the
   * answer. Needs the client's `sampling` capability; rejects with a readable error otherwise,
   * or when the client declines or does not answer before the handler's deadline.
   *
   * The same call works in both eras. On a 2025 session it is a request to the client on this
   * request's stream. On 2026-07-28 it is a multi round-trip request: the first round answers
   * the client with an `InputRequiredResult` asking for it, and the handler runs again, from the
   * top, when the client retries with the answer (see `shared/stateless/InputRounds.ts`), so
   * reach asks deterministically and do side effects after them. `options.key` names the ask in
   * `inputRequests`; without it asks are numbered per kind (`sampling-1`, …). Asks made together
   * with `Promise.all` go to the client together.
   *
   * @example const { content } = await ctx.sample({ messages: [{ role: "user", content: { type: "text", text: "Hi" } }], maxTokens: 100 });
   */
  sample(params: Record<string, unknown>, options?: InputOptions): Promise<Record<string, unknown>>;
  /** Asks the user for input through the client (`elicitation/create`, form or URL mode); needs `elicitation`. Both eras, as `sample`. */
  elicit(params: Record<string, unknown>, options?: InputOptions): Promise<Record<string, unknown>>;
  /** The client's filesystem roots (`roots/list`); needs the client's `roots` capability. Both eras, as `sample`. */
  listRoots(options?: InputOptions): Promise<Record<string, unknown>>;
  /**
   * Streamable HTTP only (SEP-1699 polling): ends the HTTP connection carrying this request's
   * stream without ending the stream. The client reconnects with `Last-Event-ID` and receives
   * everything sent meanwhile. A no-op on the legacy transport.
   */
  closeStream(): void;
  /**
   * Tells the clients watching `uri` that the resource changed (`notifications/resources/updated`):
   * this session's client if it subscribed (on its standalone stream, stored for resumption, or
   * its legacy stream), and every 2026-07-28 `subscriptions/listen` stream that lists `uri`, in any
   * isolate.
   */
  resourceUpdated(uri: string): Promise<void>;
  /**
   * Tells every client listening for it that a list changed for everyone (e.g. tools read from
   * configuration that was just edited): `notifications/tools/list_changed` (or prompts,
   * resources) on each 2026-07-28 `subscriptions/listen` stream that asked for it, in any
   * isolate, and on this request's stream for a 2025 session. Advertise it with
   * `listChanged` in the server definition.
   */
  listChanged(kind: "tools" | "prompts" | "resources"): Promise<void>;
  /**
   * Switches a definition declared with `enabled` on or off for this session only, and tells the
   * client (`notifications/tools/list_changed` and kin, on this request's stream) if its listing
   * changed. `id` is the tool or prompt name, the resource URI or the template's `uriTemplate`.
   * Persisted with the session. Throws TypeError for a definition not declared with `enabled`.
   *
   * @example await ctx.setEnabled("tool", "deleteAccount", true)
   */
  setEnabled(kind: ListKind, id: string, enabled: boolean): Promise<void>;
}

/** How a handler names one ask to the client (2026-07-28 `inputRequests` key). */
export interface InputOptions {
  key?: string;
}

/**
 * What a completer gets besides the typed-so-far value: the request's context plus the values the
 * client already chose for the other arguments (`context.arguments` of `completion/complete`).
 */
export interface CompletionContext extends RequestContext {
  /** `{}` when the client sent none. */
  arguments: Readonly<Record<string, string>>;
}

/**
 * Suggests values for one prompt argument or template variable (MCP completion spec). Return
 * them best first; the server sends at most 100 and reports the full count as `total`.
 *
 * @example (value) => ["python", "pytorch", "rust"].filter((v) => v.startsWith(value))
 */
export type Completer = (value: string, context: CompletionContext) => string[] | Promise<string[]>;

/** A JSON Schema whose root describes an object, as MCP requires of tool input and output schemas. */
export type JsonSchemaObject = { type: "object"; [key: string]: unknown };

interface ToolBase {
  /** Unique within the server; 1–128 characters of [A-Za-z0-9_.-]. */
  name: string;
  title?: string;
  description: string;
  annotations?: ToolAnnotations;
  /**
   * Makes it switchable per session with `ctx.setEnabled`, starting in this state. Leave it out
   * for a definition that is always on (see `ListKind.ts`).
   */
  enabled?: boolean;
}

/**
 * A tool whose arguments (and, optionally, output) are described with a Standard Schema: zod 4
 * (classic, or mini with `toJsonSchema` in the server definition), valibot, arktype…
 */
export interface ToolDefinition<Input extends StandardSchemaV1 = StandardSchemaV1, Output extends StandardSchemaV1 | undefined = StandardSchemaV1 | undefined> extends ToolBase {
  /** Validated before the handler runs; advertised as JSON Schema. With zod, `z.strictObject` refuses extra keys. */
  input: Input;
  /** When set, the handler returns this shape; it goes out as `structuredContent` plus a JSON text block. */
  output?: Output;
  inputSchema?: never;
  outputSchema?: never;
  handler(args: InferOutput<Input>, ctx: RequestContext): Promise<HandlerReturn<Output>>;
}

/**
 * A tool described by a raw JSON Schema instead of a schema library: advertised verbatim (`$schema` kept) and
 * validated with `@cfworker/json-schema`. Dialect from `$schema`: 2020-12 (the MCP default when
 * absent), 2019-09, draft-07 or draft-04.
 *
 * @example
 * tool({ name: "greet", description: "Greets",
 *        inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
 *        handler: async (args) => `Hello ${String(args.name)}` })
 */
export interface JsonSchemaToolDefinition extends ToolBase {
  inputSchema: JsonSchemaObject;
  /** When set, the handler returns an object matching it (or a full `CallToolResult`). */
  outputSchema?: JsonSchemaObject;
  input?: never;
  output?: never;
  handler(args: Record<string, unknown>, ctx: RequestContext): Promise<ToolReturn | Record<string, unknown>>;
}

/** Either kind of tool, as a server definition holds them. */
export type AnyToolDefinition = ToolDefinition<any, any> | JsonSchemaToolDefinition;

/** Without an output schema a handler returns plain text or a full result. */
export type ToolReturn = string | CallToolResult;

/** With an output schema it returns the structured value (or a full result, e.g. an error). */
export type HandlerReturn<Output> = Output extends StandardSchemaV1 ? InferInput<Output> | CallToolResult : ToolReturn;

export interface ServerDefinition {
  name: string;
  version: string;
  title?: string;
  /** Sent in the `initialize` result: how a model should use this server. */
  instructions?: string;
  /**
   * The JSON Schema converter of your schema library, for schemas that do not carry one
   * (`~standard.jsonSchema`): zod/mini's, so that its converter is bundled only when used.
   *
   * @example import * as z from "zod/mini"; defineServer({ …, toJsonSchema: z.toJSONSchema })
   */
  toJsonSchema?: JsonSchemaConverter;
  tools?: AnyToolDefinition[];
  /** Fixed resources, listed by `resources/list`. */
  resources?: ResourceDefinition[];
  /** Parameterised resources, listed by `resources/templates/list`; tried in order by `resources/read`. */
  resourceTemplates?: ResourceTemplateDefinition<any>[];
  prompts?: PromptDefinition<any>[];
  /**
   * Features whose lists may change for everyone while clients listen (`ctx.listChanged`):
   * advertised as `listChanged: true`. Features with a definition declared with `enabled` are
   * advertised so anyway.
   */
  listChanged?: { tools?: boolean; prompts?: boolean; resources?: boolean };
  /**
   * 2026-07-28 caching hints (`ttlMs`, `cacheScope`) per cacheable method: `server/discover`, the
   * four lists and `resources/read`. Default for each: `{ ttlMs: 0, cacheScope: "private" }`,
   * i.e. stale at once and never shared between users; raise them for what is the same for all.
   *
   * @example caching: { "tools/list": { ttlMs: 300_000, cacheScope: "public" } }
   */
  caching?: Partial<Record<CacheableMethod, CacheHint>>;
}

/** The results 2026-07-28 marks cacheable ("Caching"). */
export type CacheableMethod = "server/discover" | "tools/list" | "prompts/list" | "resources/list" | "resources/templates/list" | "resources/read";

export interface CacheHint {
  /** Milliseconds the result stays fresh; 0 = at once stale. A whole number ≥ 0. */
  ttlMs: number;
  /** "public": the same for every user, shareable by gateways; "private": per authorization context. */
  cacheScope: "public" | "private";
}

/**
 * What `defineServer` takes: the server's identity, its tools, resources and prompts, and the few
 * options that shape what every client sees (list changes, 2026-07-28 caching hints).
 */
import type { Featured } from "./Feature.ts";
import type { Home } from "./Home.ts";
import type { PromptDefinition } from "./PromptDefinition.ts";
import type { ResourceDefinition, ResourceTemplateDefinition } from "./ResourceDefinition.ts";
import type { JsonSchemaConverter } from "../schema/standardSchema.ts";
import type { AnyToolDefinition } from "./ToolDefinition.ts";
import type { TelemetryFactory } from "../telemetry/Telemetry.ts";
import type { Method } from "./Method.ts";

export interface ServerOptions {
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
  tools?: (AnyToolDefinition & Featured)[];
  /** Fixed resources, listed by `resources/list`; each made with `resource()`. */
  resources?: (ResourceDefinition<Home> & Featured)[];
  /** Parameterised resources, listed by `resources/templates/list` and tried in order by `resources/read`; each made with `resourceTemplate()`. */
  resourceTemplates?: (ResourceTemplateDefinition<any, Home> & Featured)[];
  /** Each made with `prompt()`. */
  prompts?: (PromptDefinition<any, Home> & Featured)[];
  /**
   * Features whose lists may change for everyone while clients listen (`ctx.listChanged`):
   * advertised as `listChanged: true`. Features with a definition declared with `enabled` are
   * advertised so anyway.
   */
  listChanged?: { tools?: boolean; prompts?: boolean; resources?: boolean };
  /**
   * The optional capabilities this server uses, each made by its factory, which brings its code:
   * `tasks()` (tools declared with `task`), `apps({ views })` (MCP Apps), `skills({ skills })`
   * (Agent Skills), `otlp()` (traces and metrics over OTLP). A capability that is an MCP extension is advertised alike in `initialize`,
   * `server/discover` and `GET /`; tasks, a 2026-07-28 extension, in the last two only. On
   * Workers, each brings its Durable Object class too (`createWorker(server).McpTask`).
   *
   * @example use: [tasks(), apps({ views: [board] }), skills({ skills: [weatherSkill] })]
   */
  use?: readonly Extension<string>[];
  /**
   * 2026-07-28 caching hints (`ttlMs`, `cacheScope`) per cacheable method: `server/discover`, the
   * four lists and `resources/read`. Default for each: `{ ttlMs: 0, cacheScope: "private" }`,
   * i.e. stale at once and never shared between users; raise them for what is the same for all.
   *
   * @example caching: { "tools/list": { ttlMs: 300_000, cacheScope: "public" } }
   */
  caching?: Partial<Record<CacheableMethod, CacheHint>>;
  /**
   * Called once for each handler that throws (after the `handler.error` log line), wherever the
   * handler ran: to send it to an error tracker. `error.message` and `error.stack` are redacted
   * as in the log. What it throws or rejects is logged and otherwise ignored.
   *
   * @example onError: (error, info) => tracker.capture(error, { tags: { tool: info.tool } })
   */
  onError?: (error: Error, info: HandlerErrorInfo) => void | Promise<void>;
}

/** What `onError` learns of a failure besides the error itself. */
export interface HandlerErrorInfo {
  /** The JSON-RPC method, e.g. "tools/call". */
  method: string;
  /** The tool whose handler threw, for a tool call. */
  tool?: string;
  /** The request's id as a short string (a task's run: its task id's tag, not the id). */
  requestId: string;
  /** The session's log tag, where the request has a session. */
  session?: string;
  /** The request's trace id, where it is traced. */
  traceId?: string;
}


/** The results 2026-07-28 marks cacheable ("Caching"). */
export type CacheableMethod = "server/discover" | "tools/list" | "prompts/list" | "resources/list" | "resources/templates/list" | "resources/read";

export interface CacheHint {
  /** Milliseconds the result stays fresh; 0 = at once stale. A whole number ≥ 0. */
  ttlMs: number;
  /** "public": the same for every user, shareable by gateways; "private": per authorization context. */
  cacheScope: "public" | "private";
}

/**
 * One optional capability a server uses, made by its own factory (`tasks()`, `apps()`,
 * `skills()`), which carries all of its code: the core knows only this shape, so a server that
 * lists none ships none of it (test/bundle). Most are MCP extensions (SEP-1724: capabilities
 * under `extensions`, keyed by an identifier such as `io.modelcontextprotocol/skills`).
 *
 * A capability works on the options before they compile: it may add resources (a view, a skill's
 * files), rewrite tools (a view's `_meta`), and bring methods of its own (`skills/list`). What it
 * adds is then served like anything the author declared, on every endpoint and era, and what it
 * advertises goes out alike in `initialize`, `server/discover` and `GET /` (an extension of
 * 2026-07-28 alone, such as tasks, says so with `sessions: false`).
 *
 * `Objects` names the Durable Object classes it brings to a Worker entry (`"McpTask"`): a type
 * only, so that `createWorker(server)` offers exactly the classes of the server's list.
 */
export interface Extension<Objects extends string = never> {
  /** Its identifier: the key under `capabilities.extensions` for an extension, else a name of its own. */
  readonly id: string;
  /**
   * Called once, as the definition compiles, with the options as the capabilities before it left
   * them; absent for a capability that adds nothing to the definition (`watch()`, `homes()`).
   * @throws TypeError naming what is wrong with a definition the capability reads.
   */
  extend?(options: ServerOptions): ExtensionParts;
  /**
   * Its part on Workers, where the package's `workerd` variant makes it: the object classes and
   * the clients that reach them. Opaque here; absent elsewhere (Deno and Node host it themselves).
   */
  readonly workers?: object;
  /** Its host in a process (Deno, Node, stdio), where the package's default variant makes it: opaque here. */
  readonly local?: object;
  /**
   * Where request spans and the `mcp.server.operation.duration` metric go (OpenTelemetry MCP
   * conventions), on every runtime: `otlp()` brings its exporter. One capability of a list brings it.
   */
  readonly telemetry?: TelemetryFactory;
  /** Type only, never set: the names of the Durable Object classes it brings to a Worker entry. */
  readonly "~objects"?: Objects;
}

/** What an extension gives a server. */
export interface ExtensionParts {
  /** The settings advertised under `capabilities.extensions[id]` (`{}` for none); absent for a capability that is no MCP extension. */
  settings?: Record<string, unknown>;
  /** The options the server compiles from now: the ones given, with the extension's definitions added or rewritten. */
  options: ServerOptions;
  /** Methods of its own (e.g. `skills/list`), answered in every era. */
  methods?: Record<string, Method>;
  /** Whether a session's `initialize` advertises it too; false for an extension of 2026-07-28 alone (tasks). Default true. */
  sessions?: boolean;
  /**
   * Code of its own that a layer above the definition runs (`tasks()`: its `TaskRouting`),
   * reached with `CompiledServer.runtimeOf(id)`: carried by the factory, so a server without
   * the extension ships none of it. Opaque here.
   */
  runtime?: object;
}


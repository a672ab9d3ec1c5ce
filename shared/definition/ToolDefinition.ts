/**
 * How a server author declares tools (MCP tools spec): a name, a description, an input schema —
 * any Standard Schema (zod, valibot, arktype…), or plain JSON Schema wrapped by `jsonSchema()` —
 * and an async handler.
 */
import type { ArgumentLimits } from "../schema/ArgumentLimits.ts";
import type { ToolView } from "./ToolView.ts";
import type { Home } from "./Home.ts";
import type { ContextIn } from "./RequestContext.ts";
import type { InferInput, InferOutput, StandardSchemaV1 } from "../schema/standardSchema.ts";
import type { CallToolResult, ToolAnnotations } from "./types.ts";

interface ToolBase<H extends Home> {
  /** Unique within the server; 1–128 characters of [A-Za-z0-9_.-]. */
  name: string;
  title?: string;
  description: string;
  annotations?: ToolAnnotations;
  /** Sent as the tool's `_meta` in `tools/list`, for clients that read keys of their own. */
  _meta?: Record<string, unknown>;
  /**
   * The view (MCP Apps) a host renders this tool's results in, and who may call it. Needs
   * `apps({ views })` in the definition's `use`, with the view it names.
   *
   * @example ui: { view: "ui://weather/board.html" }                          // the model calls it, the view shows the result
   * @example ui: { view: "ui://weather/board.html", visibility: ["app"] }     // only the view calls it
   */
  ui?: ToolView;
  /**
   * Bounds on the arguments, checked before validation (`ArgumentLimits.ts`); a call past one gets
   * a tool error naming it, and nothing is validated. Each one left out comes from the environment:
   * `maxBytes` (`MAX_ARGUMENT_BYTES`, 1 MiB as compact JSON), `maxDepth` (`MAX_ARGUMENT_DEPTH`,
   * 32; at most 62) and `maxValues` (`MAX_ARGUMENT_VALUES`, 10,000 array items and object members
   * in all). Raise one for a tool that takes bulk data; lower them for one that takes a word.
   *
   * @example limits: { maxValues: 100_000, maxBytes: 4 * 1024 * 1024 }
   */
  limits?: Partial<ArgumentLimits>;
  /**
   * Makes it switchable per session with `ctx.session.setEnabled`, starting in this state. Leave it out
   * for a definition that is always on (see `ListKind.ts`).
   */
  enabled?: boolean;
  /**
   * OAuth scopes a request's token must grant for this to be listed and used; a call without them
   * gets 403 `insufficient_scope` naming them (step-up). Never offered where requests carry no
   * token (stdio, a server without `authorization`).
   */
  scopes?: readonly string[];
  /**
   * Runs the call as a durable task (the tasks extension, `io.modelcontextprotocol/tasks`, on
   * 2026-07-28) when the request declares the extension: the client gets a task id at once and
   * polls `tasks/get` for the result. `"optional"`: a request without the extension gets a plain
   * call. `"required"`: it gets -32021 naming the extension. The handler stays the same; see
   * `TaskOptions` for one that asks the client for input before its task starts.
   */
  task?: TaskSupport | TaskOptions;
  /**
   * Where the handler runs and whose storage `ctx.storage` is (see `Home.ts`): `"session"` (the
   * default), `"user"` (the signed-in user's home, the same in every era), or `{ handle: "arg" }`
   * (state under a handle the model passes back in argument `arg`; a call without one opens one).
   */
  home?: H;
}

/** Whether a tool may run as a task (`"optional"`) or only as one (`"required"`). */
export type TaskSupport = "optional" | "required";

export interface TaskOptions {
  support: TaskSupport;
  /**
   * The handler starts the task itself, with `await ctx.startTask()`. Until then it runs in the
   * request, so it can ask the client for input first (multi round-trip: `ctx.elicit`,
   * `ctx.sample`); the task then runs the handler again from the top with those answers. Default
   * false: the task starts before the handler runs.
   */
  startsItself?: boolean;
}

/** A tool's task options, normalised; undefined for a tool that never runs as a task. */
export function taskOptionsOf(tool: { task?: TaskSupport | TaskOptions }): TaskOptions | undefined {
  const task = tool.task;
  if (task === undefined) return undefined;
  const options = typeof task === "string" ? { support: task } : task;
  if (options.support !== "optional" && options.support !== "required") {
    throw new TypeError(`"task" must be "optional", "required" or { support: "optional" | "required", startsItself?: boolean }; got ${JSON.stringify(task)}`);
  }
  return options;
}

/**
 * A tool whose arguments (and, optionally, output) are described with a Standard Schema: zod 4
 * (classic, or mini with `toJsonSchema` in the server definition), valibot, arktype…, or plain
 * JSON Schema as `jsonSchema({ type: "object", … })` (from "durable-mcp"), whose handler gets
 * `Record<string, unknown>` unless told otherwise (`jsonSchema<{ name: string }>(…)`).
 */
export interface ToolDefinition<Input extends StandardSchemaV1 = StandardSchemaV1, Output extends StandardSchemaV1 | undefined = StandardSchemaV1 | undefined, H extends Home = Home>
  extends ToolBase<H> {
  /** Validated before the handler runs; advertised as JSON Schema. With zod, `z.strictObject` refuses extra keys. */
  input: Input;
  /** When set, the handler returns this shape; it goes out as `structuredContent` plus a JSON text block. */
  output?: Output;
  handler(args: InferOutput<Input>, ctx: ContextIn<H>): Promise<HandlerReturn<Output>>;
}

/** Any tool, as a server definition holds them. */
export type AnyToolDefinition = ToolDefinition<any, any, Home>;

/** Without an output schema a handler returns plain text or a full result. */
export type ToolReturn = string | CallToolResult;

/** With an output schema it returns the structured value (or a full result, e.g. an error). */
export type HandlerReturn<Output> = Output extends StandardSchemaV1 ? InferInput<Output> | CallToolResult : ToolReturn;

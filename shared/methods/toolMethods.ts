/**
 * `tools/list` and `tools/call` (MCP tools spec). Names are checked and schemas computed once,
 * here, at startup; a call only validates and runs.
 *
 * Both methods answer even when the server has no tools (an empty list, "Unknown tool"), as they
 * always have; only the `tools` capability depends on there being some. A tool switched off for
 * the session (`ListKind.ts`) is neither listed nor callable; `listChanged` is true once a tool
 * can be switched.
 */
import { McpError } from "../errors/McpError.ts";
import { tasksRequired } from "./tasksExtension.ts";
import { isModernVersion } from "../protocol/versions.ts";
import { callTool } from "./callTool.ts";
import { isObject } from "../jsonrpc/isObject.ts";
import { isOffered, switchable } from "../definition/ListKind.ts";
import { type Listed, LISTED_FOR } from "../definition/ListedFor.ts";
import type { MethodGroup, Result } from "../definition/Method.ts";
import { type ParamHeader, paramHeaders } from "../schema/paramHeaders.ts";
import { listResult } from "./paginate.ts";
import type { JsonSchemaConverter } from "../schema/standardSchema.ts";
import { type ToolSchemas, toolSchemas } from "./toolSchemas.ts";
import { type AnyToolDefinition, type TaskOptions, taskOptionsOf } from "../definition/ToolDefinition.ts";
import { checkHome, type HandleHome, planFor } from "../definition/Home.ts";

/** Tool names per the MCP tools spec ("Tool names"): 1–128 characters, case-sensitive. */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

export interface ToolMethodGroup extends MethodGroup {
  /** The tool's `x-mcp-header` arguments (2026-07-28); `[]` for an unknown tool. */
  paramHeaders(name: string): readonly ParamHeader[];
  /** The tool's task options; undefined for an unknown tool or one that never runs as a task. */
  taskOptions(name: string): TaskOptions | undefined;
  /** Whether some tool may run as a task: the server then offers the tasks extension. */
  readonly hasTasks: boolean;
}

/** @example toolMethods(definition.tools ?? []).methods["tools/list"]({}, ctx) */
export function toolMethods(tools: readonly AnyToolDefinition[], convert?: JsonSchemaConverter): ToolMethodGroup {
  const byName = new Map<string, { tool: AnyToolDefinition; schemas: ToolSchemas; headers: ParamHeader[]; task: TaskOptions | undefined; home: "user" | HandleHome | undefined }>();
  const listed: { tool: AnyToolDefinition; entry: Result }[] = [];
  for (const tool of tools) {
    if (!TOOL_NAME.test(tool.name)) {
      throw new TypeError(`Tool name ${JSON.stringify(tool.name)} must be 1-128 characters of A-Z a-z 0-9 _ . -`);
    }
    if (byName.has(tool.name)) throw new TypeError(`Tool ${tool.name} is defined twice`);
    const schemas = toolSchemas(tool, convert);
    const home = checkHome(`Tool ${tool.name}`, tool.home);
    if (typeof home === "object" && !isObject((schemas.inputSchema.properties as Record<string, unknown> | undefined)?.[home.handle])) {
      throw new TypeError(`Tool ${tool.name} keeps its state under a handle in its "${home.handle}" argument (home: { handle: "${home.handle}" }), but its input has no "${home.handle}" property; add it, optional, as a string`);
    }
    byName.set(tool.name, { tool, schemas, headers: paramHeaders(tool.name, schemas.inputSchema), task: taskOptionsOf(tool), home });
    listed.push({ tool, entry: describeTool(tool, schemas) });
  }
  const homed = [...byName.values()].some((entry) => entry.home !== undefined);
  return {
    ...(homed && {
      homeOf: (method: string, params: Record<string, unknown>) => {
        const home = method === "tools/call" && typeof params.name === "string" ? byName.get(params.name)?.home : undefined;
        return home && planFor(home, params.arguments, params.name as string);
      },
    }),
    paramHeaders: (name) => byName.get(name)?.headers ?? [],
    taskOptions: (name) => byName.get(name)?.task,
    hasTasks: [...byName.values()].some((entry) => entry.task !== undefined),
    capabilities: tools.length > 0 ? { tools: { listChanged: switchable(tools) } } : {},
    methods: {
      "tools/list": async (params, ctx) => {
        const visible = listed.filter(({ tool }) => isOffered("tool", tool.name, tool, ctx) && ((tool as Listed)[LISTED_FOR]?.(ctx.client) ?? true));
        return listResult("tools", visible.map(({ entry }) => entry), params.cursor);
      },
      "tools/call": async (params, ctx) => {
        if (typeof params.name !== "string") throw McpError.invalidParams('tools/call needs a "name" string');
        const found = byName.get(params.name);
        if (!found || !isOffered("tool", found.tool.name, found.tool, ctx)) throw McpError.invalidParams(`Unknown tool: ${params.name}`);
        if (params.arguments !== undefined && !isObject(params.arguments)) {
          throw McpError.invalidParams('tools/call "arguments" must be an object');
        }
        // Sessions (2025 and older) cannot declare the extension; on 2026-07-28 the era decides before this runs.
        if (found.task?.support === "required" && ctx.taskId === undefined && !isModernVersion(ctx.client.protocolVersion)) {
          throw tasksRequired(`Tool ${found.tool.name} runs only as a task, and so`);
        }
        // The era copies a result where it adds to it (2026-07-28's `decorateResult`): not here as well.
        return callTool(found.tool, params.arguments, ctx, found.schemas) as unknown as Promise<Result>;
      },
    },
  };
}

/** MCP `Tool`, keys in the schema's order so listings read naturally. */
function describeTool(tool: AnyToolDefinition, schemas: ToolSchemas): Result {
  const entry: Result = { name: tool.name };
  if (tool.title) entry.title = tool.title;
  entry.description = tool.description;
  entry.inputSchema = schemas.inputSchema;
  if (schemas.outputSchema) entry.outputSchema = schemas.outputSchema;
  if (tool.annotations) entry.annotations = tool.annotations;
  if (tool._meta) entry._meta = tool._meta;
  return entry;
}

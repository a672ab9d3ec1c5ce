/**
 * Runs one tool call: validate the arguments, run the handler, shape its return into a
 * `CallToolResult`. Per the MCP tools spec, bad arguments and handler failures are results with
 * `isError: true` (the model can read and correct them); only protocol faults (an `McpError`
 * thrown by the handler, or an aborted request) propagate as JSON-RPC errors.
 *
 * The arguments' size, depth and count of values are bounded before any validator sees them
 * (`ArgumentLimits.ts`): validators cost what the input makes them cost, and some overflow the
 * stack on a long enough array. Past a bound is bad arguments like any other: a tool
 * error the model can correct (tools spec, "Error Handling"), never a protocol error or a 500.
 *
 * Every schema is a Standard Schema here, a library's or `jsonSchema()`'s; `toolSchemas` made its
 * checks. With an output schema, a return that matches it is structured content even if it also
 * looks like a `CallToolResult`; one that does not match but is a `CallToolResult` passes through
 * as is.
 */
import { configOf } from "../config/configOf.ts";
import { McpError } from "../errors/McpError.ts";
import { reportFailure } from "../errors/HandlerFailure.ts";
import { argumentsPastLimits, limitsWith } from "../schema/ArgumentLimits.ts";
import { type ToolSchemas, toolSchemas } from "./toolSchemas.ts";
import type { RequestContext } from "../definition/RequestContext.ts";
import type { AnyToolDefinition } from "../definition/ToolDefinition.ts";
import type { CallToolResult } from "../definition/types.ts";

/** A tool result that tells the model what went wrong, e.g. `return toolError("No such city")`. */
export function toolError(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

/**
 * @param args    The request's `arguments`; missing ones are validated as `{}`.
 * @param schemas Precomputed by the server at startup; computed here when omitted (tests).
 */
export async function callTool(tool: AnyToolDefinition, args: unknown, ctx: RequestContext, schemas: ToolSchemas = toolSchemas(tool)): Promise<CallToolResult> {
  const past = argumentsPastLimits(args ?? {}, limitsWith(schemas.limits, configOf(ctx.env)));
  if (past !== undefined) return toolError(`Invalid arguments for tool ${tool.name}:\n${past}`);
  const input = await schemas.checkInput(args ?? {});
  if (!input.ok) return toolError(`Invalid arguments for tool ${tool.name}:\n${input.message}`);
  let value: unknown;
  try {
    value = await tool.handler(input.value as never, ctx as never);
  } catch (error) {
    if (error instanceof McpError) throw error;
    if (ctx.signal.aborted) throw ctx.signal.reason;
    // The model reads the message (tools spec); the operator gets the exception (`handler.error`).
    reportFailure(ctx, error, tool.name);
    return toolError(`Tool ${tool.name} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  return shapeResult(tool.name, schemas, value);
}

async function shapeResult(name: string, schemas: ToolSchemas, value: unknown): Promise<CallToolResult> {
  if (schemas.checkOutput) {
    const out = await schemas.checkOutput(value);
    if (out.ok) {
      const structured = out.value as Record<string, unknown>;
      return { content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured, isError: false };
    }
    if (!isCallToolResult(value)) {
      return toolError(`Tool ${name} returned a value that does not match its output schema:\n${out.message}`);
    }
  }
  // `isError: false` is explicit, as the captured 2024-11-05 server sends it.
  if (typeof value === "string") return { content: [{ type: "text", text: value }], isError: false };
  if (isCallToolResult(value)) return value;
  return toolError(`Tool ${name} returned ${typeof value}; a handler returns a string or { content: [...] }`);
}

function isCallToolResult(value: unknown): value is CallToolResult {
  return typeof value === "object" && value !== null && Array.isArray((value as CallToolResult).content);
}

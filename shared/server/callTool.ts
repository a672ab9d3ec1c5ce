/**
 * Runs one tool call: validate the arguments, run the handler, shape its return into a
 * `CallToolResult`. Per the MCP tools spec, bad arguments and handler failures are results with
 * `isError: true` (the model can read and correct them); only protocol faults (an `McpError`
 * thrown by the handler, or an aborted request) propagate as JSON-RPC errors.
 */
import { z } from "zod";
import { McpError } from "../errors/McpError.ts";
import type { CallToolResult, RequestContext, ToolDefinition } from "./types.ts";

/** A tool result that tells the model what went wrong, e.g. `return toolError("No such city")`. */
export function toolError(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

export async function callTool(tool: ToolDefinition, args: unknown, ctx: RequestContext): Promise<CallToolResult> {
  const parsed = tool.input.safeParse(args ?? {});
  if (!parsed.success) {
    return toolError(`Invalid arguments for tool ${tool.name}:\n${z.prettifyError(parsed.error)}`);
  }
  let value: unknown;
  try {
    value = await tool.handler(parsed.data, ctx);
  } catch (error) {
    if (error instanceof McpError) throw error;
    if (ctx.signal.aborted) throw ctx.signal.reason;
    return toolError(`Tool ${tool.name} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  return shapeResult(tool, value);
}

function shapeResult(tool: ToolDefinition, value: unknown): CallToolResult {
  if (tool.output) {
    const out = tool.output.safeParse(value);
    if (out.success) {
      const structured = out.data as Record<string, unknown>;
      return { content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured, isError: false };
    }
    if (!isCallToolResult(value)) {
      return toolError(`Tool ${tool.name} returned a value that does not match its output schema:\n${z.prettifyError(out.error)}`);
    }
  }
  // `isError: false` is explicit, as the captured 2024-11-05 server sends it.
  if (typeof value === "string") return { content: [{ type: "text", text: value }], isError: false };
  if (isCallToolResult(value)) return value;
  return toolError(`Tool ${tool.name} returned ${typeof value}; a handler returns a string or { content: [...] }`);
}

function isCallToolResult(value: unknown): value is CallToolResult {
  return typeof value === "object" && value !== null && Array.isArray((value as CallToolResult).content);
}

/**
 * The answer for a handle nobody here may use: never stored, expired, or another principal's —
 * told apart for nobody (2026-07-28 "Stateful Tools": "a call against an expired or unknown
 * handle should return a tool execution error that says so, so the model can recover by creating
 * a new one"). For a tool, a tool error; for a prompt or a read, -32602.
 */
import { McpError } from "../errors/McpError.ts";
import type { Result } from "../definition/Method.ts";
import { toolError } from "../methods/callTool.ts";
import type { HomeCall } from "./Homes.ts";

export function unknownHandle(call: HomeCall, id: unknown): Result {
  const shown = typeof id === "string" ? JSON.stringify(id.length > 40 ? `${id.slice(0, 40)}…` : id) : JSON.stringify(typeof id);
  const sentence = `Unknown handle ${shown}: it was never made, has expired unused, or is not yours.`;
  if (call.method === "tools/call") return { ...toolError(`${sentence} Call ${String(call.params.name)} without it to start a new one.`) };
  throw McpError.invalidParams(sentence);
}

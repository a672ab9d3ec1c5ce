/** An error as 2026-07-28 words it: resource not found is -32602 (-32002 is retired). */
import { ErrorCode } from "./errorCodes.ts";
import { McpError } from "./McpError.ts";

export function forThisEra(error: McpError): McpError {
  if (error.code === ErrorCode.ResourceNotFound) return new McpError(400, ErrorCode.InvalidParams, error.message, error.data);
  return error;
}

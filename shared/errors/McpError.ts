/**
 * The one error type of the project. It carries both faces of a failure: the HTTP status the
 * transport answers with, and the JSON-RPC error object the client reads. Exactly one place,
 * `errorResponse()`, turns it into a `Response`; everything else throws or returns it.
 *
 * Not for tool failures: per the MCP tools spec those are results with `isError: true`.
 */
import { ErrorCode } from "./errorCodes.ts";

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export class McpError extends Error {
  override readonly name = "McpError";

  /**
   * @param status  HTTP status when the error ends an HTTP exchange (ignored on a stream).
   * @param code    JSON-RPC error code, from `ErrorCode`.
   * @param message One sentence a person can act on; it goes on the wire as is.
   * @param data    Optional machine-readable detail for the JSON-RPC `error.data`.
   * @param headers Extra response headers, e.g. `Retry-After` for a 429.
   *
   * @example throw new McpError(404, ErrorCode.InvalidRequest, "Unknown session");
   */
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly data?: unknown,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }

  toJsonRpc(): JsonRpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }

  static parse(message: string): McpError {
    return new McpError(400, ErrorCode.ParseError, message);
  }
  static invalidRequest(message: string, status = 400): McpError {
    return new McpError(status, ErrorCode.InvalidRequest, message);
  }
  static invalidParams(message: string, data?: unknown): McpError {
    return new McpError(400, ErrorCode.InvalidParams, message, data);
  }
  static methodNotFound(method: string): McpError {
    return new McpError(404, ErrorCode.MethodNotFound, `Method not found: ${method}`);
  }
  /** The MCP resources spec's own example: code -32002, message "Resource not found", `data: { uri }`. */
  static resourceNotFound(uri: string): McpError {
    return new McpError(404, ErrorCode.ResourceNotFound, "Resource not found", { uri });
  }
}

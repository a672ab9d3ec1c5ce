/**
 * JSON-RPC 2.0 message shapes (https://www.jsonrpc.org/specification), validated with zod,
 * narrowed by MCP: ids are strings or numbers and never null, and `params` is an object.
 *
 * Only shapes live here; turning text into messages is `parseMessages()`.
 */
import { z } from "zod";

export const JSONRPC_VERSION = "2.0";

const RequestId = z.union([z.string(), z.number()]);
const Params = z.record(z.string(), z.unknown());

export const JsonRpcRequestSchema = z.object({
  jsonrpc: z.literal(JSONRPC_VERSION),
  id: RequestId,
  method: z.string().min(1),
  params: Params.optional(),
});

export const JsonRpcNotificationSchema = z.object({
  jsonrpc: z.literal(JSONRPC_VERSION),
  method: z.string().min(1),
  params: Params.optional(),
});

export const JsonRpcResultResponseSchema = z.object({
  jsonrpc: z.literal(JSONRPC_VERSION),
  id: RequestId,
  result: z.record(z.string(), z.unknown()),
});

export const JsonRpcErrorResponseSchema = z.object({
  jsonrpc: z.literal(JSONRPC_VERSION),
  // JSON-RPC answers a request whose id could not be read with a null id.
  id: RequestId.nullable(),
  error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }),
});

export type RequestId = z.infer<typeof RequestId>;
export type JsonRpcRequest = z.infer<typeof JsonRpcRequestSchema>;
export type JsonRpcNotification = z.infer<typeof JsonRpcNotificationSchema>;
export type JsonRpcResultResponse = z.infer<typeof JsonRpcResultResponseSchema>;
export type JsonRpcErrorResponse = z.infer<typeof JsonRpcErrorResponseSchema>;
export type JsonRpcResponse = JsonRpcResultResponse | JsonRpcErrorResponse;
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

export function isRequest(m: JsonRpcMessage): m is JsonRpcRequest {
  return "method" in m && "id" in m;
}
export function isNotification(m: JsonRpcMessage): m is JsonRpcNotification {
  return "method" in m && !("id" in m);
}

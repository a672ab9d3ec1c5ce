/**
 * JSON-RPC 2.0 messages (https://www.jsonrpc.org/specification) as MCP narrows them: ids are
 * strings or numbers and never null in requests, and `params` is an object. Their shapes, the one
 * check that tells whether a value is one (`invalidMessage`), and the constructors every reply
 * and notification is built with, so no module spells an envelope by hand.
 *
 * The check is hand-written rather than a schema library's: it runs on every message the server
 * receives, and the core carries no validator of its own (tools bring theirs).
 *
 * Not here: turning text into messages (`parseMessages()`).
 */
import type { JsonRpcErrorObject, McpError } from "../errors/McpError.ts";
import { isObject } from "./isObject.ts";

export type { JsonRpcErrorObject };

export const JSONRPC_VERSION = "2.0";

export type RequestId = string | number;
export type Params = Record<string, unknown>;

export interface JsonRpcRequest {
  jsonrpc: "2.0";
  id: RequestId;
  method: string;
  params?: Params;
}

export interface JsonRpcNotification {
  jsonrpc: "2.0";
  method: string;
  params?: Params;
}

export interface JsonRpcResultResponse {
  jsonrpc: "2.0";
  id: RequestId;
  result: Record<string, unknown>;
}

export interface JsonRpcErrorResponse {
  jsonrpc: "2.0";
  /** JSON-RPC answers a request whose id could not be read with a null id. */
  id: RequestId | null;
  error: JsonRpcErrorObject;
}

export type JsonRpcResponse = JsonRpcResultResponse | JsonRpcErrorResponse;
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

export function isRequest(m: JsonRpcMessage): m is JsonRpcRequest {
  return "method" in m && "id" in m;
}
/** The ids of a batch's requests (its notifications and responses have none to answer): what admitting it counts. */
export function requestIds(messages: readonly JsonRpcMessage[]): RequestId[] {
  return messages.filter(isRequest).map((m) => m.id);
}
export function isNotification(m: JsonRpcMessage): m is JsonRpcNotification {
  return "method" in m && !("id" in m);
}

/** The reply carrying `result`. */
export function resultReply(id: RequestId, result: Record<string, unknown>): JsonRpcResultResponse {
  return { jsonrpc: JSONRPC_VERSION, id, result };
}

/** The reply carrying `error` (id null when the request's id could not be read). */
export function errorReply(id: RequestId | null, error: McpError): JsonRpcErrorResponse {
  return { jsonrpc: JSONRPC_VERSION, id, error: error.toJsonRpc() };
}

export function notification(method: string, params?: Params): JsonRpcNotification {
  return params === undefined ? { jsonrpc: JSONRPC_VERSION, method } : { jsonrpc: JSONRPC_VERSION, method, params };
}

export function request(id: RequestId, method: string, params?: Params): JsonRpcRequest {
  return params === undefined ? { jsonrpc: JSONRPC_VERSION, id, method } : { jsonrpc: JSONRPC_VERSION, id, method, params };
}

/**
 * Why `value` is not a JSON-RPC message, in one sentence; undefined when it is one. The shape is
 * chosen by the members present, not tried in turn: a value with `method` and `id` is judged as a
 * request even when its id is bad, so `{"id": null, "method": …}` never passes for a notification.
 * Unknown members are allowed and kept.
 */
export function invalidMessage(value: unknown): string | undefined {
  if (!isObject(value)) return "a JSON-RPC message must be a JSON object";
  if (value.jsonrpc !== JSONRPC_VERSION) return 'the "jsonrpc" member must be exactly "2.0"';
  if ("method" in value) {
    if ("id" in value && !isId(value.id)) return 'a request "id" must be a string or a number';
    if (typeof value.method !== "string" || value.method === "") return '"method" must be a non-empty string';
    if ("params" in value && !isObject(value.params)) return '"params" must be an object';
    return undefined;
  }
  if ("error" in value) {
    if (!(isId(value.id) || value.id === null)) return 'an error response "id" must be a string, a number or null';
    const error = value.error;
    if (!isObject(error) || !Number.isInteger(error.code) || typeof error.message !== "string") return '"error" must be an object with an integer "code" and a string "message"';
    return undefined;
  }
  if ("result" in value) {
    if (!isId(value.id)) return 'a response "id" must be a string or a number';
    if (!isObject(value.result)) return '"result" must be an object';
    return undefined;
  }
  return 'a message needs "method" (request or notification) or "result"/"error" (response)';
}

function isId(id: unknown): id is RequestId {
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id));
}

/**
 * The OpenTelemetry semantic conventions for MCP (open-telemetry/semantic-conventions-genai,
 * `docs/gen-ai/mcp.md`, status Development), applied to one server-side request: its span name
 * `{mcp.method.name} {target}` (the tool or prompt name; never a resource URI, which is high
 * cardinality), its attributes, its parent (the client's `params._meta.traceparent`, SEP-414),
 * and how it ended (`error.type`: the JSON-RPC error code, or `tool_error` for a tool result with
 * `isError`), plus the `mcp.server.operation.duration` histogram's buckets and attributes.
 * Attribute names are constants, the same for every backend.
 *
 * Departures, all for secrets: `mcp.session.id` carries the session's log tag (a session id is a
 * bearer credential); a task's run records its task id's tag as `jsonrpc.request.id` (the task id
 * is one too); `mcp.resource.uri` of a URI that names a handle is the template it matched (the
 * handle is a capability), and any other URI and the status description are passed through the
 * logs' `redact`. Every string a client chooses is cut (`MAX_SPAN_*_CHARS`), so one request
 * cannot make a span of megabytes.
 */
import { isObject } from "../../shared/jsonrpc/isObject.ts";
import type { JsonRpcRequest } from "../../shared/jsonrpc/messages.ts";
import type { Attributes, HandleTemplateOf, RequestEnd, RequestOrigin } from "../../shared/telemetry/Telemetry.ts";
import { parseTraceparent, type SpanContext } from "./traceparent.ts";
import { redactHead } from "../../shared/log/redact.ts";

export const METHOD = "mcp.method.name";
export const PROTOCOL_VERSION = "mcp.protocol.version";
export const SESSION_ID = "mcp.session.id";
export const RESOURCE_URI = "mcp.resource.uri";
export const REQUEST_ID = "jsonrpc.request.id";
export const TOOL_NAME = "gen_ai.tool.name";
export const PROMPT_NAME = "gen_ai.prompt.name";
export const OPERATION_NAME = "gen_ai.operation.name";
export const ERROR_TYPE = "error.type";
export const STATUS_CODE = "rpc.response.status_code";
export const NETWORK_TRANSPORT = "network.transport";
export const NETWORK_PROTOCOL = "network.protocol.name";
export const CLIENT_ADDRESS = "client.address";

/** The metric every request records (seconds), with the conventions' explicit bucket boundaries. */
export const OPERATION_DURATION = "mcp.server.operation.duration";
export const DURATION_BUCKETS_S = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300] as const;

/** Instrumentation scope name and version reported with every span and metric. */
export const SCOPE = { name: "durable-mcp", version: "0.1.0" };

/** The `error.type` of a tool result with `isError: true` (conventions, note on `error.type`). */
export const TOOL_ERROR = "tool_error";

/** Longest method, tool or prompt name and request id a span records, in UTF-16 code units. */
export const MAX_SPAN_NAME_CHARS = 128;
/** Longest `mcp.resource.uri` a span records, in UTF-16 code units. */
export const MAX_SPAN_URI_CHARS = 1_024;
/** Longest status description (an error's message) a span records, in UTF-16 code units. */
export const MAX_SPAN_STATUS_CHARS = 1_024;
/** Longest `tracestate` continued, in characters: W3C Trace Context's own limit (section 3.3.1.5). */
const MAX_TRACESTATE_CHARS = 512;

export interface SpanStart {
  name: string;
  kind: "server" | "internal";
  attributes: Attributes;
  /** The remote or hop parent; undefined starts a new trace. */
  parent?: SpanContext;
  tracestate?: string;
  links: SpanContext[];
}

/** Name, kind, attributes and parent of a request's span (see the module header); `templateOf` from the server's resource templates. */
export function spanStart(request: JsonRpcRequest, origin: RequestOrigin, templateOf?: HandleTemplateOf): SpanStart {
  const method = cut(request.method, MAX_SPAN_NAME_CHARS);
  const params = isObject(request.params) ? request.params : {};
  const meta = isObject(params._meta) ? params._meta : undefined;
  const attributes: Attributes = { [METHOD]: method, [NETWORK_TRANSPORT]: origin.transport };
  attributes[REQUEST_ID] = origin.requestTag ?? cut(String(request.id), MAX_SPAN_NAME_CHARS);
  if (origin.protocolVersion) attributes[PROTOCOL_VERSION] = origin.protocolVersion;
  if (origin.sessionTag) attributes[SESSION_ID] = origin.sessionTag;
  if (origin.protocol) attributes[NETWORK_PROTOCOL] = origin.protocol;
  if (origin.clientAddress) attributes[CLIENT_ADDRESS] = origin.clientAddress;
  let target: string | undefined;
  if ((method === "tools/call" || method === "prompts/get") && typeof params.name === "string") {
    target = cut(params.name, MAX_SPAN_NAME_CHARS);
    attributes[method === "tools/call" ? TOOL_NAME : PROMPT_NAME] = target;
    if (method === "tools/call") attributes[OPERATION_NAME] = "execute_tool";
  }
  if (typeof params.uri === "string" && method.startsWith("resources/")) attributes[RESOURCE_URI] = recordedUri(params.uri, templateOf);
  const hop = parseTraceparent(origin.parent);
  const remote = parseTraceparent(meta?.traceparent);
  const ambient = parseTraceparent(origin.link);
  const links = [hop && remote?.spanId !== hop.spanId ? remote : undefined, ambient].filter((c): c is SpanContext => c !== undefined);
  const tracestate = !hop && remote && typeof meta?.tracestate === "string" ? cut(meta.tracestate, MAX_TRACESTATE_CHARS) : undefined;
  return { name: target ? `${method} ${target}` : method, kind: hop ? "internal" : "server", attributes, parent: hop ?? remote, tracestate, links };
}

/** The attributes a request's end adds, and its error description (span status ERROR when set), redacted and cut. */
export function spanEnd(end: RequestEnd): { attributes: Attributes; error?: string } {
  const { reply, failure } = end;
  if (reply && "error" in reply) {
    const code = String(reply.error.code);
    return { attributes: { [ERROR_TYPE]: code, [STATUS_CODE]: code }, error: redacted(String(reply.error.message), MAX_SPAN_STATUS_CHARS) };
  }
  if (reply && isObject(reply.result) && reply.result.isError === true) {
    return { attributes: { [ERROR_TYPE]: TOOL_ERROR }, error: failure ? redacted(failure.message, MAX_SPAN_STATUS_CHARS) : "The tool returned isError: true" };
  }
  if (end.status !== undefined && end.status >= 400) return { attributes: { [ERROR_TYPE]: String(end.status) }, error: `HTTP ${end.status}` };
  if (end.aborted) return { attributes: { [ERROR_TYPE]: "cancelled" }, error: "The request was cancelled, or its client left" };
  return { attributes: {} };
}

/** A resource URI as a span records it: the template of a handle's, else the URI redacted and cut. */
function recordedUri(uri: string, templateOf: HandleTemplateOf | undefined): string {
  return templateOf?.(uri) ?? redacted(uri, MAX_SPAN_URI_CHARS);
}

function redacted(text: string, max: number): string {
  return cut(redactHead(text, max), max);
}

/** `text` cut to `max` units, not splitting a surrogate pair (a lone one is not valid UTF-8 in the export). */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/** The duration metric's attributes: the low-cardinality subset of the span's (no ids, no URIs). */
export function metricAttributes(span: Attributes): Attributes {
  const out: Attributes = {};
  for (const key of [METHOD, PROTOCOL_VERSION, TOOL_NAME, PROMPT_NAME, OPERATION_NAME, ERROR_TYPE, STATUS_CODE, NETWORK_TRANSPORT, NETWORK_PROTOCOL]) {
    if (span[key] !== undefined) out[key] = span[key]!;
  }
  return out;
}

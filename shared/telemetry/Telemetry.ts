/**
 * What the execution core needs of a tracing backend, and nothing more: one span per MCP request
 * (`RequestSpan`), started where the request is handled and ended with its reply. Backends: the
 * OTLP/HTTP JSON exporter (`OtlpTelemetry`, Workers and anywhere with `fetch`) and Deno's
 * built-in OpenTelemetry (`denoTelemetry`), both in `capabilities/telemetry/`. Span names and
 * attributes follow the OpenTelemetry MCP semantic conventions (`mcpSpan.ts`), the same for every backend.
 *
 * Off is free: where no backend is configured the exchange holds `undefined` and builds no span,
 * no attributes and no ids.
 */
import type { JsonRpcRequest, JsonRpcResponse } from "../jsonrpc/messages.ts";
import type { Logger } from "../log/Logger.ts";

export type AttributeValue = string | number | boolean;
export type Attributes = Record<string, AttributeValue>;

/** How requests reach the server, for spans: OpenTelemetry's `network.transport` and `network.protocol.name`. */
export interface Network {
  /** "tcp" over HTTP and WebSockets, "pipe" over stdio. */
  transport: "tcp" | "pipe";
  /** "http" or "websocket"; absent on stdio. */
  protocol?: "http" | "websocket";
}

/** Requests over HTTP: every route's, and the default of every host. */
export const OVER_HTTP: Network = { transport: "tcp", protocol: "http" };

/** Where a request arrived, as the era knows it: the attributes that are not in the message. */
export interface RequestOrigin extends Network {
  /** `mcp.protocol.version`. */
  protocolVersion?: string;
  /** The session's log tag (`logId`), never its id: a session id is a bearer secret (`mcp.session.id`). */
  sessionTag?: string;
  /** `client.address`, where the runtime knows it. */
  clientAddress?: string;
  /**
   * The parent this span must have instead of the client's `params._meta.traceparent`: the span of
   * the hop that carried the request here (the Worker's, for a session object), or the request
   * that started a task (its run).
   */
  parent?: string;
  /** The transport's own context (an HTTP `traceparent` header): linked, not parent (MCP conventions, "Context propagation"). */
  link?: string;
  /** A short tag for `jsonrpc.request.id` where the id itself is a secret (a task's run, whose id is the task id). */
  requestTag?: string;
}

/**
 * The context member holding the request's own span as a `traceparent`, where it is traced: work
 * the request hands on (a task it creates) continues the trace under it (`continuedParams`).
 */
export const CURRENT_SPAN: unique symbol = Symbol.for("durable-mcp.currentSpan") as never;

/** `params` with `_meta.traceparent` set to the span of the request `ctx` belongs to; `params` itself where it is not traced. */
export function continuedParams(params: Record<string, unknown>, ctx: object): Record<string, unknown> {
  const current = (ctx as { [CURRENT_SPAN]?: string })[CURRENT_SPAN];
  if (current === undefined) return params;
  return { ...params, _meta: { ...(params._meta as object | undefined), traceparent: current } };
}

/** What a hop carries for the spans of the requests it delivers (a `SessionOperation`'s `trace`). */
export interface HopTrace {
  /** The span of the hop (the Worker's), parent of the requests' spans where they run. */
  parent?: string;
  /** The transport's own context (the HTTP `traceparent` header), linked. */
  link?: string;
}

/** How a request ended, for its span and the duration metric. */
export interface RequestEnd {
  reply?: JsonRpcResponse;
  /** An HTTP answer, for a hop's span: 400 and above end it in error (`error.type` the status). */
  status?: number;
  /** Cancelled, or the client left: no reply was sent. */
  aborted?: boolean;
  /** What a handler threw (a tool failure answered as a tool error, or an internal error). */
  failure?: { name: string; message: string };
}

export interface RequestSpan {
  /** This span as a `traceparent`, for the next hop to continue. */
  readonly traceparent: string;
  end(outcome: RequestEnd): void;
}

export interface Telemetry {
  /** The span of one request, started now (kind SERVER, or INTERNAL under a hop's parent). */
  request(request: JsonRpcRequest, origin: RequestOrigin): RequestSpan;
  /** Sends what is buffered; resolves when sent (or dropped). Workers pass it to `waitUntil`. */
  flush(): Promise<void>;
}

/** Makes the telemetry backend for one environment (a Worker's bindings, a process's variables); undefined: off. */
export type TelemetryFactory = (env: Readonly<Record<string, unknown>>, services: TelemetryServices) => Telemetry | undefined;

/** What a span records for a resource URI that names a handle: the template it matched; undefined for any other URI. */
export type HandleTemplateOf = (uri: string) => string | undefined;

/** What the runtime gives a telemetry backend. */
export interface TelemetryServices {
  /** The definition's `name`: the default `service.name`. */
  serviceName: string;
  logger: Logger;
  /** Keeps the request's isolate alive until `work` settles (Workers' `waitUntil`); absent where the process lives on. */
  keepAlive?: (work: Promise<unknown>) => void;
  /** The template to record for a resource URI that names a handle (`spanStart`); absent when no template has a handle home. */
  handleTemplateOf?: HandleTemplateOf;
}

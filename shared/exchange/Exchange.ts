/**
 * One request and everything needed to answer it: the shape every era hands the execution core
 * (`runExchange`). The core owns what is the same everywhere — the request's cancellation, the one
 * deadline, exactly one reply, nothing after the reply, the mapping of errors — and each era
 * supplies the rest in two small parts:
 *
 * - an `Outlet`: where the reply and the request's own messages go (a POST's JSON or SSE answer,
 *   a session's stream, a connection's one stream, a task's stored state);
 * - a `Scope`: what the handler's context holds in this era (a session and its storage, or
 *   none), how the client is asked for input, where changes are announced, and how a result is
 *   finished for the wire.
 *
 * Nothing here ties an exchange to the HTTP request that started it: a handler can run detached,
 * its outlet writing elsewhere, which is what the tasks extension will do.
 */
import type { Principal } from "../auth/Principal.ts";
import type { Cancellation } from "./Cancellation.ts";
import type { McpError } from "../errors/McpError.ts";
import type { JsonRpcMessage, JsonRpcRequest, JsonRpcResponse, RequestId } from "../jsonrpc/messages.ts";
import type { Logger } from "../log/Logger.ts";
import type { LogLevel } from "../protocol/logLevels.ts";
import type { ListFeature, ListKind } from "../definition/ListKind.ts";
import type { Result } from "../definition/Method.ts";
import type { ClientView, RequestContext, ServerEnv } from "../definition/RequestContext.ts";
import type { HandlerStorage } from "../storage/KeyValueStore.ts";
import type { ServerOptions } from "../definition/ServerOptions.ts";
import type { RequestOrigin, Telemetry } from "../telemetry/Telemetry.ts";

/** Where one request's messages go. */
export interface Outlet {
  /**
   * The request's one reply, with its JSON text (serialised once, by the core). Called at most
   * once, and nothing is sent for the request after it. It takes over the request's reserved room.
   */
  reply(message: JsonRpcResponse, json: string): void | Promise<void>;
  /**
   * A message about this request (progress, a log line, a request to the client): waits for room
   * in the budget, and gives up with `signal.reason` when the request is aborted.
   */
  notify(message: JsonRpcMessage, json: string, signal: AbortSignal): Promise<void>;
  /** The request ended with no reply (cancelled, or its client is gone): what it held is freed. */
  drop(): void;
  /** SEP-1699 polling: end the connection carrying this request's stream, not the stream. */
  disconnect?(): void;
}

/** The session a request belongs to, as the core needs it. */
export interface SessionScope {
  readonly id: string;
  readonly storage: HandlerStorage;
  isEnabled(kind: ListKind, id: string): boolean;
  /** Switches a definition for the session; resolves with whether its listing changed. */
  setEnabled(kind: ListKind, id: string, enabled: boolean): Promise<boolean>;
}

/** What a request's handler has in its era. */
export interface Scope {
  readonly env: ServerEnv;
  readonly client: ClientView;
  /** Absent where the era has none (2026-07-28). */
  readonly session?: SessionScope;
  /** The client's log threshold, read when a handler logs (a session may change it meanwhile). */
  logLevel(): LogLevel | undefined;
  /**
   * Asks the client (`sampling/createMessage`, `elicitation/create`, `roots/list`): a request on
   * the request's stream (`send`), or an input round. Rejects with a readable error when the
   * client lacks the capability.
   */
  ask(method: string, params: Record<string, unknown>, key: string | undefined, signal: AbortSignal, send: (message: JsonRpcMessage) => Promise<void>): Promise<Record<string, unknown>>;
  /** Announces that a resource changed: to listeners, and to the session if it subscribed. */
  resourceUpdated(uri: string, signal: AbortSignal): Promise<void>;
  /** Announces a list change to every listener (not to the request's own stream: the core does that). */
  listChanged(feature: ListFeature): Promise<void>;
  /** The result as this era sends it (2026-07-28 adds `resultType` and hints, or asks for input). */
  finish?(result: Result): Result | Promise<Result>;
  /** A handler's failure that is still a result in this era (an unanswered input round), or undefined. */
  recover?(error: unknown): Promise<Result | undefined>;
  /** An error as this era words it (2026-07-28: resource not found is -32602). */
  reword?(error: McpError): McpError;
  /** `ctx.startTask()`: where a call may become a task at the handler's word; absent elsewhere (it resolves at once). */
  startTask?(): Promise<void>;
  /** The task this request runs as (`ctx.taskId`). */
  readonly taskId?: string;
}

export interface Exchange {
  request: JsonRpcRequest;
  /** The principal this request's own token established (`ctx.auth`); undefined without authorization. */
  auth?: Principal;
  /** Runs the method the request names (its lookup may throw -32601). */
  run(ctx: RequestContext): Promise<Result>;
  scope: Scope;
  outlet: Outlet;
  /** HANDLER_TIMEOUT_MS: past it the handler is aborted and the request answered with the deadline error. */
  timeoutMs: number;
  /** A reply longer than this (JSON text) is replaced by a -32603 error saying so (MAX_QUEUE_BYTES). */
  maxReplyBytes: number;
  log: Logger;
  /** What log lines name the request by where its id is a secret (a task's run: its task id's `logId` tag); the request's id otherwise. */
  loggedId?: RequestId;
  /**
   * The request's own cancellation, when the era holds one to cancel it by: aborting it (with any
   * reason) means nobody waits for the answer any more (cancelled, or the client left). Its
   * signal is the handler's `ctx.signal`.
   */
  cancellation?: Cancellation;
  /** Where the request's span goes, and where the request arrived; absent where tracing is off (nothing is built). */
  trace?: { telemetry: Telemetry; origin: RequestOrigin };
  /** The definition's `onError`, called once for a handler that threw. */
  onError?: ServerOptions["onError"];
}

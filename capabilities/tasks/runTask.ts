/**
 * One run of a task's handler through the execution core (`runExchange`), detached from any HTTP
 * request: the task's own exchange. What the run may do is what its creating 2026-07-28 request
 * could, with two differences:
 *
 * - An ask (`ctx.elicit`, `ctx.sample`, `ctx.listRoots`) is answered from the task's stored
 *   answers, or recorded: the run then ends, the task waits in `input_required` with the asks as
 *   its `inputRequests`, and once `tasks/update` has answered them all the handler runs again
 *   from the top (the multi round-trip rule: asks reached deterministically, side effects after).
 * - `ctx.progress` becomes the task's `statusMessage` (the extension sends no progress
 *   notifications for tasks); log messages go nowhere, as the extension has none for tasks.
 *
 * The outcome is the task's next status: `completed` with the result (a tool error included),
 * `failed` with the JSON-RPC error (a protocol fault, or the run passing TASK_TIMEOUT_MS), or
 * `aborted` when the run was cancelled or the task expired, which decided the status already.
 */
import { ANONYMOUS } from "../../shared/shares/clientKey.ts";
import { resourceTopic } from "../../shared/broadcast/Broadcaster.ts";
import { McpError, type JsonRpcErrorObject } from "../../shared/errors/McpError.ts";
import type { Exchange, Outlet, Scope } from "../../shared/exchange/Exchange.ts";
import type { Cancellation } from "../../shared/exchange/Cancellation.ts";
import { runExchange } from "../../shared/exchange/runExchange.ts";
import { type JsonRpcResponse, notification } from "../../shared/jsonrpc/messages.ts";
import { logId } from "../../shared/log/logId.ts";
import { LIST_CHANGED_METHOD } from "../../shared/definition/ListKind.ts";
import type { Result } from "../../shared/definition/Method.ts";
import { forThisEra } from "../../shared/errors/forThisEra.ts";
import { InputRounds } from "../../shared/exchange/InputRounds.ts";
import { runInHome } from "../../shared/home/runInHome.ts";
import { type InputRequest, MAX_TASK_VALUE_BYTES, type TaskStart } from "../../shared/tasks/TaskState.ts";
import type { Runtime } from "../../shared/runtime/Runtime.ts";

/**
 * The runtime's members a run uses: without `broadcast`, a handler's `ctx.resourceUpdated` and
 * `ctx.listChanged` go nowhere; without `homes`, a tool with a home of its own fails.
 */
export interface TaskRunDeps extends Pick<Runtime, "server" | "config" | "logger" | "env">, Partial<Pick<Runtime, "broadcast" | "homes" | "telemetry">> {}

export type RunOutcome =
  | { status: "completed"; result: Result }
  | { status: "failed"; error: JsonRpcErrorObject }
  | { status: "input_required"; inputRequests: Record<string, InputRequest> }
  | { status: "aborted" };

/** @param onProgress the handler's latest `ctx.progress`, as a status message */
export async function runTask(start: TaskStart, answers: Record<string, unknown>, deps: TaskRunDeps, cancellation: Cancellation, onProgress: (message: string) => void): Promise<RunOutcome> {
  const { server, config } = deps;
  const tag = logId(start.taskId);
  const rounds = new InputRounds(answers, undefined, start.client.capabilities);
  let reply: JsonRpcResponse | undefined;
  const outlet: Outlet = {
    reply(message) {
      reply = message;
    },
    async notify(message) {
      if (!("method" in message) || message.method !== "notifications/progress") return;
      const { progress, total, message: text } = (message.params ?? {}) as { progress?: number; total?: number; message?: string };
      onProgress(text ?? (total === undefined ? `${progress}` : `${progress}/${total}`));
    },
    drop() {},
  };
  const scope: Scope = {
    env: deps.env,
    client: start.client,
    taskId: start.taskId,
    logLevel: () => undefined,
    ask: (method, params, key) => rounds.ask(method, params, key),
    resourceUpdated: async (uri) => deps.broadcast?.publish(resourceTopic(uri), notification("notifications/resources/updated", { uri })),
    listChanged: async (feature) => deps.broadcast?.publish(feature, notification(LIST_CHANGED_METHOD[feature])),
    finish: (result) => ({ ...result, resultType: "complete" }),
    // An ask that rejected the handler: the asks stand, and the task waits for their answers.
    recover: async (error) => (rounds.needsInput && !(error instanceof McpError) ? {} : undefined),
    reword: forThisEra,
    // No startTask: in the task itself `ctx.startTask()` resolves at once, as in a plain call.
  };
  // A progress token of its own, so that ctx.progress reports (and reaches the status message).
  const params = { ...start.params, _meta: { ...(start.params._meta as object | undefined), progressToken: start.taskId } };
  const exchange: Exchange = {
    request: { jsonrpc: "2.0", id: start.taskId, method: "tools/call", params },
    auth: start.auth,
    scope,
    outlet,
    cancellation,
    // The request's id is the task id, a bearer secret: log lines carry its tag instead.
    log: deps.logger.child({ task: tag }),
    loggedId: tag,
    timeoutMs: config.taskTimeoutMs,
    maxReplyBytes: Math.min(config.maxQueueBytes, MAX_TASK_VALUE_BYTES),
    run: (ctx) => runInHome(server, "tools/call", params, ctx, server.method("tools/call")!, { homes: deps.homes, owner: start.owner, freshHandle: start.taskId, client: async () => start.shareKey ?? start.owner ?? ANONYMOUS }),
    onError: server.onError,
  };
  // A run is the creating request's work, done later: its span is an internal child of the context
  // stored in the call's `_meta` (the creating call's span: `continuedParams`), naming the task by its tag only.
  const { telemetry } = deps;
  if (telemetry) {
    const parent = (start.params._meta as { traceparent?: unknown } | undefined)?.traceparent;
    exchange.trace = { telemetry, origin: { transport: "tcp", protocolVersion: start.client.protocolVersion, requestTag: tag, parent: typeof parent === "string" ? parent : undefined } };
  }
  await runExchange(exchange);
  const answered = reply as JsonRpcResponse | undefined;
  if (!answered) return { status: "aborted" };
  if (rounds.needsInput) return { status: "input_required", inputRequests: rounds.pending };
  if ("error" in answered) return { status: "failed", error: answered.error };
  return { status: "completed", result: answered.result };
}

/**
 * What a task is, stored and on the wire (tasks extension, "Tasks"). One `TaskState` per task,
 * small and rewritten on every change of status; the request it runs, the answers it was given
 * and its result are stored beside it under keys of their own (`TaskHost`), each bounded by
 * `MAX_TASK_VALUE_BYTES`.
 */
import type { JsonRpcErrorObject } from "../errors/McpError.ts";
import type { Principal } from "../auth/Principal.ts";
import type { Result } from "../definition/Method.ts";
import type { ClientView } from "../definition/RequestContext.ts";

export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** Statuses a task never leaves. */
export const TERMINAL: ReadonlySet<TaskStatus> = new Set(["completed", "failed", "cancelled"]);

/** One request to the client a task waits on, keyed in `inputRequests` (MRTR `InputRequest`). */
export interface InputRequest {
  method: string;
  params: Record<string, unknown>;
}

/**
 * The largest request, answer set or result one task stores, in bytes of JSON: under a Durable
 * Object's 2 MiB value limit with room to spare. A call whose arguments are larger cannot become
 * a task (-32602), a larger result fails the task (-32603), and answers past it are refused.
 */
export const MAX_TASK_VALUE_BYTES = 1024 * 1024;

export interface TaskState {
  taskId: string;
  /** The digest of the principal that created it (`Caller.owner`); undefined without authorization. */
  owner?: string;
  status: TaskStatus;
  statusMessage?: string;
  /** Epoch ms. */
  createdAt: number;
  lastUpdatedAt: number;
  ttlMs: number;
  pollIntervalMs: number;
  /** Outstanding requests to the client, while `input_required`. */
  inputRequests?: Record<string, InputRequest>;
  /** The JSON-RPC error of a `failed` task. */
  error?: JsonRpcErrorObject;
  /** Whether a run was under way when this was written: found true with no run in memory, the run was lost (eviction, deploy). */
  running: boolean;
  /** Runs lost so far; past `MAX_LOST_RUNS` the task fails rather than start again. */
  lostRuns: number;
}

/** What a task is started with: the call as it will run, and who made it. */
export interface TaskStart {
  taskId: string;
  owner?: string;
  /** Whose fair share it holds (`clientKey`), until it is cancelled or its TTL passes. */
  shareKey?: string;
  /** The `tools/call` params: `name`, `arguments`, `_meta`; never `inputResponses` or `requestState`. */
  params: Record<string, unknown>;
  /** The client as the creating request described it (its capabilities decide what the task may ask). */
  client: ClientView;
  /** The creating request's principal: the task's `ctx.auth` on every run. */
  auth?: Principal;
  /** Answers to asks made before the task started (`startsItself` tools), by key. */
  answers: Record<string, unknown>;
}

/** The `Task` fields of a state (`CreateTaskResult` without `resultType`). */
export function taskFields(state: TaskState): Result {
  const fields: Result = {
    taskId: state.taskId,
    status: state.status,
    createdAt: new Date(state.createdAt).toISOString(),
    lastUpdatedAt: new Date(state.lastUpdatedAt).toISOString(),
    ttlMs: state.ttlMs,
    pollIntervalMs: state.pollIntervalMs,
  };
  if (state.statusMessage !== undefined) fields.statusMessage = state.statusMessage;
  return fields;
}

/** `DetailedTask`: the fields, plus what the status carries (`inputRequests`, `result` or `error`). */
export function detailedTask(state: TaskState, result: Result | undefined): Result {
  const detailed = taskFields(state);
  if (state.status === "input_required") detailed.inputRequests = state.inputRequests ?? {};
  if (state.status === "completed" && result) detailed.result = result;
  if (state.status === "failed" && state.error) detailed.error = state.error;
  return detailed;
}

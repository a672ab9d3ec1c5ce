/**
 * The tasks extension on a 2026-07-28 request: whether a `tools/call` becomes a task (`planTask`),
 * creating it (`startTask`), and the methods that read and steer one (`taskMethod`). The checks
 * come in the extension's order: the extension declared in the request's `_meta` (-32021, before
 * any lookup), then the task (-32602, the same for an unknown id, an expired task and another
 * principal's).
 */
import type { Caller } from "../../shared/auth/Caller.ts";
import { ErrorCode } from "../../shared/errors/errorCodes.ts";
import { McpError } from "../../shared/errors/McpError.ts";
import { isObject } from "../../shared/jsonrpc/isObject.ts";
import { declaresTasks, TASK_METHODS, tasksRequired } from "../../shared/methods/tasksExtension.ts";
import type { Result } from "../../shared/definition/Method.ts";
import type { ClientView } from "../../shared/definition/RequestContext.ts";
import type { CompiledServer } from "../../shared/server/CompiledServer.ts";
import type { TaskOptions } from "../../shared/definition/ToolDefinition.ts";
import { isTaskId, newTaskId, type Tasks } from "../../shared/tasks/Tasks.ts";
import type { TaskRouting } from "../../shared/tasks/TaskRouting.ts";

/**
 * What a deployment with task tools and no task host lacks, in the words of its log line, `GET /`
 * and a required task's error: the export and the binding to add.
 */
export const NO_TASK_HOST =
  "this deployment hosts no tasks: on Workers, export `class McpTask extends worker.McpTask {}` from the entry and bind it as MCP_TASK in wrangler.toml";

/**
 * How a `tools/call` meets the extension: undefined for a plain call (the tool has no `task`; or
 * its task is optional and the request did not declare the extension, or no task host serves it,
 * which then is not advertised either), else the tool's task options.
 * @throws McpError -32603 naming what to add, for a tool that runs only as a task where no task host is configured; else -32021 for one when the request did not declare the extension
 */
export function planTask(server: CompiledServer, params: Record<string, unknown>, capabilities: Record<string, unknown>, tasks: Tasks | undefined): TaskOptions | undefined {
  const name = params.name;
  const options = typeof name === "string" ? server.taskOptions(name) : undefined;
  if (!options) return undefined;
  const required = options.support === "required";
  // The deployment first: a client cannot declare its way past a missing host, so -32021 would mislead it.
  if (!tasks) {
    if (required) throw new McpError(500, ErrorCode.InternalError, `Tool ${name as string} runs only as a task, and ${NO_TASK_HOST}`);
    return undefined;
  }
  if (!declaresTasks(capabilities)) {
    if (required) throw tasksRequired(`Tool ${name as string} runs only as a task, and so`);
    return undefined;
  }
  return options;
}

/** Creates the task for a call: the `CreateTaskResult` (`resultType: "task"`), sent once the task is stored; `shareKey`: whose fair share it holds. */
export async function startTask(tasks: Tasks, params: Record<string, unknown>, client: ClientView, caller: Caller | undefined, answers: Record<string, unknown>, shareKey?: string): Promise<Result> {
  // The call as the task runs it; the rounds that led here are spent.
  const { inputResponses: _answers, requestState: _state, ...call } = params;
  const fields = await tasks.create({ taskId: newTaskId(), owner: caller?.owner, shareKey, params: call, client, auth: caller?.auth, answers });
  return { resultType: "task", ...fields };
}

/** `tasks/get`, `tasks/update` or `tasks/cancel`; the caller adds `resultType`. */
export async function taskMethod(method: string, params: Record<string, unknown>, capabilities: Record<string, unknown>, tasks: Tasks | undefined, owner: string | undefined): Promise<Result> {
  if (!declaresTasks(capabilities)) throw tasksRequired(method);
  const { taskId } = params;
  if (typeof taskId !== "string") throw McpError.invalidParams(`${method} needs a "taskId" string`);
  const unknown = () => McpError.invalidParams(`Task not found: ${JSON.stringify(taskId.length > 64 ? `${taskId.slice(0, 64)}…` : taskId)} (it never existed, has expired, or is not yours)`);
  if (!tasks || !isTaskId(taskId)) throw unknown();
  switch (method) {
    case "tasks/get": {
      const task = await tasks.get(taskId, owner);
      if (!task) throw unknown();
      return task;
    }
    case "tasks/update": {
      if (!isObject(params.inputResponses)) throw McpError.invalidParams('tasks/update needs "inputResponses": the answers, keyed as the task\'s inputRequests');
      if (!(await tasks.update(taskId, owner, params.inputResponses))) throw unknown();
      return {};
    }
    default:
      if (!(await tasks.cancel(taskId, owner))) throw unknown();
      return {};
  }
}

/** What `tasks()` carries. */
export const TASK_ROUTING: TaskRouting = { methods: TASK_METHODS, plan: planTask, start: startTask, answer: taskMethod, unhosted: NO_TASK_HOST };

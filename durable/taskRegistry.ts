/**
 * Whether this Worker's entry exports the task class: `taskObject(server)` (`McpTask`) hosts the
 * task objects' client here (`durableTasks`), and the Worker asks for it (`hostedClient`). Without
 * the class, task tools are served as the definition says for a deployment without tasks
 * (`config.tasks`).
 */
import type { Tasks } from "../shared/tasks/Tasks.ts";
import { hostedClient } from "./hostedClient.ts";
import type { TaskObject } from "./TaskObject.ts";

export const taskObjects = hostedClient<TaskObject, Tasks>();

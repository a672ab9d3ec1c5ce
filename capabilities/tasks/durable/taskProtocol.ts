/**
 * What the Worker and a task object say to each other (`durableTasks.ts`, `TaskObject.ts`) besides
 * settled RPC outcomes (`settled.ts`): the header naming a listener's owner.
 */

/** The request header carrying a listener's owner digest (absent without authorization). */
export const OWNER_HEADER = "x-mcp-task-owner";

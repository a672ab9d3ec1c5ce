/**
 * The conformance fixture's tools for the tasks extension (SEP-2663): the names, arguments and
 * observable behaviour the referee's `tasks-*` scenarios expect, each an ordinary handler with a
 * `task` declaration. They come after every other tool: a scenario that calls the first listed
 * tool without declaring the extension must not meet one that runs only as a task.
 */
import { z } from "zod";
import { McpError, tool, toolError } from "durable-mcp";
import { ErrorCode } from "durable-mcp/protocol";
import type { ElicitParams } from "durable-mcp";
import { pause } from "../support/pause.ts";

const none = z.object({});
const confirmForm = (message: string): ElicitParams => ({
  message,
  requestedSchema: { type: "object", properties: { confirm: { type: "boolean" } }, required: ["confirm"] },
});
const nameForm = (message: string): ElicitParams => ({
  message,
  requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
});

export const taskTools = [
  tool({
    name: "greet",
    description: "Greets by name, at once (never a task)",
    input: z.object({ name: z.string() }),
    handler: async ({ name }) => `Hello, ${name}!`,
  }),
  tool({
    name: "slow_compute",
    description: "Computes for the given seconds, reporting progress each second; a task when the client declares the extension",
    input: z.object({ seconds: z.number().int().min(0).max(600), label: z.string() }),
    task: "optional",
    handler: async ({ seconds, label }, ctx) => {
      for (let second = 1; second <= seconds; second++) {
        await pause(1000, ctx.signal);
        await ctx.progress(second, seconds, `${label}: ${second} of ${seconds} seconds`);
      }
      return `Computation "${label}" completed after ${seconds} seconds. Result: 42.`;
    },
  }),
  tool({
    name: "failing_job",
    description: "Runs only as a task, and ends with a tool error after about a second",
    input: none,
    task: "required",
    handler: async (_args, ctx) => {
      await pause(1000, ctx.signal);
      return toolError("The job failed: the input data could not be processed");
    },
  }),
  tool({
    name: "protocol_error_job",
    description: "Runs only as a task, and fails with a JSON-RPC error after half a second",
    input: none,
    task: "required",
    handler: async (_args, ctx) => {
      await pause(500, ctx.signal);
      throw new McpError(500, ErrorCode.InternalError, "The job hit an internal error and could not finish");
    },
  }),
  tool({
    name: "confirm_delete",
    description: "Runs only as a task, and asks the user to confirm before deleting a file",
    input: z.object({ filename: z.string() }),
    task: "required",
    handler: async ({ filename }, ctx) => {
      const answer = await ctx.elicit(confirmForm(`Delete '${filename}'?`));
      return answer.action === "accept" && answer.content?.confirm === true ? `deleted '${filename}'` : `kept '${filename}'`;
    },
  }),
  tool({
    name: "multi_input",
    description: "Runs only as a task, and asks two questions at once",
    input: none,
    task: "required",
    handler: async (_args, ctx) => {
      const [name, confirm] = await Promise.all([ctx.elicit(nameForm("Enter your name:")), ctx.elicit(confirmForm("Confirm action?"))]);
      return `name=${JSON.stringify(name.content?.name ?? "")} confirmed=${confirm.content?.confirm === true}`;
    },
  }),
  tool({
    name: "test_tool_with_task",
    description: "Asks for a name in the request (multi round-trip), then goes on as a task",
    input: none,
    task: { support: "required", startsItself: true },
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit({ mode: "form", ...nameForm("What is your name?") }, { key: "user_name" });
      await ctx.startTask();
      return `Hello, ${String(answer.content?.name ?? "stranger")}!`;
    },
  }),
];

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { TASKS_EXTENSION } from "../methods/tasksExtension.ts";
import { tool } from "../server/defineServer.ts";
import { tasks } from "./tasks.ts";
import { CompiledServer } from "../server/CompiledServer.ts";

const job = tool({ name: "job", description: "Runs long", input: z.object({}), task: "optional", handler: async () => "done" });
const plain = tool({ name: "plain", description: "Runs short", input: z.object({}), handler: async () => "done" });

describe("tasks()", () => {
  it("is the switch a tool that may run as a task needs, named in the definition's problem", () => {
    expect(new CompiledServer({ name: "s", version: "1", tools: [job] }).problem?.message).toMatch(/Tool job may run as a task \("task"\), but "extensions" has no tasks\(\); add extensions: \[tasks\(\)\]/);
    expect(new CompiledServer({ name: "s", version: "1", tools: [job], extensions: [tasks()] }).problem).toBeUndefined();
    expect(new CompiledServer({ name: "s", version: "1", tools: [job], extensions: [tasks(), tasks()] }).problem?.message).toMatch(/listed twice/);
  });

  it("is advertised by server/discover alone, where a host serves tasks and some tool may run as one", () => {
    const server = new CompiledServer({ name: "s", version: "1", tools: [job], extensions: [tasks()] });
    expect((server.initialize({ protocolVersion: "2025-11-25" }).result.capabilities as Record<string, unknown>).extensions).toBeUndefined();
    expect((server.discover(true).capabilities as Record<string, unknown>).extensions).toEqual({ [TASKS_EXTENSION]: {} });
    expect((server.discover(false).capabilities as Record<string, unknown>).extensions).toBeUndefined();
    expect(server.extensionIds(true)).toEqual([TASKS_EXTENSION]);
    const idle = new CompiledServer({ name: "s", version: "1", tools: [plain], extensions: [tasks()] });
    expect((idle.discover(true).capabilities as Record<string, unknown>).extensions).toBeUndefined();
  });
});

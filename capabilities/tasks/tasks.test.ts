import { describe, expect, it } from "vitest";
import { z } from "zod";
import { TASKS_EXTENSION } from "../../shared/methods/tasksExtension.ts";
import { tool } from "../../shared/server/defineServer.ts";
import { tasks } from "./tasks.ts";
import { CompiledServer } from "../../shared/server/CompiledServer.ts";

const job = tool({ name: "job", description: "Runs long", input: z.object({}), task: "optional", handler: async () => "done" });
const plain = tool({ name: "plain", description: "Runs short", input: z.object({}), handler: async () => "done" });

describe("tasks()", () => {
  it("is the switch a tool that may run as a task needs, named in the definition's problem", () => {
    expect(new CompiledServer({ name: "s", version: "1", tools: [job] }).problem?.message).toMatch(/Tool job may run as a task \("task"\), but "use" has no tasks\(\); add use: \[tasks\(\)\]/);
    expect(new CompiledServer({ name: "s", version: "1", tools: [job], use: [tasks()] }).problem).toBeUndefined();
    expect(new CompiledServer({ name: "s", version: "1", tools: [job], use: [tasks(), tasks()] }).problem?.message).toMatch(/listed twice/);
  });

  it("is advertised by server/discover alone, where a host serves tasks and some tool may run as one", () => {
    const server = new CompiledServer({ name: "s", version: "1", tools: [job], use: [tasks()] });
    expect((server.initialize({ protocolVersion: "2025-11-25" }).result.capabilities as Record<string, unknown>).extensions).toBeUndefined();
    expect((server.discover(true).capabilities as Record<string, unknown>).extensions).toEqual({ [TASKS_EXTENSION]: {} });
    expect((server.discover(false).capabilities as Record<string, unknown>).extensions).toBeUndefined();
    expect(server.extensionIds(true)).toEqual([TASKS_EXTENSION]);
    const idle = new CompiledServer({ name: "s", version: "1", tools: [plain], use: [tasks()] });
    expect((idle.discover(true).capabilities as Record<string, unknown>).extensions).toBeUndefined();
  });
});

describe("tasks() outside Workers", () => {
  it("brings the host of a process (for serveMessages) and no part for Workers: the package's workerd variant brings that instead", () => {
    const capability = tasks();
    expect(capability.workers).toBeUndefined();
    expect(typeof (capability.local as { tasks?: unknown }).tasks).toBe("function");
  });
});

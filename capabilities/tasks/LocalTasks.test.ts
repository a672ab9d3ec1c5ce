/**
 * `LocalTasks`, the in-process task host (Deno, stdio): its bounds (MAX_TASKS, and per client
 * MAX_TASKS_PER_CLIENT and MAX_TASK_BYTES_PER_CLIENT) and its teardown.
 * Its timers and clock are faked (setImmediate stays real, to let promise chains settle), so a
 * TTL of a minute passes at once and `vi.getTimerCount()` shows whether any timer is left.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { MemoryBroadcaster } from "../../shared/broadcast/MemoryBroadcaster.ts";
import { readConfig } from "../../shared/config/readConfig.ts";
import { ErrorCode } from "../../shared/errors/errorCodes.ts";
import { Logger } from "../../shared/log/Logger.ts";
import { tool } from "../../shared/server/defineServer.ts";
import { tasks } from "./tasks.ts";
import type { RequestContext } from "../../shared/definition/RequestContext.ts";
import { mcpError } from "../../shared/testing/testKit.ts";
import { clientKey } from "../../shared/shares/clientKey.ts";
import { LocalTasks } from "./LocalTasks.ts";
import { LocalShares } from "../../shared/shares/LocalShares.ts";
import { newTaskId } from "../../shared/tasks/Tasks.ts";
import { MAX_TASK_VALUE_BYTES, type TaskStart } from "../../shared/tasks/TaskState.ts";
import { CompiledServer } from "../../shared/server/CompiledServer.ts";

const TTL_MS = 60_000;
const config = readConfig({ MAX_TASKS: "3", TASK_TTL_MS: String(TTL_MS), LOG_LEVEL: "error" });
/** Per client: two tasks, and 3 KB of stored calls. */
const perClient = readConfig({ MAX_TASKS_PER_CLIENT: "2", MAX_TASK_BYTES_PER_CLIENT: "3000", TASK_TTL_MS: String(TTL_MS), LOG_LEVEL: "error" });

function tasksWith(handler: (ctx: RequestContext) => Promise<string>, limits = config): LocalTasks {
  const server = new CompiledServer({ name: "local-tasks-test", version: "1", tools: [tool({ name: "job", description: "Runs the test's handler", input: z.object({ text: z.string().optional() }), task: "required", handler: (_args, ctx) => handler(ctx) })], use: [tasks()] });
  return new LocalTasks({ server, config: limits, logger: new Logger("error"), env: {}, broadcast: new MemoryBroadcaster(65_536), shares: new LocalShares(limits) });
}

/** Each task its own client unless one is named: one client alone is held back from the total by the room kept for newcomers. */
const startOf = (text?: string, shareKey = `client-${crypto.randomUUID()}`): TaskStart => ({
  taskId: newTaskId(),
  shareKey,
  params: { name: "job", arguments: text === undefined ? {} : { text } },
  client: { protocolVersion: "2026-07-28", capabilities: {} },
  answers: {},
});

/** Lets promise chains run (on real macrotasks) until `condition` holds; fails after a generous number of turns. */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (let turn = 0; turn < 1_000; turn++) {
    if (condition()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`never happened: ${what}`);
}

beforeEach(() => vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] }));
afterEach(() => vi.useRealTimers());

describe("LocalTasks: MAX_TASKS", () => {
  it("refuses a task past MAX_TASKS with 429, -32000 and Retry-After, and takes one again once a task's TTL frees its slot", async () => {
    const tasks = tasksWith(async () => "done");
    const first = startOf();
    await tasks.create(first);
    await vi.advanceTimersByTimeAsync(TTL_MS / 2);
    await tasks.create(startOf());
    await tasks.create(startOf());
    expect(tasks.size).toBe(3);

    const refused = await mcpError(tasks.create(startOf()));
    expect(refused.status).toBe(429);
    expect(refused.code).toBe(ErrorCode.ServerBusy);
    expect(refused.headers).toEqual({ "retry-after": "60" });
    expect(refused.message).toBe("This server holds 3 tasks, the most it holds at once (MAX_TASKS); retry after 60s");
    expect(tasks.size).toBe(3);

    // The first task's TTL passes; the two younger ones stay.
    await vi.advanceTimersByTimeAsync(TTL_MS / 2);
    await until(() => tasks.size === 2, "the first task is forgotten at its TTL");
    expect(await tasks.get(first.taskId, undefined)).toBeUndefined();
    await tasks.create(startOf());
    expect(tasks.size).toBe(3);
    expect((await mcpError(tasks.create(startOf()))).status).toBe(429);
    tasks.close();
  });

  it("keeps no slot for a call refused as too large", async () => {
    const tasks = tasksWith(async () => "done");
    const error = await mcpError(tasks.create(startOf("x".repeat(MAX_TASK_VALUE_BYTES))));
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(tasks.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    tasks.close();
  });

  it("frees a cancelled task's slot at once, and keeps its status readable until its TTL", async () => {
    const tasks = tasksWith(async () => "done");
    const starts = [startOf(), startOf(), startOf()];
    for (const start of starts) await tasks.create(start);
    expect((await mcpError(tasks.create(startOf()))).status).toBe(429);
    expect(await tasks.cancel(starts[0]!.taskId, undefined)).toBe(true);
    await tasks.create(startOf());
    expect(await tasks.get(starts[0]!.taskId, undefined)).toMatchObject({ status: "cancelled" });
    await vi.advanceTimersByTimeAsync(TTL_MS);
    await until(() => tasks.size === 0, "every task is forgotten at its TTL");
    tasks.close();
  });

  it("holds at most twice MAX_TASKS tasks, cancelled ones forgotten early, oldest first", async () => {
    const tasks = tasksWith(async () => "done");
    const cancelled: string[] = [];
    for (let round = 0; round < 5; round++) {
      const start = startOf();
      await tasks.create(start);
      await tasks.cancel(start.taskId, undefined);
      cancelled.push(start.taskId);
    }
    // Five created and cancelled, three live: six held (twice MAX_TASKS) at most.
    for (let i = 0; i < 3; i++) await tasks.create(startOf());
    expect(tasks.size).toBe(6);
    expect(await tasks.get(cancelled[0]!, undefined)).toBeUndefined();
    expect(await tasks.get(cancelled[4]!, undefined)).toMatchObject({ status: "cancelled" });
    tasks.close();
  });
});

describe("LocalTasks: fair shares", () => {
  it("refuses a client past MAX_TASKS_PER_CLIENT while another client is served, and frees its slot on cancel", async () => {
    const tasks = tasksWith(async () => "done", perClient);
    const mine = [startOf(undefined, "greedy"), startOf(undefined, "greedy")];
    for (const start of mine) await tasks.create(start);
    const refused = await mcpError(tasks.create(startOf(undefined, "greedy")));
    expect(refused.status).toBe(429);
    expect(refused.headers).toEqual({ "retry-after": "60" });
    expect(refused.message).toBe("This client holds 2 tasks, the most one client may hold at once (MAX_TASKS_PER_CLIENT); retry after 60s");
    await tasks.create(startOf(undefined, "modest"));
    await tasks.cancel(mine[0]!.taskId, undefined);
    await tasks.create(startOf(undefined, "greedy"));
    tasks.close();
  });

  it("refuses a client whose stored arguments would pass MAX_TASK_BYTES_PER_CLIENT", async () => {
    const tasks = tasksWith(async () => "done", perClient);
    await tasks.create(startOf("x".repeat(2_000), "bulky"));
    const refused = await mcpError(tasks.create(startOf("y".repeat(1_500), "bulky")));
    expect(refused.status).toBe(429);
    expect(refused.message).toMatch(/^This client's tasks would hold \d+ bytes of arguments, past the 3000 one client may \(MAX_TASK_BYTES_PER_CLIENT\); retry after 60s$/);
    await tasks.create(startOf("y".repeat(1_500), "other"));
    tasks.close();
  });
});

describe("LocalTasks: room for a newcomer", () => {
  it("starts a newcomer's task after a client with ten addresses starts all the tasks and stores all the bytes it may", async () => {
    // The defaults' proportion: one client may hold a tenth of the total, in tasks and in bytes.
    const crowded = readConfig({ MAX_TASKS: "100", MAX_TASKS_PER_CLIENT: "10", MAX_TASK_BYTES: "100000", MAX_TASK_BYTES_PER_CLIENT: "10000", TASK_TTL_MS: String(TTL_MS), LOG_LEVEL: "error" });
    for (const text of [undefined, "x".repeat(900)]) {
      const tasks = tasksWith(async () => "done", crowded);
      let started = 0;
      for (let network = 1; network <= 10; network++) {
        const greedy = await clientKey(undefined, `198.51.${network}.7`);
        for (let attempt = 0; attempt < 20; attempt++) {
          const refused = await tasks.create(startOf(text, greedy)).then(() => undefined, (error: unknown) => error);
          if (refused) break;
          started++;
        }
      }
      const newcomer = await tasks.create(startOf(text, await clientKey(undefined, "203.0.113.9"))).then(() => "served", (error: Error) => error.message);
      expect(newcomer).toBe("served");
      tasks.close();
    }
  });
});

describe("LocalTasks: close", () => {
  it("aborts the runs under way, forgets every task and leaves no timer", async () => {
    const aborted: unknown[] = [];
    let started = 0;
    const tasks = tasksWith(async (ctx) => {
      started++;
      await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
      aborted.push(ctx.signal.reason);
      return "finished after the abort";
    });
    const starts = [startOf(), startOf()];
    for (const start of starts) await tasks.create(start);
    await vi.advanceTimersByTimeAsync(0);
    await until(() => started === 2, "both runs start");
    // Each run holds a lease wakeup, a heartbeat and a deadline.
    expect(vi.getTimerCount()).toBeGreaterThan(0);

    tasks.close();
    await until(() => aborted.length === 2, "both runs see their signal abort");
    await until(() => vi.getTimerCount() === 0, "every timer is cleared");
    expect(tasks.size).toBe(0);
    expect(await tasks.get(starts[0]!.taskId, undefined)).toBeUndefined();
  });
});

/**
 * `PgTasks` on a real PostgreSQL: processes are `PgTasks` on connection pools of their own,
 * sharing one database. A task created through one is run by another; two racing for one task
 * run it once; a run whose process stops without giving its lease back is taken by another once
 * the lease lapses (TASK_LEASE_MS is 3 s here) and completes; a listener on one process hears a
 * task finish on another; a cancellation through one stops the run on another; a task past its
 * TTL leaves no row; a task past the bound is refused and leaves no row. A Deno process killed
 * outright mid-run (`test/fixtures/pgTasksDeno.ts`) loses its task to another, which completes it.
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import postgres, { type Sql } from "postgres";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { z } from "zod";
import { DENO_FLAGS, denoBinary } from "../../scripts/startDenoServer.mjs";
import { migrate } from "../../postgres/migrate.ts";
import { PgStorage } from "../../postgres/PgStorage.ts";
import { PgTasks } from "../../capabilities/tasks/postgres/PgTasks.ts";
import { tasks } from "../../capabilities/tasks/tasks.ts";
import { MemoryBroadcaster } from "../../shared/broadcast/MemoryBroadcaster.ts";
import { type Config, readConfig } from "../../shared/config/readConfig.ts";
import { ErrorCode } from "../../shared/errors/errorCodes.ts";
import { Logger } from "../../shared/log/Logger.ts";
import { CompiledServer } from "../../shared/server/CompiledServer.ts";
import { tool } from "../../shared/server/defineServer.ts";
import { LocalShares } from "../../shared/shares/LocalShares.ts";
import { PgShares } from "../../postgres/PgShares.ts";
import { mcpError } from "../../shared/testing/testKit.ts";
import { newTaskId } from "../../shared/tasks/Tasks.ts";
import type { TaskStart } from "../../shared/tasks/TaskState.ts";
import { type FreshDatabase, freshDatabase } from "../support/freshDatabase.ts";
import { pause } from "../support/pause.ts";

const config = readConfig({ TASK_LEASE_MS: "3000", TASK_TTL_MS: "600000", MAX_TASKS: "4", LOG_LEVEL: "error" });

/** Runs of each task's handler so far, in every process here. */
const runs = new Map<string, number>();
/** The tasks whose first run waits until aborted, as a run on a process that dies does. */
const hangFirst = new Set<string>();
/** The tasks one of whose runs was aborted. */
const aborted = new Set<string>();

const server = new CompiledServer({
  name: "pg-tasks-test",
  version: "1",
  tools: [
    tool({
      name: "job",
      description: "Runs `steps` steps of `ms` each",
      input: z.object({ steps: z.number(), ms: z.number() }),
      task: "required",
      handler: async ({ steps, ms }, ctx) => {
        const run = (runs.get(ctx.taskId!) ?? 0) + 1;
        runs.set(ctx.taskId!, run);
        ctx.signal.addEventListener("abort", () => aborted.add(ctx.taskId!), { once: true });
        if (run === 1 && hangFirst.has(ctx.taskId!)) await pause(3_600_000, ctx.signal);
        for (let step = 1; step <= steps; step++) {
          await pause(ms, ctx.signal);
          await ctx.progress(step, steps, `step ${step} of ${steps}`);
        }
        return `finished ${steps} steps on run ${run}`;
      },
    }),
  ],
  use: [tasks()],
});

let database: FreshDatabase;
const pools: Sql[] = [];
const hosts: PgTasks[] = [];

beforeAll(async () => {
  database = await freshDatabase();
  await migrate(pool());
});
afterEach(async () => {
  for (const host of hosts.splice(0)) host.close();
  await pool()`DELETE FROM mcp_tasks`;
});
afterAll(async () => {
  await Promise.all(pools.map((sql) => sql.end()));
  await database?.drop();
});

/** A connection pool of its own: a process. */
function pool(): Sql {
  const sql = postgres(database.url, { max: 3, onnotice: () => {} });
  pools.push(sql);
  return sql;
}

/** A process's task host, on a pool of its own, with its own fair shares (or, told so, the database's); `start`ed unless told not to. */
async function host(options: { start?: boolean; limits?: Config; sharesInDatabase?: boolean } = {}): Promise<PgTasks> {
  const limits = options.limits ?? config;
  const sql = pool();
  const shares = options.sharesInDatabase ? new PgShares(sql, limits) : new LocalShares(limits);
  const tasksHost = new PgTasks(sql, { server, config: limits, logger: new Logger("error"), env: {}, broadcast: new MemoryBroadcaster(65_536), shares });
  hosts.push(tasksHost);
  if (options.start !== false) await tasksHost.start();
  return tasksHost;
}

const startOf = (steps: number, ms: number): TaskStart => ({
  taskId: newTaskId(),
  shareKey: `client-${crypto.randomUUID()}`,
  params: { name: "job", arguments: { steps, ms } },
  client: { protocolVersion: "2026-07-28", capabilities: {} },
  answers: {},
});

/** Reads the task through `host` until `done` holds, or fails with what it last saw. */
async function until(host: PgTasks, taskId: string, done: (task: any) => boolean, owner?: string): Promise<any> {
  const deadline = Date.now() + 20_000;
  let last: any;
  while (Date.now() < deadline) {
    last = await host.get(taskId, owner);
    if (done(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`task ${taskId} never got there: ${JSON.stringify(last)}`);
}

const rowsOf = async (taskId: string) => {
  const [row] = await pools[0]!`
    SELECT (SELECT count(*) FROM mcp_tasks WHERE id = ${taskId})::integer + (SELECT count(*) FROM mcp_task_entries WHERE owner = ${taskId})::integer
      + (SELECT count(*) FROM mcp_shares WHERE resource = 'task' AND id = ${taskId})::integer AS n`;
  return row!.n as number;
};

it("runs a task created through one process on another", async () => {
  // A process that accepts tasks but runs none (it is shutting down): the other runs it.
  const creator = await host({ start: false });
  creator.close();
  const runner = await host();
  const start = startOf(2, 50);
  await creator.create(start);
  const done = await until(runner, start.taskId, (task) => task?.status === "completed");
  expect(done.result.content[0].text).toBe("finished 2 steps on run 1");
  expect(await creator.get(start.taskId, undefined)).toMatchObject({ status: "completed" });
});

it("runs a task once when two processes race for it", async () => {
  const creator = await host({ start: false });
  creator.close();
  const starts = [startOf(0, 0), startOf(0, 0), startOf(0, 0)];
  for (const start of starts) await creator.create(start);
  const [one, two] = await Promise.all([host(), host()]);
  for (const start of starts) {
    await until(one, start.taskId, (task) => task?.status === "completed");
    expect(await two.get(start.taskId, undefined)).toMatchObject({ status: "completed" });
  }
  // Well past any second claim's chance: still one run each.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  expect(starts.map((start) => runs.get(start.taskId))).toEqual([1, 1, 1]);
});

it("runs again, on another process, a task whose process stopped mid-run without giving back its lease", { timeout: 30_000 }, async () => {
  const first = await host();
  const start = startOf(2, 50);
  hangFirst.add(start.taskId);
  await first.create(start);
  await until(first, start.taskId, () => runs.get(start.taskId) === 1);
  const [lease] = await pools[0]!`SELECT lease_owner, lease_until FROM mcp_tasks WHERE id = ${start.taskId}`;
  expect(lease!.lease_owner).toBe(first.leaseOwner);
  expect(lease!.lease_until.getTime()).toBeGreaterThan(Date.now());
  // The process goes away: its run stops, its lease is left to lapse.
  first.close();
  expect((await pools[0]!`SELECT lease_owner FROM mcp_tasks WHERE id = ${start.taskId}`)[0]!.lease_owner).toBe(first.leaseOwner);
  const second = await host();
  const done = await until(second, start.taskId, (task) => task?.status === "completed");
  expect(done.result.content[0].text).toBe("finished 2 steps on run 2");
  expect(runs.get(start.taskId)).toBe(2);
});

it("completes, on this process, a task whose run was under way in a process killed outright (Deno, SIGKILL)", { timeout: 60_000 }, async () => {
  const child = spawn(denoBinary, [...DENO_FLAGS, "test/fixtures/pgTasksDeno.ts", database.url], { stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  try {
    const [line] = await createInterface({ input: child.stdout! })[Symbol.asyncIterator]().next().then((next) => [next.value as string]);
    const { taskId, leaseOwner } = JSON.parse(line!);
    expect((await pools[0]!`SELECT lease_owner FROM mcp_tasks WHERE id = ${taskId}`)[0]!.lease_owner).toBe(leaseOwner);
    child.kill("SIGKILL");
    await exited;
    const survivor = await host();
    const done = await until(survivor, taskId, (task) => task?.status === "completed");
    expect(done.result.content[0].text).toBe("finished 2 steps on run 1");
  } finally {
    child.kill("SIGKILL");
  }
});

it("stops a run whose lease another process holds now, and runs the task again once that lease lapses", { timeout: 30_000 }, async () => {
  const runner = await host();
  const start = startOf(2, 50);
  hangFirst.add(start.taskId);
  await runner.create(start);
  await until(runner, start.taskId, () => runs.get(start.taskId) === 1);
  // Another process took the wakeup (this one's lease lapsed in a pause): the run here stops at its next renewal.
  await pools[0]!`UPDATE mcp_tasks SET lease_owner = 'another-process', lease_until = now() + interval '1 hour' WHERE id = ${start.taskId}`;
  await until(runner, start.taskId, () => aborted.has(start.taskId));
  expect(await runner.get(start.taskId, undefined)).toMatchObject({ status: "working" });
  expect((await pools[0]!`SELECT lease_owner FROM mcp_tasks WHERE id = ${start.taskId}`)[0]!.lease_owner).toBe("another-process");
  // That process died too: its lease lapses, and the task runs again.
  await pools[0]!`UPDATE mcp_tasks SET lease_until = now() - interval '1 second', wake_at = now() WHERE id = ${start.taskId}`;
  const done = await until(runner, start.taskId, (task) => task?.status === "completed");
  expect(done.result.content[0].text).toBe("finished 2 steps on run 2");
});

it("lets a listener on one process hear a task complete on another", async () => {
  const runner = await host();
  const listener = await host({ start: false });
  await listener.start();
  const start = startOf(3, 300);
  await runner.create(start);
  const controller = new AbortController();
  const stream = (await listener.watch(start.taskId, undefined, controller.signal))!;
  expect(stream).toBeDefined();
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  const heard: any[] = [];
  let buffered = "";
  while (!heard.some((task) => task.status === "completed")) {
    const { done, value } = await reader.read();
    if (done) break;
    buffered += value;
    const lines = buffered.split("\n");
    buffered = lines.pop()!;
    for (const line of lines) {
      const told = JSON.parse(line);
      // Each change is the notification a listen relays as it is.
      expect(told).toMatchObject({ jsonrpc: "2.0", method: "notifications/tasks" });
      heard.push(told.params);
    }
  }
  expect(heard.at(-1)).toMatchObject({ status: "completed", result: { content: [{ type: "text", text: "finished 3 steps on run 1" }] } });
  controller.abort();
  await reader.cancel();
  // Not the listener's: another principal's watch finds no task.
  expect(await listener.watch(start.taskId, "someone-else", controller.signal)).toBeUndefined();
});

it("stops a run on one process when the task is cancelled through another", async () => {
  const runner = await host();
  const other = await host({ start: false });
  const start = startOf(100, 100);
  await runner.create(start);
  await until(other, start.taskId, (task) => /^step \d+ of 100$/.test(task?.statusMessage ?? ""));
  expect(await other.cancel(start.taskId, undefined)).toBe(true);
  const seen = await until(runner, start.taskId, (task) => task?.status === "cancelled");
  // The run has stopped: its progress moves on no more, and the status stays cancelled.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  expect(await runner.get(start.taskId, undefined)).toMatchObject({ status: "cancelled", statusMessage: seen.statusMessage });
  expect(runs.get(start.taskId)).toBe(1);
});

it("leaves no row of a task past its TTL, its fair share's included, swept by whichever process polls", async () => {
  const runner = await host({ sharesInDatabase: true });
  const start = startOf(0, 0);
  await runner.create(start);
  await until(runner, start.taskId, (task) => task?.status === "completed");
  expect(await rowsOf(start.taskId)).toBeGreaterThan(0);
  // Its TTL passes (moved into the past, as time would) while no process holds its wakeup.
  await pools[0]!`UPDATE mcp_tasks SET expires_at = now() - interval '1 second', wake_at = NULL WHERE id = ${start.taskId}`;
  const deadline = Date.now() + 10_000;
  while ((await rowsOf(start.taskId)) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  expect(await rowsOf(start.taskId)).toBe(0);
  expect(await runner.get(start.taskId, undefined)).toBeUndefined();
});

it("leaves no row that a late write made again for a task already deleted", async () => {
  await host();
  const taskId = newTaskId();
  // A run's last write, landing after its task was erased: the row it makes has no TTL.
  await PgStorage.task(pools[0]!, taskId).put("task", { status: "working" });
  expect(await rowsOf(taskId)).toBe(2);
  const deadline = Date.now() + 10_000;
  while ((await rowsOf(taskId)) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  expect(await rowsOf(taskId)).toBe(0);
});

it("leaves no row of a task its host deletes at its TTL, its fair share's included", { timeout: 30_000 }, async () => {
  const runner = await host({ limits: readConfig({ TASK_LEASE_MS: "3000", TASK_TTL_MS: "2000", LOG_LEVEL: "error" }), sharesInDatabase: true });
  const start = startOf(0, 0);
  await runner.create(start);
  const deadline = Date.now() + 15_000;
  while ((await rowsOf(start.taskId)) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
  expect(await rowsOf(start.taskId)).toBe(0);
});

it("refuses a task past MAX_TASKS with 429, and keeps no row of it", async () => {
  const runner = await host({ start: false });
  const held = [startOf(100, 1_000), startOf(100, 1_000), startOf(100, 1_000), startOf(100, 1_000)];
  for (const start of held) await runner.create(start);
  const refused = startOf(0, 0);
  const error = await mcpError(runner.create(refused));
  expect(error.status).toBe(429);
  expect(error.code).toBe(ErrorCode.ServerBusy);
  expect(await rowsOf(refused.taskId)).toBe(0);
  // A call too large to store is refused the same way: nothing kept.
  const large = { ...startOf(0, 0), params: { name: "job", arguments: { steps: 0, ms: 0, pad: "x".repeat(1024 * 1024) } } };
  expect((await mcpError(runner.create(large))).code).toBe(ErrorCode.InvalidParams);
  expect(await rowsOf(large.taskId)).toBe(0);
});

it("erases a principal's tasks for every process: no row is left", async () => {
  const one = await host();
  const two = await host({ start: false });
  const mine = { ...startOf(100, 100), owner: "owner-digest" };
  const theirs = startOf(0, 0);
  await one.create(mine);
  await one.create(theirs);
  await until(two, mine.taskId, (task) => /^step \d+ of 100$/.test(task?.statusMessage ?? ""), "owner-digest");
  expect(await two.eraseOwnedBy("owner-digest")).toBe(1);
  expect(await rowsOf(mine.taskId)).toBe(0);
  expect(await one.get(mine.taskId, "owner-digest")).toBeUndefined();
  expect(await rowsOf(theirs.taskId)).toBeGreaterThan(0);
});

it("refuses to start, with the driver's error, while the database cannot be reached", async () => {
  const unreachable = postgres("postgres://nobody@127.0.0.1:1/none", { max: 1, connect_timeout: 2, onnotice: () => {} });
  pools.push(unreachable);
  const tasksHost = new PgTasks(unreachable, { server, config, logger: new Logger("error"), env: {}, broadcast: new MemoryBroadcaster(65_536), shares: new LocalShares(config) });
  hosts.push(tasksHost);
  await expect(tasksHost.start()).rejects.toThrow(/ECONNREFUSED|connect/);
  await expect(tasksHost.start()).rejects.toThrow(/ECONNREFUSED|connect/);
});

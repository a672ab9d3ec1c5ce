/**
 * `PgTasks` behind the routes, as a Node server on PostgreSQL serves it: two servers (each its own
 * runtime, connection pool and task host) on one database, over real HTTP. A `tools/call` that
 * becomes a task through one is read through the other while it runs there and once it
 * completes; a task is cancelled through the server not running it, whose run is aborted and
 * whose late result is discarded; an id of no task answers -32602 on either.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import postgres, { type Sql } from "postgres";
import { afterAll, beforeAll, expect, it } from "vitest";
import { nodeListener } from "../../node/nodeListener.ts";
import { migrate } from "../../postgres/migrate.ts";
import { PgTasks } from "../../capabilities/tasks/postgres/PgTasks.ts";
import { readConfig } from "../../shared/config/readConfig.ts";
import { LocalSessions } from "../../shared/host/LocalSessions.ts";
import { Logger } from "../../shared/log/Logger.ts";
import { createRouter } from "../../shared/routes/createRouter.ts";
import { localRuntime } from "../../shared/runtime/localRuntime.ts";
import { compiledOf } from "../../shared/server/ServerDefinition.ts";
import { postModern } from "../support/httpSession.ts";
import { type FreshDatabase, freshDatabase } from "../support/freshDatabase.ts";
import testServer, { taskProbes } from "../runtime/testServer.ts";

const TASKS = { extensions: { "io.modelcontextprotocol/tasks": {} } };

interface Served {
  url: string;
  close(): Promise<void>;
}

let database: FreshDatabase;
const pools: Sql[] = [];
let one: Served;
let two: Served;

/** A server as `serveNode` makes one, its tasks in PostgreSQL: a process of the fleet. */
async function serve(): Promise<Served> {
  const sql = postgres(database.url, { max: 4, onnotice: () => {} });
  pools.push(sql);
  const definition = compiledOf(testServer, "test");
  const config = readConfig({ TASK_LEASE_MS: "3000", LOG_LEVEL: "error" });
  let tasks: PgTasks | undefined;
  const runtime = localRuntime(definition, { env: {}, config, logger: new Logger("error"), tasks: (parts) => (tasks = new PgTasks(sql, parts)) });
  await tasks!.start();
  const sessions = new LocalSessions(runtime);
  const handle = createRouter<Record<string, string>>(definition, () => ({ ...runtime, sessions }));
  const http: Server = createServer();
  http.on("request", nodeListener((request, address) => handle(request, {}, address)));
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    async close() {
      runtime.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

beforeAll(async () => {
  database = await freshDatabase();
  const sql = postgres(database.url, { max: 1, onnotice: () => {} });
  pools.push(sql);
  await migrate(sql);
  [one, two] = await Promise.all([serve(), serve()]);
});
afterAll(async () => {
  await Promise.all([one?.close(), two?.close()]);
  await Promise.all(pools.map((sql) => sql.end()));
  await database?.drop();
});

async function rpc(server: Served, method: string, params: Record<string, unknown>, name: string): Promise<any> {
  const response = await postModern(server.url, method, params, { capabilities: TASKS, name });
  return response.json();
}

async function until(server: Served, taskId: string, done: (task: any) => boolean): Promise<any> {
  const deadline = Date.now() + 30_000;
  let last: any;
  while (Date.now() < deadline) {
    last = (await rpc(server, "tasks/get", { taskId }, taskId)).result;
    if (done(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`task ${taskId} never got there: ${JSON.stringify(last)}`);
}

it("reads through one server a task created and run through the other, while it runs and once it completes", { timeout: 60_000 }, async () => {
  const created = (await rpc(one, "tools/call", { name: "task_steps", arguments: { steps: 5, ms: 200 } }, "task_steps")).result;
  expect(created).toMatchObject({ resultType: "task", status: "working" });
  await until(two, created.taskId, (task) => /^step \d+ of 5$/.test(task?.statusMessage ?? ""));
  const done = await until(two, created.taskId, (task) => task?.status === "completed");
  expect(done.result.content[0].text).toBe("finished 5 steps");
});

it("cancels through one server a task running on the other: its run is aborted there, and what it returns after is discarded", { timeout: 60_000 }, async () => {
  const created = (await rpc(one, "tools/call", { name: "task_until_cancelled", arguments: { ms: 60_000 } }, "task_until_cancelled")).result;
  expect(created).toMatchObject({ resultType: "task", status: "working" });
  const deadline = Date.now() + 20_000;
  while (taskProbes.get(created.taskId)?.runs !== 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  expect((await rpc(two, "tasks/cancel", { taskId: created.taskId }, created.taskId)).result).toBeDefined();
  while (!taskProbes.get(created.taskId)?.returnedAfterAbort && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  expect(taskProbes.get(created.taskId)).toMatchObject({ runs: 1, abortedWith: "the task was cancelled", returnedAfterAbort: true });
  for (const server of [one, two]) expect((await rpc(server, "tasks/get", { taskId: created.taskId }, created.taskId)).result).toMatchObject({ status: "cancelled" });
});

it("answers -32602 on either server for an id of no task", async () => {
  const taskId = "0".repeat(32);
  for (const server of [one, two]) expect((await rpc(server, "tasks/get", { taskId }, taskId)).error).toMatchObject({ code: -32602 });
});

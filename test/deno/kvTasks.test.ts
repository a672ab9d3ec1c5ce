/**
 * Tasks across Deno processes: two Deno servers on one KV file. A task created through
 * one is running there when that process is killed outright; its lease lapses (TASK_LEASE_MS is
 * 3 s here), the other process picks it up and runs it again from the top, and the task completes —
 * read through the other process, as is its progress while it runs. Another task is cancelled
 * through the process that is not running it, and its run stops.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startDenoServer } from "../../scripts/startDenoServer.mjs";
import { postModern } from "../support/httpSession.ts";

const TASKS = { extensions: { "io.modelcontextprotocol/tasks": {} } };
const vars = { LOG_LEVEL: "error", TASK_LEASE_MS: "3000", TASK_POLL_INTERVAL_MS: "200" };

type Server = Awaited<ReturnType<typeof startDenoServer>>;
let dir: string;
let first: Server | undefined;
let second: Server | undefined;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "durable-mcp-kv-tasks-"));
  const kvPath = join(dir, "shared.kv");
  // Started together, as a deployment's instances are: the KV file is opened by both at once.
  [first, second] = await Promise.all([0, 1].map(() => startDenoServer({ definition: "test/runtime/testServer.ts", vars, kvPath })));
});
afterAll(async () => {
  await Promise.all([first?.dispose(), second?.dispose()]);
  await rm(dir, { recursive: true, force: true });
});

async function rpc(server: Server, method: string, params: Record<string, unknown>, name: string): Promise<any> {
  const response = await postModern(server.url, method, params, { capabilities: TASKS, name });
  const answer = (await response.json()) as any;
  if (answer.error) throw new Error(`${method}: ${JSON.stringify(answer.error)}`);
  return answer.result;
}

const getTask = (server: Server, taskId: string) => rpc(server, "tasks/get", { taskId }, taskId);

/** Polls `tasks/get` through `server` until `done` holds for the task, or fails with what it last saw. */
async function until(server: Server, taskId: string, done: (task: any) => boolean, within = 30_000): Promise<any> {
  const deadline = Date.now() + within;
  let last: any;
  while (Date.now() < deadline) {
    last = await getTask(server, taskId);
    if (done(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`task ${taskId} never got there: ${JSON.stringify(last)}`);
}

it("completes a task whose process was killed mid-run, picked up by the other process, and read through it", { timeout: 90_000 }, async () => {
  const created = await rpc(first!, "tools/call", { name: "task_steps", arguments: { steps: 10, ms: 300 } }, "task_steps");
  expect(created).toMatchObject({ resultType: "task", status: "working" });
  // Its progress is stored, so the other process shows it: the run is under way in the first.
  await until(second!, created.taskId, (task) => /^step \d+ of 10$/.test(task.statusMessage ?? ""));
  await first!.kill();
  first = undefined;
  const done = await until(second!, created.taskId, (task) => task.status === "completed", 60_000);
  expect(done.result.content[0].text).toBe("finished 10 steps");
});

it("stops a run in one process when the task is cancelled through the other", { timeout: 60_000 }, async () => {
  const third = await startDenoServer({ definition: "test/runtime/testServer.ts", vars, kvPath: join(dir, "shared.kv") });
  try {
    const created = await rpc(third, "tools/call", { name: "task_steps", arguments: { steps: 100, ms: 200 } }, "task_steps");
    await until(second!, created.taskId, (task) => /^step \d+ of 100$/.test(task.statusMessage ?? ""));
    await rpc(second!, "tasks/cancel", { taskId: created.taskId }, created.taskId);
    const cancelled = await getTask(third, created.taskId);
    expect(cancelled.status).toBe("cancelled");
    // The run has stopped: its progress no longer moves on, and the status stays cancelled.
    const seen = (await getTask(second!, created.taskId)).statusMessage;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await getTask(second!, created.taskId)).toMatchObject({ status: "cancelled", statusMessage: seen });
  } finally {
    await third.dispose();
  }
});

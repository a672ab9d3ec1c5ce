/**
 * The task Durable Object (`capabilities/tasks/durable/TaskObject.ts`) inside real workerd, where the in-process
 * host (`LocalTasks`) cannot be: a run lost with its object (reset mid-run, as a deploy or a
 * crash does) is started again by the lease alarm; `tasks/cancel` reaches the handler's signal
 * and outlives the handler's late return; at its TTL a task leaves no key and no alarm; and the
 * object itself refuses every principal but the task's owner. The wire itself is the e2e suite's
 * (`test/e2e/tasks.test.ts`); here each step is also checked in the object's storage, and the
 * object is evicted wherever a step must not be answered from its memory.
 *
 * The task tools (`task_steps`, `task_until_cancelled`) note what their handlers saw in
 * `taskProbes`: the objects run in this test's isolate, so the test reads that map directly.
 * Nothing waits a fixed time: conditions are polled with generous deadlines, and the 60 s lease
 * is not waited for — `runDurableObjectAlarm` fires the alarm it holds.
 */
import { env, evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { OWNER_HEADER } from "../../capabilities/tasks/durable/taskProtocol.ts";
import { MAX_LOST_RUNS, TASK_LEASE_MS } from "../../capabilities/tasks/TaskHost.ts";
import type { TaskStart, TaskState } from "../../shared/tasks/TaskState.ts";
import { captureErrorLines, eventually, MODERN, postModern } from "./helpers.ts";
import { taskProbes } from "./testServer.ts";

const TASKS = "io.modelcontextprotocol/tasks";
const CAPABILITIES = { extensions: { [TASKS]: {} } };
/** How long a poll waits: far longer than any task here takes, so a busy 2-core machine passes. */
const DEADLINE_MS = 15_000;
/** The vitest timeout of a test that polls (longer than the runtime project's 20 s). */
const POLLING_TEST = { timeout: 45_000 };
/** The abort reason `TaskHost.cancel` gives a run, as the handler sees its description. */
const CANCELLED = "the task was cancelled";

type Json = Record<string, any>;

/** One 2026-07-28 request declaring the extension, `Mcp-Name` the tool or the task id; the JSON-RPC response. */
async function rpc(method: string, params: Json): Promise<Json> {
  const name = method === "tools/call" ? params.name : params.taskId;
  const response = await postModern(method, params, { headers: { "mcp-name": name }, capabilities: CAPABILITIES });
  expect(response.headers.get("content-type")).toContain("application/json");
  return response.json();
}

function resultOf(answer: Json): Json {
  expect(answer.error, JSON.stringify(answer.error)).toBeUndefined();
  return answer.result;
}

async function createTask(name: string, args: Json): Promise<string> {
  const created = resultOf(await rpc("tools/call", { name, arguments: args }));
  expect(created).toMatchObject({ resultType: "task", status: "working", taskId: expect.stringMatching(/^[0-9a-f]{32}$/) });
  return created.taskId;
}

const getTask = async (taskId: string) => resultOf(await rpc("tasks/get", { taskId }));

/** Polls `tasks/get` until the task is `status`, or fails with the last answer. */
async function until(taskId: string, status: string): Promise<Json> {
  let last: Json | undefined;
  try {
    return (await eventually(async () => ((last = await getTask(taskId)).status === status ? last : undefined), DEADLINE_MS))!;
  } catch {
    throw new Error(`task ${taskId} not ${status} within ${DEADLINE_MS} ms: ${JSON.stringify(last)}`);
  }
}

/** The object that hosts task `taskId`: the same `idFromName` the Worker uses (`durableTasks.ts`). */
const taskStub = (taskId: string) => env.MCP_TASK!.get(env.MCP_TASK!.idFromName(taskId));
const stored = (taskId: string) => runInDurableObject(taskStub(taskId), (_i, state) => state.storage.get<TaskState>("task"));
const keys = (taskId: string) => runInDurableObject(taskStub(taskId), async (_i, state) => [...(await state.storage.list()).keys()].sort());
const alarm = (taskId: string) => runInDurableObject(taskStub(taskId), (_i, state) => state.storage.getAlarm());
const evict = (taskId: string) => evictDurableObject(taskStub(taskId));

describe("a task across its object's lifecycle", () => {
  it("survives the loss of its object mid-run: the lease alarm starts the handler again, and the task completes", POLLING_TEST, async () => {
    // Three seconds of work: long enough to lose in the middle.
    const taskId = await createTask("task_steps", { steps: 12, ms: 250 });
    await eventually(async () => (await stored(taskId))?.running === true, DEADLINE_MS);
    expect(taskProbes.get(taskId)?.runs).toBe(1);

    // A reset kills the run with the object, as a deploy or a crash does; workerd logs the aborted
    // run's broken output gate. (`evictDurableObject` cannot lose a run: a graceful eviction waits
    // for the alarm under way, and gives up after 30 s with "it still has active references".)
    await expect(runInDurableObject(taskStub(taskId), (_i, state) => state.abort("the run is lost"))).rejects.toThrow("the run is lost");
    // The run is gone, but its lease is not: the alarm still stands, at most a lease ahead.
    const lease = (await alarm(taskId))!;
    expect(lease).toBeGreaterThan(Date.now() + TASK_LEASE_MS / 2);
    expect(lease).toBeLessThanOrEqual(Date.now() + TASK_LEASE_MS);
    expect(await stored(taskId)).toMatchObject({ status: "working", running: true, lostRuns: 0 });
    // Fire it rather than wait out the lease. Had workerd retried the aborted alarm by itself, the
    // retry would have restarted the run, and this alarm would find it under way: one restart either way.
    await runDurableObjectAlarm(taskStub(taskId));

    const done = await until(taskId, "completed");
    expect(done.result).toMatchObject({ resultType: "complete", content: [{ type: "text", text: "finished 12 steps" }] });
    expect(await stored(taskId)).toMatchObject({ status: "completed", running: false, lostRuns: 1 });
    // Run again from the top, once.
    expect(taskProbes.get(taskId)?.runs).toBe(2);
  });

  it("tasks/cancel aborts the handler's signal, and the handler's late return is discarded", POLLING_TEST, async () => {
    const taskId = await createTask("task_until_cancelled", { ms: 60_000 });
    await eventually(() => taskProbes.get(taskId)?.runs === 1, DEADLINE_MS);

    const ack = resultOf(await rpc("tasks/cancel", { taskId }));
    expect(ack.resultType).toBe("complete");
    expect(Object.keys(ack).filter((key) => key !== "_meta"), "an ack carries no task fields").toEqual(["resultType"]);
    expect(await getTask(taskId)).toMatchObject({ status: "cancelled" });

    const seen = (await eventually(() => (taskProbes.get(taskId)?.returnedAfterAbort ? taskProbes.get(taskId) : undefined), DEADLINE_MS))!;
    expect(seen.abortedWith).toBe(CANCELLED);
    // The handler has returned a result since: the task is still cancelled, with nothing stored for it.
    const after = await getTask(taskId);
    expect(after.status).toBe("cancelled");
    expect(after).not.toHaveProperty("result");
    const state = (await stored(taskId))!;
    expect(state).toMatchObject({ status: "cancelled", running: false });
    // Only its status is kept: the call it will never run again is deleted with the cancellation.
    expect(await keys(taskId)).toEqual(["task"]);
    // No run is left to lease: the alarm that remains is the TTL's.
    expect(await alarm(taskId)).toBe(state.createdAt + state.ttlMs);
  });

  it("at its TTL leaves zero keys and no alarm, and is then unknown", POLLING_TEST, async () => {
    const taskId = await createTask("task_steps", { steps: 0, ms: 0 });
    await until(taskId, "completed");
    await evict(taskId);
    expect(await keys(taskId)).toEqual(["result", "start", "task"]);

    // Move its creation back past the TTL, as if the hour had gone by, then let the alarm find it.
    await runInDurableObject(taskStub(taskId), async (_i, state) => {
      const task = (await state.storage.get<TaskState>("task"))!;
      await state.storage.put("task", { ...task, createdAt: Date.now() - task.ttlMs - 1 });
    });
    await evict(taskId);
    expect(await runDurableObjectAlarm(taskStub(taskId))).toBe(true);

    await evict(taskId);
    expect(await keys(taskId)).toEqual([]);
    expect(await alarm(taskId)).toBeNull();
    const answer = await rpc("tasks/get", { taskId });
    expect(answer.error).toMatchObject({ code: -32602 });
    // Asking about it stored nothing again.
    expect(await keys(taskId)).toEqual([]);
  });

  it("fails, having run its handler once, when its outcome is more than the object's storage takes in one value", POLLING_TEST, async () => {
    // The asks of input_required are stored with the task's state: 3 million characters are past
    // Durable Object storage's 2 MiB a value, so the write is refused. That is not a lost run.
    const errors = captureErrorLines();
    let taskId: string;
    try {
      const created = await postModern("tools/call", { name: "task_asks_large", arguments: { chars: 3_000_000 } }, { headers: { "mcp-name": "task_asks_large" }, capabilities: { ...CAPABILITIES, elicitation: {} } });
      ({ taskId } = resultOf(await created.json()));
      await eventually(async () => (await stored(taskId))?.status === "failed", DEADLINE_MS);
    } finally {
      errors.restore();
    }
    // The operator's line for it, logged before the status is stored: the task by its log id, never its id.
    expect(errors.lines).toEqual([{ level: "error", event: "task.outcome-unstored", task: expect.stringMatching(/^[0-9a-f]{12}$/), outcome: "input_required", message: expect.stringMatching(/SQLITE_TOOBIG/) }]);
    expect(JSON.stringify(errors.lines)).not.toContain(taskId);
    // Later alarms, each in a fresh object, start nothing (a lost run would start the handler again).
    for (let wake = 0; wake < MAX_LOST_RUNS + 1; wake++) {
      await evict(taskId);
      expect(await runDurableObjectAlarm(taskStub(taskId))).toBe(true);
    }
    expect(taskProbes.get(taskId)?.runs).toBe(1);
    const task = await getTask(taskId);
    expect(task).toMatchObject({ status: "failed", error: { code: -32603, message: expect.stringMatching(/could not be stored/) } });
    expect(task.inputRequests).toBeUndefined();
    expect(await stored(taskId)).toMatchObject({ running: false, lostRuns: 0 });
  });
});

describe("a task's owner", () => {
  /** A task as the router creates it for an authorized caller (`startTask`): with the owner's digest. */
  async function ownedTask(owner: string): Promise<string> {
    const taskId = crypto.randomUUID().replaceAll("-", "");
    const start: TaskStart = {
      taskId,
      owner,
      params: { name: "task_until_cancelled", arguments: { ms: 60_000 } },
      client: { protocolVersion: MODERN, capabilities: CAPABILITIES },
      answers: {},
    };
    const created = await taskStub(taskId).create(start);
    expect(created).toMatchObject({ ok: true, value: { taskId, status: "working" } });
    await eventually(() => taskProbes.get(taskId)?.runs === 1, DEADLINE_MS);
    return taskId;
  }

  /** A listener's upgrade as `durableTasks.watch` sends it. */
  const listen = (taskId: string, owner: string | undefined) =>
    taskStub(taskId).fetch("https://task.internal/listen", { headers: { upgrade: "websocket", ...(owner === undefined ? {} : { [OWNER_HEADER]: owner }) } });

  it("is the only principal the object answers: any other gets what an unknown task gets, and changes nothing", POLLING_TEST, async () => {
    const taskId = await ownedTask("owner-a");
    const stub = taskStub(taskId);
    // Another principal, and an anonymous caller (the router's, without authorization).
    for (const other of ["owner-b", undefined]) {
      expect(await stub.get(other), String(other)).toEqual({ ok: true, value: undefined });
      expect(await stub.update(other, { anything: { action: "accept" } }), String(other)).toEqual({ ok: true, value: false });
      expect(await stub.cancel(other), String(other)).toEqual({ ok: true, value: false });
      const refused = await listen(taskId, other);
      expect(refused.status, String(other)).toBe(404);
      expect(refused.webSocket).toBeNull();
    }
    // Over HTTP, this Worker's callers are anonymous: the task is not theirs either.
    expect((await rpc("tasks/get", { taskId })).error).toMatchObject({ code: -32602 });
    expect((await rpc("tasks/cancel", { taskId })).error).toMatchObject({ code: -32602 });

    // Untouched for its owner: still running, its handler never aborted.
    expect(await stub.get("owner-a")).toMatchObject({ ok: true, value: { taskId, status: "working" } });
    expect(await stored(taskId)).toMatchObject({ owner: "owner-a", status: "working", running: true });
    expect(taskProbes.get(taskId)?.abortedWith).toBeUndefined();
    const accepted = await listen(taskId, "owner-a");
    expect(accepted.status).toBe(101);
    accepted.webSocket!.accept();
    accepted.webSocket!.close(1000, "done");

    // Its owner may cancel it, and that does reach the handler.
    expect(await stub.cancel("owner-a")).toEqual({ ok: true, value: true });
    await eventually(() => taskProbes.get(taskId)?.abortedWith === CANCELLED, DEADLINE_MS);
    expect(await stub.get("owner-a")).toMatchObject({ ok: true, value: { status: "cancelled" } });
  });
});

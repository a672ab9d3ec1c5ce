/**
 * `TaskHost` alone, over a real `MemoryStorage`: the bounds and edges the end-to-end task suites
 * cannot reach in reasonable time — size limits, lost runs, TTL, ownership, cancellation.
 * Wakeups are recorded, never armed: each test calls `wake()` itself, and moves an injected clock
 * where time must pass, so nothing here waits on a timer.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DEFAULT_CONFIG, readConfig, type Config } from "../../shared/config/readConfig.ts";
import { ErrorCode } from "../../shared/errors/errorCodes.ts";
import { McpError } from "../../shared/errors/McpError.ts";
import { Logger } from "../../shared/log/Logger.ts";
import { logId } from "../../shared/log/logId.ts";
import type { LogLevel } from "../../shared/protocol/logLevels.ts";
import { utf8Length } from "../../shared/bytes/utf8Length.ts";
import { tool } from "../../shared/server/defineServer.ts";
import { tasks } from "./tasks.ts";
import type { Result } from "../../shared/definition/Method.ts";
import type { RequestContext } from "../../shared/definition/RequestContext.ts";
import { mcpError } from "../../shared/testing/testKit.ts";
import { MemoryStorage } from "../../shared/storage/MemoryStorage.ts";
import { newTaskId } from "../../shared/tasks/Tasks.ts";
import { MAX_LOST_RUNS, TaskHost } from "./TaskHost.ts";
import { MAX_TASK_VALUE_BYTES, type TaskStart } from "../../shared/tasks/TaskState.ts";
import { CompiledServer } from "../../shared/server/CompiledServer.ts";

const T0 = Date.UTC(2026, 6, 28);
const TTL_MS = DEFAULT_CONFIG.taskTtlMs;
const form = { message: "Your name?", requestedSchema: { type: "object" as const, properties: { name: { type: "string" as const } } } };

/** A server whose one tool, `job`, runs `handler`. */
function serverWith(handler: (ctx: RequestContext) => Promise<string>) {
  return new CompiledServer({
    name: "task-host-test",
    version: "1",
    tools: [tool({ name: "job", description: "Runs the test's handler", input: z.object({ text: z.string().optional() }), task: "required", handler: (_args, ctx) => handler(ctx) })], use: [tasks()],
  });
}

function startOf(fields: Partial<TaskStart> = {}, text?: string): TaskStart {
  return {
    taskId: newTaskId(),
    params: { name: "job", arguments: text === undefined ? {} : { text } },
    client: { protocolVersion: "2026-07-28", capabilities: { elicitation: {} } },
    answers: {},
    ...fields,
  };
}

/** A host over `store`, with its wakeups, announcements, `gone()` calls and warnings recorded. */
function hostFor(handler: (ctx: RequestContext) => Promise<string>, options: { store?: MemoryStorage; config?: Config; now?: () => number; logLevel?: LogLevel } = {}) {
  const store = options.store ?? new MemoryStorage();
  const scheduled: (number | undefined)[] = [];
  const published: Result[] = [];
  const warnings: string[] = [];
  const calls = { gone: 0 };
  const host = new TaskHost({
    server: serverWith(handler),
    config: options.config ?? DEFAULT_CONFIG,
    logger: new Logger(options.logLevel ?? "warning", {}, (line) => warnings.push(line)),
    env: {},
    store,
    schedule: async (at) => void scheduled.push(at),
    publish: (task) => void published.push(task),
    gone: () => void calls.gone++,
    now: options.now ?? (() => T0),
  });
  return { host, store, scheduled, published, warnings, calls };
}

/** A `MemoryStorage` whose next `put` waits to be released: a write caught half-way. */
class HeldStorage extends MemoryStorage {
  #held: Promise<void> | undefined;
  holdNextPut(): () => void {
    const gate = deferred();
    this.#held = gate.promise;
    return gate.resolve;
  }
  override async put(key: string, value: unknown): Promise<void> {
    const held = this.#held;
    this.#held = undefined;
    if (held) await held;
    return super.put(key, value);
  }
}

/**
 * A `MemoryStorage` that refuses a value over `maxValueBytes` of JSON, as Durable Object storage
 * refuses one over its value limit: the write rejects and nothing is stored.
 */
class LimitedStorage extends MemoryStorage {
  constructor(readonly maxValueBytes: number) {
    super();
  }
  override async put(key: string, value: unknown): Promise<void> {
    const bytes = utf8Length(JSON.stringify(value));
    if (bytes > this.maxValueBytes) throw new RangeError(`Values cannot be larger than ${this.maxValueBytes} bytes; ${key} has ${bytes}`);
    return super.put(key, value);
  }
}

/** A `MemoryStorage` whose next write of `key` is refused (a storage hiccup), once. */
class RefusingStorage extends MemoryStorage {
  #refused: string | undefined;
  refuseNextPut(key: string): void {
    this.#refused = key;
  }
  override async put(key: string, value: unknown): Promise<void> {
    if (this.#refused === key) {
      this.#refused = undefined;
      throw new Error(`storage refused ${key}`);
    }
    return super.put(key, value);
  }
}

const keys = async (store: MemoryStorage) => [...(await store.list("")).keys()];

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** A handler that announces each start, then waits for its signal and records the abort. */
function blocking() {
  const started = [deferred()];
  const aborted = deferred<unknown>();
  let runs = 0;
  const handler = async (ctx: RequestContext) => {
    started[runs++]!.resolve();
    started.push(deferred());
    await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
    aborted.resolve(ctx.signal.reason);
    return "finished after the abort";
  };
  return { handler, started: (run: number) => started[run]!.promise, aborted: aborted.promise, runs: () => runs };
}

describe("TaskHost: size limits (MAX_TASK_VALUE_BYTES)", () => {
  it("accepts a call of exactly the limit and refuses one byte more", async () => {
    const taskId = newTaskId();
    const pad = MAX_TASK_VALUE_BYTES - JSON.stringify(startOf({ taskId }, "")).length;
    const { host, scheduled } = hostFor(async () => "ok");
    await host.create(startOf({ taskId }, "x".repeat(pad)));
    expect(scheduled).toEqual([T0]);
    expect((await mcpError(hostFor(async () => "ok").host.create(startOf({ taskId }, "x".repeat(pad + 1))))).code).toBe(ErrorCode.InvalidParams);
  });

  it("refuses a larger call with -32602 naming the limit, and stores and schedules nothing", async () => {
    // Two bytes per "é": under the limit in UTF-16 code units, over it in bytes.
    for (const text of ["x".repeat(MAX_TASK_VALUE_BYTES), "é".repeat(MAX_TASK_VALUE_BYTES / 2)]) {
      const { host, store, scheduled, published } = hostFor(async () => "ok");
      const error = await mcpError(host.create(startOf({}, text)));
      expect(error.code).toBe(ErrorCode.InvalidParams);
      expect(error.message).toContain(`${MAX_TASK_VALUE_BYTES} bytes`);
      expect(await keys(store)).toEqual([]);
      expect(scheduled).toEqual([]);
      expect(published).toEqual([]);
      expect(await host.get(undefined)).toBeUndefined();
    }
  });

  it("refuses answers that would bring the stored answers past the limit, and takes none of them", async () => {
    // Each answer fits alone; the second would bring the stored pair over.
    const half = { action: "accept", content: { name: "x".repeat(MAX_TASK_VALUE_BYTES / 2) } };
    const { host, store, scheduled } = hostFor(async (ctx) => {
      await ctx.elicit(form, { key: "first" });
      await ctx.elicit(form, { key: "second" });
      return "both answered";
    });
    await host.create(startOf());
    await host.wake();
    expect(await host.update(undefined, { first: half })).toBe(true);
    await host.wake();
    const waiting = await host.get(undefined);
    expect(waiting).toMatchObject({ status: "input_required", inputRequests: { second: { method: "elicitation/create" } } });
    const wakeups = scheduled.length;

    const error = await mcpError(host.update(undefined, { second: half }));
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.message).toContain(`limit of ${MAX_TASK_VALUE_BYTES}`);
    expect(await host.get(undefined)).toEqual(waiting);
    expect(Object.keys((await store.get<Record<string, unknown>>("answers"))!)).toEqual(["first"]);
    expect(scheduled.length).toBe(wakeups);
  });

  it("fails a task whose result is larger than it may store (min of MAX_QUEUE_BYTES and the limit), storing no result", async () => {
    const cases = [
      { config: DEFAULT_CONFIG, limit: MAX_TASK_VALUE_BYTES },
      { config: readConfig({ MAX_QUEUE_BYTES: "65536" }), limit: 65_536 },
    ];
    for (const { config, limit } of cases) {
      const { host, store } = hostFor(async () => "x".repeat(limit), { config });
      await host.create(startOf());
      await host.wake();
      const task = await host.get(undefined);
      expect(task).toMatchObject({ status: "failed", error: { code: ErrorCode.InternalError } });
      expect((task!.error as { message: string }).message).toContain(`limit of ${limit} bytes`);
      expect(task!.statusMessage).toBe((task!.error as { message: string }).message);
      expect(await keys(store)).not.toContain("result");
    }
  });
});

describe("TaskHost: an outcome that cannot be stored", () => {
  // Each outcome is under the task's own bound (MAX_TASK_VALUE_BYTES) but over the storage's: a
  // result, the asks of input_required, and a failed run's error with its data.
  const outcomes: [string, (ctx: RequestContext) => Promise<string>][] = [
    ["a result", async () => "x".repeat(8_000)],
    ["input_required's asks", async (ctx) => String((await ctx.elicit({ ...form, message: "x".repeat(8_000) })).action)],
    ["a failed run's error", async () => {
      throw new McpError(400, ErrorCode.InvalidParams, "refused", { detail: "x".repeat(8_000) });
    }],
  ];
  for (const [what, outcome] of outcomes) {
    it(`fails the task with a small error saying so, and runs the handler once, for ${what} the storage refuses`, async () => {
      const store = new LimitedStorage(4_096);
      let runs = 0;
      const handler = (ctx: RequestContext) => {
        runs++;
        return outcome(ctx);
      };
      const first = hostFor(handler, { store });
      await first.host.create(startOf());
      await first.host.wake();
      // Later wakeups, here or in a host that took over (an evicted object), start nothing.
      for (let wake = 0; wake < MAX_LOST_RUNS + 1; wake++) await hostFor(handler, { store }).host.wake();
      expect(runs).toBe(1);
      const task = await hostFor(handler, { store }).host.get(undefined);
      expect(task).toMatchObject({ status: "failed", error: { code: ErrorCode.InternalError } });
      const message = (task!.error as { message: string }).message;
      expect(message).toMatch(/could not be stored/);
      expect(message).not.toMatch(/lost|deploy/);
      expect(task!.statusMessage).toBe(message);
      expect(await store.get("task")).toMatchObject({ running: false, lostRuns: 0 });
      expect(await keys(store)).not.toContain("result");
      expect(first.published.at(-1)).toMatchObject({ status: "failed" });
      expect(first.scheduled.at(-1)).toBe(T0 + TTL_MS);
      expect(first.warnings.some((line) => line.includes('"task.outcome-unstored"'))).toBe(true);
    });
  }
});

describe("TaskHost: lost runs", () => {
  it("starts a lost run again, counting it, and fails the task past MAX_LOST_RUNS without running it again", async () => {
    const store = new MemoryStorage();
    const job = blocking();
    let current = hostFor(job.handler, { store });
    await current.host.create(startOf());
    let waking = current.host.wake();
    await job.started(0);
    // Each host in turn loses its run (a deploy, a crash): gone without a word, the stored state still says running.
    for (let lost = 1; lost <= MAX_LOST_RUNS; lost++) {
      current.host.stop();
      await waking;
      expect(await store.get("task")).toMatchObject({ running: true, lostRuns: lost - 1 });
      current = hostFor(job.handler, { store });
      waking = current.host.wake();
      await job.started(lost);
      expect(job.runs()).toBe(lost + 1);
      expect(await store.get("task")).toMatchObject({ lostRuns: lost, running: true, status: "working" });
      expect(current.warnings.some((line) => line.includes('"task.run-lost"'))).toBe(true);
    }
    current.host.stop();
    await waking;

    const last = hostFor(job.handler, { store });
    await last.host.wake();
    expect(job.runs()).toBe(MAX_LOST_RUNS + 1);
    const task = await last.host.get(undefined);
    expect(task).toMatchObject({ status: "failed", error: { code: ErrorCode.InternalError } });
    expect((task!.error as { message: string }).message).toContain(`lost ${MAX_LOST_RUNS + 1} times`);
    expect(await store.get("task")).toMatchObject({ running: false, lostRuns: MAX_LOST_RUNS + 1 });
    expect(last.scheduled).toEqual([T0 + TTL_MS]);
    // A stray wakeup after that runs nothing either.
    await last.host.wake();
    expect(job.runs()).toBe(MAX_LOST_RUNS + 1);
  });
});

describe("TaskHost: logs", () => {
  it("never write the task id, a bearer secret, only its logId tag: on a lost run, a failed wakeup and the run's rpc.out", async () => {
    const store = new RefusingStorage();
    const job = blocking();
    const lost = hostFor(job.handler, { store, logLevel: "debug" });
    const { taskId } = (await lost.host.create(startOf())) as { taskId: string };
    const waking = lost.host.wake();
    await job.started(0);
    lost.host.stop();
    await waking;
    const next = hostFor(async () => "done", { store, logLevel: "debug" });
    store.refuseNextPut("task");
    await next.host.wake();
    await next.host.wake();
    expect(await next.host.get(undefined)).toMatchObject({ status: "completed" });

    const lines = [...lost.warnings, ...next.warnings];
    const tagged = lines.filter((line) => line.includes(`"task":"${logId(taskId)}"`)).map((line) => JSON.parse(line).event);
    expect(tagged).toEqual(expect.arrayContaining(["rpc.out", "task.run-lost", "task.wake-failed"]));
    expect(lines.filter((line) => line.includes(taskId))).toEqual([]);
  });
});

describe("TaskHost: TTL", () => {
  it("is unknown once past its TTL, even before the wakeup; the wakeup then deletes every key and calls gone()", async () => {
    let now = T0;
    const { host, store, calls } = hostFor(async () => "done", { now: () => now });
    await host.create(startOf());
    await host.wake();
    now = T0 + TTL_MS - 1;
    expect(await host.get(undefined)).toMatchObject({ status: "completed" });

    now = T0 + TTL_MS;
    expect(await host.get(undefined)).toBeUndefined();
    expect(await keys(store)).toEqual(expect.arrayContaining(["task", "start", "result"]));
    await host.wake();
    expect(await keys(store)).toEqual([]);
    expect(calls.gone).toBe(1);
    expect(await host.get(undefined)).toBeUndefined();
    expect(await host.update(undefined, { "elicitation-1": { action: "decline" } })).toBe(false);
    expect(await host.cancel(undefined)).toBe(false);
  });

  it("aborts a run under way at the TTL, and its late outcome stores nothing", async () => {
    let now = T0;
    const job = blocking();
    const { host, store, calls } = hostFor(job.handler, { now: () => now });
    await host.create(startOf());
    const running = host.wake();
    await job.started(0);
    now = T0 + TTL_MS;
    await host.wake();
    await job.aborted;
    await running;
    expect(await keys(store)).toEqual([]);
    expect(calls.gone).toBe(1);
    expect(job.runs()).toBe(1);
  });
});

describe("TaskHost: ownership", () => {
  it("answers another owner, and no owner, as for an unknown task, and changes nothing", async () => {
    const { host, store, scheduled, published } = hostFor(async (ctx) => `hello ${String((await ctx.elicit(form)).content?.name)}`);
    await host.create(startOf({ owner: "alice" }));
    await host.wake();
    const before = await host.get("alice");
    expect(before).toMatchObject({ status: "input_required" });
    const seen = { scheduled: scheduled.length, published: published.length };

    for (const stranger of ["bob", undefined]) {
      expect(await host.get(stranger)).toBeUndefined();
      expect(await host.update(stranger, { "elicitation-1": { action: "accept", content: { name: "Mallory" } } })).toBe(false);
      expect(await host.cancel(stranger)).toBe(false);
    }
    expect(await host.get("alice")).toEqual(before);
    expect(await store.get("answers")).toBeUndefined();
    expect({ scheduled: scheduled.length, published: published.length }).toEqual(seen);
  });
});

describe("TaskHost: cancel", () => {
  it("cancels a working task at once, aborts its run, discards the late result and wakes next at the TTL", async () => {
    const job = blocking();
    const { host, store, scheduled, published } = hostFor(job.handler);
    await host.create(startOf());
    const running = host.wake();
    await job.started(0);
    expect(host.running).toBe(true);

    expect(await host.cancel(undefined)).toBe(true);
    expect(await host.get(undefined)).toMatchObject({ status: "cancelled", statusMessage: expect.stringContaining("Cancelled") });
    expect(scheduled.at(-1)).toBe(T0 + TTL_MS);
    expect(await job.aborted).toBeDefined();
    await running;
    // The handler returned after its abort: that result goes nowhere.
    expect(await host.get(undefined)).toMatchObject({ status: "cancelled" });
    expect(await store.get("result")).toBeUndefined();
    expect(await store.get("task")).toMatchObject({ status: "cancelled", running: false });
    expect(published.map((task) => task.status)).toEqual(["cancelled"]);
    expect(scheduled.at(-1)).toBe(T0 + TTL_MS);
    expect(host.running).toBe(false);
  });

  it("discards a result that arrives while the cancellation is being stored", async () => {
    const store = new HeldStorage();
    const started = deferred();
    const finish = deferred();
    const { host } = hostFor(
      async () => {
        started.resolve();
        await finish.promise;
        return "done";
      },
      { store },
    );
    await host.create(startOf());
    const running = host.wake();
    await started.promise;
    const releasePut = store.holdNextPut();
    const cancelling = host.cancel(undefined);
    // The handler ignores its signal and returns before the abort: the run ends with a result.
    finish.resolve();
    await running;
    releasePut();
    expect(await cancelling).toBe(true);
    expect(await host.get(undefined)).toMatchObject({ status: "cancelled" });
    expect(await store.get("result")).toBeUndefined();
  });

  it("leaves a completed task as it is, and answers true", async () => {
    let now = T0;
    const { host, scheduled, published } = hostFor(async () => "done", { now: () => now });
    await host.create(startOf());
    await host.wake();
    const done = await host.get(undefined);
    expect(done).toMatchObject({ status: "completed", result: { content: [{ type: "text", text: "done" }] } });
    const seen = { scheduled: scheduled.length, published: published.length };
    now += 1_000;
    expect(await host.cancel(undefined)).toBe(true);
    expect(await host.get(undefined)).toEqual(done);
    expect({ scheduled: scheduled.length, published: published.length }).toEqual(seen);
  });
});

describe("TaskHost: overlapping wakeups and stop()", () => {
  it("runs the handler once when two wakeups overlap, and the one run stays cancellable", async () => {
    const job = blocking();
    const { host, store } = hostFor(job.handler);
    const { taskId } = (await host.create(startOf())) as { taskId: string };
    const first = host.wake();
    const second = host.wake();
    await job.started(0);
    await second;
    expect(job.runs()).toBe(1);
    expect(await host.cancel(undefined)).toBe(true);
    expect(await job.aborted).toBeTypeOf("symbol");
    await first;
    expect(job.runs()).toBe(1);
    expect(await store.get("task")).toMatchObject({ taskId, status: "cancelled", running: false });
  });

  it("starts no run once stopped, even from a wakeup already under way", async () => {
    const job = blocking();
    const { host, store } = hostFor(job.handler);
    await host.create(startOf());
    const waking = host.wake();
    host.stop();
    await waking;
    expect(job.runs()).toBe(0);
    // The stored state is left as it was for a host that goes away: a later host counts a lost run.
    expect(await store.get("task")).toMatchObject({ status: "working" });
    await host.wake();
    expect(job.runs()).toBe(0);
  });
});

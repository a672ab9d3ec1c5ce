import { z } from "zod";
import { describe, expect, it, vi } from "vitest";
import { homes } from "../../capabilities/homes/homes.ts";
import { LocalTasks } from "../../capabilities/tasks/LocalTasks.ts";
import { tasks } from "../../capabilities/tasks/tasks.ts";
import { DEFAULT_CONFIG } from "../config/readConfig.ts";
import { LocalHomes } from "../../capabilities/homes/LocalHomes.ts";
import type { Homes } from "../home/Homes.ts";
import { Logger } from "../log/Logger.ts";
import { CompiledServer } from "../server/CompiledServer.ts";
import { tool } from "../server/defineServer.ts";
import { MemoryBroadcaster } from "../broadcast/MemoryBroadcaster.ts";
import { LocalShares } from "../shares/LocalShares.ts";
import { MemoryStorage } from "../storage/MemoryStorage.ts";
import { localRuntime, type LocalTaskHost } from "./localRuntime.ts";
import { memoryStore, type Store } from "./Store.ts";

const logger = new Logger("error");
const base = { env: {}, config: DEFAULT_CONFIG, logger };

const plain = new CompiledServer({ name: "plain", version: "1", tools: [tool({ name: "echo", description: "", input: z.object({}), handler: async () => "ok" })] });
const full = new CompiledServer({
  name: "full",
  version: "1",
  use: [tasks(), homes()],
  tools: [
    tool({ name: "job", description: "", input: z.object({}), task: "optional", handler: async () => "done" }),
    tool({ name: "notebook", description: "", input: z.object({ notebook: z.string().optional() }), home: { handle: "notebook" }, handler: async () => "ok" }),
  ],
});

/** A task host that only records that it was closed. */
const recordingTasks = (): LocalTaskHost & { closed: number } => ({
  closed: 0,
  create: async () => ({}),
  get: async () => undefined,
  update: async () => false,
  cancel: async () => false,
  watch: async () => undefined,
  eraseOwnedBy: async () => 0,
  close() {
    this.closed++;
  },
});

describe("localRuntime", () => {
  it("gives a definition without homes or task tools neither, and its own broadcaster and shares", () => {
    const runtime = localRuntime(plain, base);
    expect(runtime.homes).toBeUndefined();
    expect(runtime.tasks).toBeUndefined();
    expect(runtime.telemetry).toBeUndefined();
    expect(runtime.server).toBe(plain);
    expect(runtime.broadcast).not.toBe(localRuntime(plain, base).broadcast);
    expect(runtime.shares).not.toBe(localRuntime(plain, base).shares);
  });

  it("hosts homes in memory and the tasks that tasks() in use brings, over the same runtime", () => {
    const runtime = localRuntime(full, base);
    expect(runtime.homes).toBeInstanceOf(LocalHomes);
    expect(runtime.tasks).toBeInstanceOf(LocalTasks);
    runtime.close();
  });

  it("takes the homes, shares and tasks it is given; the task host is made with the runtime's parts", () => {
    const given = new LocalHomes({ server: full, config: DEFAULT_CONFIG, logger });
    const shares = localRuntime(plain, base).shares;
    const host = recordingTasks();
    const factory = vi.fn(() => host);
    const runtime = localRuntime(full, { ...base, homes: given, shares, tasks: factory });
    expect(runtime.homes).toBe(given);
    expect(runtime.shares).toBe(shares);
    expect(runtime.tasks).toBe(host);
    expect(factory).toHaveBeenCalledWith(expect.objectContaining({ server: full, homes: given, shares, broadcast: runtime.broadcast }));
    given.close();
  });

  it("closes what it made (its tasks, its own homes) and never homes it was given", () => {
    const close = vi.fn();
    const given = { close } as unknown as Homes;
    const host = recordingTasks();
    localRuntime(full, { ...base, homes: given, tasks: () => host }).close();
    expect(host.closed).toBe(1);
    expect(close).not.toHaveBeenCalled();

    const own = localRuntime(full, base);
    const ownClose = vi.spyOn(own.homes as LocalHomes, "close");
    own.close();
    expect(ownClose).toHaveBeenCalledOnce();
  });

  it("keeps state in memory unless given a store, and says so", () => {
    const runtime = localRuntime(full, base);
    expect(runtime.store).toMatchObject({ description: "in memory", durable: false });
    expect(memoryStore().storageFor).toBeUndefined();
    runtime.close();
  });

  it("takes its homes, tasks and broadcaster from its store, starts them with start() and closes them with close()", async () => {
    const homesHost = new LocalHomes({ server: full, config: DEFAULT_CONFIG, logger, storeFor: () => new MemoryStorage() });
    const started = vi.spyOn(homesHost, "start");
    const closed = vi.spyOn(homesHost, "close");
    const taskHost = Object.assign(recordingTasks(), { start: vi.fn() });
    const broadcast = new MemoryBroadcaster(DEFAULT_CONFIG.maxQueueBytes);
    const asked: { maxBytes: number }[] = [];
    const store: Store = { description: "a test's", durable: true, homes: () => homesHost, tasks: () => taskHost, broadcaster: (options) => (asked.push(options), broadcast), close: async () => {} };
    const runtime = localRuntime(full, { ...base, store });
    expect(runtime.store).toBe(store);
    expect(runtime.homes).toBe(homesHost);
    expect(runtime.tasks).toBe(taskHost);
    expect(runtime.broadcast).toBe(broadcast);
    expect(asked.map((options) => options.maxBytes)).toEqual([DEFAULT_CONFIG.maxQueueBytes]);
    await runtime.start();
    expect(started).toHaveBeenCalledOnce();
    expect(taskHost.start).toHaveBeenCalledOnce();
    runtime.close();
    expect(closed).toHaveBeenCalledOnce();
    expect(taskHost.closed).toBe(1);
  });

  it("counts fair shares where its store counts them, with its config, and its task host counts there too; shares it is given win", () => {
    const counted = new LocalShares(DEFAULT_CONFIG);
    const shares = vi.fn((_config: typeof DEFAULT_CONFIG) => counted);
    const host = recordingTasks();
    const tasksHost = vi.fn(() => host);
    const store: Store = { ...memoryStore(), shares, tasks: tasksHost };
    const config = { ...DEFAULT_CONFIG, maxSessionsPerClient: 3 };
    const runtime = localRuntime(full, { ...base, config, store });
    expect(runtime.shares).toBe(counted);
    expect(shares.mock.calls).toEqual([[config]]);
    expect(tasksHost).toHaveBeenCalledWith(expect.objectContaining({ shares: counted }));

    const given = new LocalShares(DEFAULT_CONFIG);
    expect(localRuntime(plain, { ...base, store, shares: given }).shares).toBe(given);
    expect(shares).toHaveBeenCalledOnce();
    runtime.close();
  });

  it("hosts no homes from a store for a definition without any", () => {
    const made = vi.fn();
    const runtime = localRuntime(plain, { ...base, store: { ...memoryStore(), homes: made } });
    expect(runtime.homes).toBeUndefined();
    expect(made).not.toHaveBeenCalled();
  });
});

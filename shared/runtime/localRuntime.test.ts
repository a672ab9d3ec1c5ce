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
import { localRuntime, type LocalTaskHost } from "./localRuntime.ts";

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
});

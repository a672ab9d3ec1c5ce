import { z } from "zod";
import { describe, expect, it } from "vitest";
import { DEFAULT_CONFIG } from "../../shared/config/readConfig.ts";
import { Logger } from "../../shared/log/Logger.ts";
import { tool } from "../../shared/server/defineServer.ts";
import { homes as homesCapability } from "./homes.ts";
import { MemoryStorage } from "../../shared/storage/MemoryStorage.ts";
import { stubContext } from "../../shared/testing/testKit.ts";
import { HomeHost } from "./HomeHost.ts";
import { type HomeRecord, RECORD_KEY } from "./HomeRecord.ts";
import { CompiledServer } from "../../shared/server/CompiledServer.ts";

const RETENTION = 10 * 24 * 60 * 60 * 1000;
const server = new CompiledServer({ use: [homesCapability()],
  name: "t",
  version: "1",
  tools: [
    tool({
      name: "note",
      description: "",
      input: z.object({ text: z.string().optional(), pad: z.string().optional() }),
      home: { handle: "pad" },
      handler: async ({ text }, ctx) => {
        if (text) await ctx.storage.put("text", text);
        return `${ctx.handle}:${(await ctx.storage.get<string>("text")) ?? "-"}`;
      },
    }),
  ],
});

function host() {
  const store = new MemoryStorage();
  const alarms: (number | undefined)[] = [];
  const home = new HomeHost({
    server,
    config: { ...DEFAULT_CONFIG, homeRetentionMs: RETENTION },
    logger: new Logger("error"),
    store,
    schedule: async (at) => void alarms.push(at),
  });
  return { home, store, alarms };
}

const text = (result: Record<string, unknown>) => (result.content as { text: string }[])[0]!.text;
const HANDLE = "0123456789abcdef0123456789abcdef";
const call = (args: Record<string, unknown>) => ({ method: "tools/call", params: { name: "note", arguments: args } });

describe("HomeHost", () => {
  it("runs the method with ctx.storage its own and ctx.handle the handle, and arms retention when the home is made", async () => {
    const { home, store, alarms } = host();
    const before = Date.now();
    expect(text(await home.run({ kind: "handle", id: HANDLE, definition: "note", owner: "alice", fresh: true }, call({ text: "hi" }), stubContext()))).toBe(`${HANDLE}:hi`);
    const record = (await store.get<HomeRecord>(RECORD_KEY))!;
    expect(record).toMatchObject({ kind: "handle", owner: "alice", keys: 1 });
    expect(alarms).toHaveLength(1);
    expect(alarms[0]).toBeGreaterThanOrEqual(before + RETENTION);
    expect(text(await home.run({ kind: "handle", id: HANDLE, definition: "note", owner: "alice", fresh: false }, call({}), stubContext()))).toBe(`${HANDLE}:hi`);
    expect(alarms).toHaveLength(1);
  });

  it("answers a handle with nothing stored, or another principal's, as unknown: a tool error, the home untouched", async () => {
    const { home, store } = host();
    const unknown = await home.run({ kind: "handle", id: HANDLE, definition: "note", owner: "alice", fresh: false }, call({ pad: HANDLE }), stubContext());
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toBe(`Unknown handle "${HANDLE}": it was never made, has expired unused, or is not yours. Call note without it to start a new one.`);
    await home.run({ kind: "handle", id: HANDLE, definition: "note", owner: "alice", fresh: true }, call({ text: "mine" }), stubContext());
    const foreign = await home.run({ kind: "handle", id: HANDLE, definition: "note", owner: "bob", fresh: false }, call({ pad: HANDLE }), stubContext());
    expect(foreign).toEqual(unknown);
    const anonymous = await home.run({ kind: "handle", id: HANDLE, definition: "note", owner: undefined, fresh: false }, call({ pad: HANDLE }), stubContext());
    expect(anonymous).toEqual(unknown);
    expect(await store.get("data:text")).toBe("mine");
  });

  it("leaves nothing for a call that stores nothing: the handle it opened was never made", async () => {
    const { home, store, alarms } = host();
    await home.run({ kind: "handle", id: HANDLE, definition: "note", owner: undefined, fresh: true }, call({}), stubContext());
    expect(await store.list("")).toEqual(new Map());
    expect(alarms).toEqual([]);
    expect((await home.run({ kind: "handle", id: HANDLE, definition: "note", owner: undefined, fresh: false }, call({}), stubContext())).isError).toBe(true);
  });

  it("keeps a home used within the retention (re-armed at its last use), and erases one unused that long, leaving zero keys", async () => {
    const { home, store, alarms } = host();
    await home.run({ kind: "user", owner: "alice" }, call({ text: "kept" }), stubContext());
    const { usedAt } = (await store.get<HomeRecord>(RECORD_KEY))!;
    expect(await home.wake(usedAt + RETENTION - 1)).toBe("alive");
    expect(alarms.at(-1)).toBe(usedAt + RETENTION);
    expect(await home.wake(usedAt + RETENTION)).toBe("erased");
    expect(await store.list("")).toEqual(new Map());
    // Waking again, or a home that never was, is harmless.
    expect(await home.wake()).toBe("erased");
  });

  it("pushes usedAt on a read once a tenth of the retention has passed, not on every read", async () => {
    const { home, store } = host();
    await home.run({ kind: "user", owner: "alice" }, call({ text: "x" }), stubContext());
    const stale = Date.now() - RETENTION / 5;
    await store.put(RECORD_KEY, { ...(await store.get<HomeRecord>(RECORD_KEY))!, usedAt: stale });
    await home.run({ kind: "user", owner: "alice" }, call({}), stubContext());
    const pushed = (await store.get<HomeRecord>(RECORD_KEY))!.usedAt;
    expect(pushed).toBeGreaterThan(stale + RETENTION / 10);
    await home.run({ kind: "user", owner: "alice" }, call({}), stubContext());
    expect((await store.get<HomeRecord>(RECORD_KEY))!.usedAt).toBe(pushed);
  });

  it("erases on request, every key", async () => {
    const { home, store } = host();
    await home.run({ kind: "user", owner: "alice" }, call({ text: "gdpr" }), stubContext());
    await home.erase("erased on request");
    expect(await store.list("")).toEqual(new Map());
  });
});

import { z } from "zod";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type Config, DEFAULT_CONFIG } from "../../shared/config/readConfig.ts";
import { Logger } from "../../shared/log/Logger.ts";
import { tool } from "../../shared/server/defineServer.ts";
import { homes as homesCapability } from "./homes.ts";
import { stubContext } from "../../shared/testing/testKit.ts";
import { LocalHomes } from "./LocalHomes.ts";
import { newHandle } from "../../shared/home/Homes.ts";
import { runInHome } from "../../shared/home/runInHome.ts";
import { CompiledServer } from "../../shared/server/CompiledServer.ts";

/** A notebook under a handle, a second definition on the same argument, and the user's own notes. */
const server = new CompiledServer({ use: [homesCapability()],
  name: "local-homes",
  version: "1",
  tools: [
    tool({
      name: "notebook",
      description: "",
      input: z.object({ notebook: z.string().optional(), add: z.string().optional(), revoke: z.boolean().optional() }),
      home: { handle: "notebook" },
      handler: async ({ add, revoke }, ctx) => {
        if (revoke) {
          await ctx.revokeHandle!();
          return "revoked";
        }
        const notes = await ctx.storage.transaction(async (txn) => {
          const list = (await txn.get<string[]>("notes")) ?? [];
          if (add) await txn.put("notes", [...list, add]);
          return add ? [...list, add] : list;
        });
        return JSON.stringify({ handle: ctx.handle, notes });
      },
    }),
    tool({
      name: "scrapbook",
      description: "",
      input: z.object({ notebook: z.string().optional() }),
      home: { handle: "notebook" },
      handler: async (_args, ctx) => JSON.stringify((await ctx.storage.get<string[]>("notes")) ?? []),
    }),
    tool({
      name: "notes",
      description: "",
      input: z.object({ add: z.string() }),
      home: "user",
      handler: async ({ add }, ctx) => {
        await ctx.storage.put("notes", [add]);
        return "ok";
      },
    }),
  ],
});

const homes = (config: Partial<Config> = {}, logger = new Logger("error")) => new LocalHomes({ server, config: { ...DEFAULT_CONFIG, ...config }, logger });
const text = (result: Record<string, unknown>) => (result.content as { text: string }[])[0]!.text;

/** One tool call as the eras make it: `owner` signed in (or not), counted as `client`. */
function callTool(where: LocalHomes, name: string, args: Record<string, unknown>, who: { owner?: string; client?: string; freshHandle?: string } = {}) {
  const params = { name, arguments: args };
  const client = who.client ?? who.owner ?? "anonymous";
  return runInHome(server, "tools/call", params, stubContext(), server.method("tools/call")!, { homes: where, owner: who.owner, client: async () => client, freshHandle: who.freshHandle });
}
const open = async (where: LocalHomes, who: { owner?: string; client?: string } = {}, note = "n") => JSON.parse(text(await callTool(where, "notebook", { add: note }, who))).handle as string;

afterEach(() => vi.useRealTimers());

describe("LocalHomes in memory", () => {
  it("keeps no home for calls that only read: unknown handles, none, or a fresh one", async () => {
    const where = homes();
    for (let i = 0; i < 2_000; i++) {
      const probe = await callTool(where, "notebook", { notebook: newHandle() }, { client: `address:${i}` });
      expect(probe.isError).toBe(true);
      await callTool(where, "notebook", {}, { client: `address:${i}` });
    }
    expect(where.size).toBe(0);
  });

  it("gives two calls on one fresh name the same store while either runs", async () => {
    const where = homes();
    const freshHandle = newHandle();
    await Promise.all(["a", "b", "c"].map((note) => callTool(where, "notebook", { add: note }, { freshHandle })));
    expect(JSON.parse(text(await callTool(where, "notebook", { notebook: freshHandle }))).notes.sort()).toEqual(["a", "b", "c"]);
  });

  it("counts a client's handles as a fair share, refusing a new one with a tool error and keeping nothing, while another client is served", async () => {
    const where = homes({ maxHandlesPerClient: 2 });
    const first = await open(where, { client: "address:a" });
    await open(where, { client: "address:a" });
    const refused = await callTool(where, "notebook", { add: "third" }, { client: "address:a" });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/^This client holds 2 handles, the most one client may hold at once \(MAX_HANDLES_PER_CLIENT\); retry after 60s/);
    const held = where.size;
    // Reading needs no share; another client has its own.
    expect(text(await callTool(where, "notebook", {}, { client: "address:a" }))).toContain('"notes":[]');
    await open(where, { client: "address:b" });
    expect(where.size).toBe(held + 2);
    // A revoked handle gives its slot back.
    expect(text(await callTool(where, "notebook", { notebook: first, revoke: true }, { client: "address:a" }))).toBe("revoked");
    await open(where, { client: "address:a" });
  });

  it("holds at most MAX_HANDLES handles in memory, whoever the clients are", async () => {
    const where = homes({ maxHandles: 3 });
    for (const client of ["a", "b", "c"]) await open(where, { client: `address:${client}` });
    const refused = await callTool(where, "notebook", { add: "x" }, { client: "address:d" });
    expect(text(refused)).toMatch(/^This server holds 3 handles, the most it holds at once \(MAX_HANDLES\)/);
  });

  it("arms one timer for every home's retention, not one per home", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const where = homes();
    for (let i = 0; i < 20; i++) await open(where, { owner: `user-${i}` });
    expect(vi.getTimerCount()).toBe(1);
    where.close();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("erases a handle unused past its retention from the one timer, giving its client's slot back and holding nothing", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    const where = homes({ maxHandlesPerClient: 1, homeRetentionMs: 60_000 });
    const handle = await open(where, { client: "address:a" });
    expect((await callTool(where, "notebook", { add: "x" }, { client: "address:a" })).isError).toBe(true);
    await vi.advanceTimersByTimeAsync(60_001);
    expect(text(await callTool(where, "notebook", { notebook: handle }, { client: "address:a" }))).toMatch(/^Unknown handle/);
    expect(where.size).toBe(0);
    await open(where, { client: "address:a" });
    where.close();
  });

  it("erases a user's home at its retention though a handle's share, given back since, was taken after its wakeup was armed", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    const where = homes({ homeRetentionMs: 60_000 });
    await callTool(where, "notes", { add: "mine" }, { owner: "alice" });
    const handle = await open(where, { owner: "alice" });
    expect(text(await callTool(where, "notebook", { notebook: handle, revoke: true }, { owner: "alice" }))).toBe("revoked");
    await vi.advanceTimersByTimeAsync(60_001);
    // The share's long holding did not push the home's wakeup back: it woke on time, held nothing live, and went.
    expect(where.size).toBe(0);
    where.close();
  });

  it("erases a user's handles with the user: each answers as unknown, and nothing is held", async () => {
    const lines: string[] = [];
    const where = homes({}, new Logger("info", {}, (line) => void lines.push(line)));
    await callTool(where, "notes", { add: "my diagnosis is X" }, { owner: "alice" });
    const handle = await open(where, { owner: "alice" }, "my diagnosis is X");
    const kept = await open(where, { owner: "bob" });
    await where.erase("alice");
    const after = await callTool(where, "notebook", { notebook: handle }, { owner: "alice" });
    expect(text(after)).toMatch(/^Unknown handle/);
    expect(JSON.parse(text(await callTool(where, "notebook", { notebook: kept }, { owner: "bob" }))).notes).toEqual(["n"]);
    expect(where.size).toBe(2);
    // The log line counts what was erased, not what is left.
    const erased = lines.map((line) => JSON.parse(line)).filter((line) => line.event === "home.erased");
    expect(erased).toEqual([expect.objectContaining({ kind: "user", erasedKeys: 1 }), expect.objectContaining({ kind: "handle", erasedKeys: 1 })]);
  });

  it("answers a handle as unknown to another definition than the one that minted it", async () => {
    const where = homes();
    const handle = await open(where, {}, "secret");
    const other = await callTool(where, "scrapbook", { notebook: handle });
    expect(other.isError).toBe(true);
    expect(text(other)).toMatch(/^Unknown handle/);
  });

  it("revokes a handle at once: its home erased, the handle unknown from then on", async () => {
    const where = homes();
    const handle = await open(where, { owner: "carol" });
    expect(text(await callTool(where, "notebook", { notebook: handle, revoke: true }, { owner: "carol" }))).toBe("revoked");
    expect(text(await callTool(where, "notebook", { notebook: handle }, { owner: "carol" }))).toMatch(/^Unknown handle/);
    // Carol's home holds only the index of her handles, now empty: nothing is left.
    expect(where.size).toBe(0);
  });
});

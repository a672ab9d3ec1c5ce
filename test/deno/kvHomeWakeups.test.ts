/**
 * Homes' wakeups in Deno KV (contract-deno only): `LocalHomes` over KV, as `serveDeno --kv` hosts
 * it, run by a Deno process (`test/fixtures/kvHomeWakeups.ts`). Twenty notebooks hold one timer in
 * all, not one each, and one index entry each (with their clients' homes); a home written before
 * the index is indexed once; a restarted process reads only the index's due entries — never
 * every key under `["home"]` — and erases the notebook and the old home that are due, leaving the
 * others.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { DENO_FLAGS, denoBinary } from "../../scripts/startDenoServer.mjs";

it("wakes homes from one index and one timer, and a restart reads only what is due", { timeout: 60_000 }, async () => {
  const dir = await mkdtemp(join(tmpdir(), "durable-mcp-kv-wakeups-"));
  try {
    const { stdout } = await promisify(execFile)(denoBinary, [...DENO_FLAGS, "test/fixtures/kvHomeWakeups.ts", join(dir, "homes.kv")], { timeout: 50_000 });
    const seen = JSON.parse(stdout.trim().split("\n").at(-1)!);
    expect(seen.timers).toBe(1);
    // One entry per notebook and one per client's home (where its share is held), and the old home's.
    expect(seen.indexed).toBe(41);
    // The index, and the due home's own keys: never the whole of ["home"].
    expect(seen.listed.filter((selector: { prefix: unknown[] }) => selector.prefix.length < 2 && selector.prefix[0] !== "home-due")).toEqual([]);
    expect(seen.listed.some((selector: { prefix: unknown[] }) => selector.prefix[0] === "home-due")).toBe(true);
    expect(seen.dueLeft).toBe(0);
    expect(seen.otherLeft).toBe(2);
    expect(seen.legacyLeft).toBe(0);
    expect(seen.indexedAfter).toBe(39);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

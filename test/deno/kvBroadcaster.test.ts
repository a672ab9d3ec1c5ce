/**
 * Change fan-out across Deno processes on one KV file (`KvBroadcaster`), each process run by
 * `test/fixtures/kvBroadcast.ts`: what one publishes reaches the other's subscribers, in order for
 * one topic and only to the topic's; a message over the bound is refused with a sentence; a
 * subscriber that stops reading is ended at its bound while another keeps receiving; unsubscribing
 * ends the streams, and with the last subscriber the process stops reading the log; a process that
 * falls further behind than the log keeps tells its list listener to read again, then delivers
 * what the log still holds.
 */
import { execFile, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { MAX_LOG_ENTRIES } from "../../capabilities/watch/deno/KvBroadcaster.ts";
import { DENO_FLAGS, denoBinary } from "../../scripts/startDenoServer.mjs";

const FIXTURE = "test/fixtures/kvBroadcast.ts";

it("delivers what one Deno process publishes to the other's subscribers, in order, within their bounds", { timeout: 90_000 }, async () => {
  const dir = await mkdtemp(join(tmpdir(), "durable-mcp-kv-broadcast-"));
  const path = join(dir, "shared.kv");
  const listener = spawn(denoBinary, [...DENO_FLAGS, FIXTURE, path, "listen"], { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" } });
  try {
    let stderr = "";
    listener.stderr.on("data", (chunk) => (stderr += chunk));
    const output = createInterface({ input: listener.stdout });
    const lines = output[Symbol.asyncIterator]();
    const first = await lines.next();
    expect(first.value, stderr).toBe("subscribed");

    const { stdout } = await promisify(execFile)(denoBinary, [...DENO_FLAGS, FIXTURE, path, "publish"], { timeout: 60_000 });
    expect(JSON.parse(stdout.trim().split("\n").at(-1)!)).toEqual({
      refused: `A change on "tools" is 60016 bytes with its topic, more than the 60000 Deno KV carries between processes: publish a smaller message`,
      wide: "published",
    });

    const last = await lines.next();
    expect(last.done, stderr).toBe(false);
    const seen = JSON.parse(last.value as string);
    expect(seen.heard).toEqual(Array.from({ length: 20 }, (_, i) => ({ n: i + 1 })));
    expect(seen.readmeHeard).toEqual({ uri: "file:///readme" });
    expect(seen.otherHeard).toBeNull();
    expect(seen.fastHeard).toEqual([0, 1, 2, 3, 4, 5]);
    // A close, not an error: the slow reader gets what fitted, then an ordinary end.
    expect(seen.slowHeard).toEqual([0, 1, 2]);
    expect(seen.promptsLeft).toBe(1);
    expect(seen.listeningBefore).toBe(true);
    expect(seen.listeningAfter).toBe(false);
    expect(seen.counts).toEqual([0, 0, 0]);

    expect((await lines.next()).value, stderr).toBe("lagging");
    const flood = await promisify(execFile)(denoBinary, [...DENO_FLAGS, FIXTURE, path, "flood"], { timeout: 60_000 });
    const { published } = JSON.parse(flood.stdout.trim().split("\n").at(-1)!);
    listener.stdin.write("go\n");
    const caughtUp = JSON.parse((await lines.next()).value as string);
    expect(caughtUp.first).toEqual({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
    // What the log still holds: its last MAX_LOG_ENTRIES entries, the listener's own publish being the last.
    expect(caughtUp.rest).toEqual(Array.from({ length: MAX_LOG_ENTRIES - 1 }, (_, i) => published - MAX_LOG_ENTRIES + 2 + i));
  } finally {
    listener.kill();
    await rm(dir, { recursive: true, force: true });
  }
});

/**
 * `kvNamespace` (a Workers KV namespace over Deno KV) on a real Deno KV file, through
 * `test/fixtures/kvNamespace.ts` run by Deno: values read back as text and JSON; entries read as
 * absent once their expiration has passed, in `get` and `list`, though Deno KV still holds their
 * keys, and no key left of them once Deno has swept the file; listings by name prefix paged by
 * cursor, exact at the edges of the prefix and in Deno KV's byte order; and the refusals past the
 * bounds (name and value size, page size, a cursor of another listing), each naming the key.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { DENO_FLAGS, denoBinary } from "../../scripts/startDenoServer.mjs";
import { denoKvKeys } from "../support/denoKvKeys.ts";

const FIXTURE = "test/fixtures/kvNamespace.ts";
const env = { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" };

let dir: string;
let path: string;
let seen: any;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "durable-mcp-kv-namespace-"));
  path = join(dir, "oauth.kv");
  const { stdout } = await promisify(execFile)(denoBinary, [...DENO_FLAGS, FIXTURE, path, "run"], { timeout: 60_000, env });
  seen = JSON.parse(stdout.trim().split("\n").at(-1)!);
}, 90_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

it("reads values back as text and JSON, null when absent or deleted, and refuses a type it does not offer", () => {
  const client = { clientId: "one", redirectUris: ["http://127.0.0.1/cb"] };
  expect(seen.text).toBe(JSON.stringify(client));
  expect(seen.json).toEqual(client);
  expect(seen.jsonShort).toEqual(client);
  expect(seen.missing).toBeNull();
  expect(seen.deleted).toBeNull();
  expect(seen.arrayBuffer).toBe('KV get of "client:one": type "arrayBuffer" is not offered on Deno; read "text" or "json"');
});

it("never returns an entry past its expiration, though Deno KV still holds its key; lists expirations and metadata", () => {
  expect(seen.beforeExpiry).toEqual({ a: "soon gone", listed: ["token:a", "token:b"], metadata: [null, { n: 1 }] });
  expect(seen.afterExpiry).toEqual({ a: null, b: null, listed: [], rawKeysLeft: 2 });
  expect(seen.long).toEqual({ value: "kept", metadata: { clientId: "one" }, expiresInAboutAnHour: true });
  expect(seen.pastExpiration).toMatch(/^KV put of "grant:past": the expiration must be in the future/);
});

it("leaves no key of an expired entry once Deno has swept the file", async () => {
  const { stdout } = await promisify(execFile)(denoBinary, [...DENO_FLAGS, FIXTURE, path, "swept", JSON.stringify(["short"])], { timeout: 60_000, env });
  expect(JSON.parse(stdout.trim())).toEqual({ keys: [] });
  // The entries without an expiration are still there.
  expect(await denoKvKeys(path, ["ordered"])).toHaveLength(6);
}, 90_000);

it("lists by name prefix in pages joined by cursors, skipping expired entries, and nothing outside the prefix", () => {
  const alice = ["grant:alice:", ...Array.from({ length: 25 }, (_, i) => `grant:alice:${String(i).padStart(2, "0")}`), "grant:alice:long"];
  expect(seen.pages).toEqual([
    { size: 10, complete: false },
    { size: 10, complete: false },
    { size: 7, complete: true },
  ]);
  expect(seen.paged).toEqual(alice);
  expect(seen.exactPage).toEqual({ keys: [{ name: "grant:bob:1" }], list_complete: true, cacheStatus: null });
  expect(seen.all).toEqual(["client:2", "grant:", ...alice, "grant:alicia:1", "grant:bob:1", "grantx"]);
  expect(seen.none).toEqual({ keys: [], list_complete: true, cacheStatus: null });
  expect(seen.accented).toEqual(["é", "é:1", "é:2"]);
  expect(seen.ordered).toEqual(["e:1", "f:1", "é", "é:1", "é:2", "😀"]);
});

it("refuses past its bounds with a sentence that names the key", () => {
  expect(seen.foreignCursor).toBe('KV list: the cursor "grant:alice:09" is not from a listing of the prefix "grant:bob:"');
  expect(seen.limitZero).toBe("KV list: limit must be a whole number from 1 to 1000, not 0");
  expect(seen.limitOver).toBe("KV list: limit must be a whole number from 1 to 1000, not 1001");
  expect(seen.longName).toMatch(/^The KV key name "n{64}"… is 513 bytes, more than the 512 a name may have$/);
  expect(seen.longestName).toBe("accepted");
  expect(seen.emptyName).toBe("A KV key name must be a non-empty string");
  expect(seen.largest).toBe("accepted");
  expect(seen.largestRead).toBe(65_524);
  expect(seen.tooLarge).toBe('KV put of "big:over": 65537 bytes with its expiration and metadata, more than the 65536 a Deno KV value holds');
  expect(seen.tooLargeWithMetadata).toMatch(/^KV put of "big:meta": 65555 bytes/);
  expect(seen.notString).toBe('KV put of "bytes": the value must be a string on Deno');
});

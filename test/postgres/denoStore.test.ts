/**
 * One PostgreSQL store for Node and Deno servers: the example served by Node (`--store`) and by
 * Deno (`DATABASE_URL`, then `--store`) on one database, a notebook (a handle's home) written
 * through one and read through the other, the Deno server restarted in between. Deno refuses
 * `--kv` and `--store` together, with one line and exit 1.
 */
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { DENO_FLAGS, denoBinary } from "../../scripts/startDenoServer.mjs";
import { bundleNodeEntry } from "../../scripts/startNodeServer.mjs";
import { type FreshDatabase, freshDatabase } from "../support/freshDatabase.ts";
import { failedStart } from "../support/failedStart.ts";
import { postModern } from "../support/httpSession.ts";
import { type ServerProcess, startServerProcess } from "../support/startServerProcess.ts";

let database: FreshDatabase;
let bundled: { outfile: string; remove(): void };
const running: ServerProcess[] = [];
const quiet = { LOG_LEVEL: "error", NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1", DATABASE_URL: "" };

beforeAll(async () => {
  database = await freshDatabase();
  bundled = await bundleNodeEntry({});
}, 60_000);
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.stop()));
});
afterAll(async () => {
  await database?.drop();
  bundled?.remove();
});

async function start(command: string[], env: Record<string, string> = {}): Promise<ServerProcess> {
  const server = await startServerProcess({ command, env: { ...quiet, ...env } });
  running.push(server);
  return server;
}
const node = () => start([process.execPath, bundled.outfile, "--port", "0", "--store", database.url]);
const deno = (args: string[], env?: Record<string, string>) => start([denoBinary, ...DENO_FLAGS, "example/deno.ts", "--port", "0", ...args], env);

async function notebook(url: string, args: Record<string, unknown>): Promise<string> {
  const answer = (await (await postModern(url, "tools/call", { name: "notebook", arguments: args }, { name: "notebook" })).json()) as any;
  if (answer.error || answer.result.isError) throw new Error(JSON.stringify(answer));
  return answer.result.content[0].text;
}

it("is one store for a Node and a Deno server: a notebook written through one is read through the other, across a restart", { timeout: 90_000 }, async () => {
  const onNode = await node();
  const id = /notebook ([0-9a-f]{32})/.exec(await notebook(onNode.url, { action: "add", text: "from node" }))![1]!;

  const first = await deno([], { DATABASE_URL: database.url });
  expect(await notebook(first.url, { notebook: id, action: "add", text: "from deno" })).toBe("Noted. The pad has 2 note(s).");
  await first.stop();
  running.splice(running.indexOf(first), 1);

  const second = await deno(["--store", database.url]);
  expect(await notebook(second.url, { notebook: id, action: "list" })).toBe("1. from node\n2. from deno");
  expect(await notebook(onNode.url, { notebook: id, action: "list" })).toBe("1. from node\n2. from deno");
});

it("refuses a KV file and a store together on Deno: one line, exit 1", { timeout: 60_000 }, async () => {
  const { code, lines } = await failedStart(denoBinary, [...DENO_FLAGS, "example/deno.ts", "--port", "0", "--kv", "unused.kv", "--store", database.url], { ...process.env, ...quiet });
  expect(code).toBe(1);
  expect(lines).toHaveLength(1);
  expect(JSON.parse(lines[0]!)).toMatchObject({ event: "start.failed", message: expect.stringContaining("not both") });
});

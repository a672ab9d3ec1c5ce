/**
 * Homes shared by Deno processes: two Deno servers on one KV file, one notebook (a
 * handle home) written through both at once. Each write is an optimistic transaction in KV, its
 * reads checked at commit and retried on a conflict, so no process loses the other's update.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startDenoServer } from "../../scripts/startDenoServer.mjs";
import { postModern } from "../support/httpSession.ts";

type Server = Awaited<ReturnType<typeof startDenoServer>>;
let dir: string;
let servers: Server[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "durable-mcp-kv-homes-"));
  const kvPath = join(dir, "shared.kv");
  servers = await Promise.all([0, 1].map(() => startDenoServer({ definition: "example/server.ts", vars: { LOG_LEVEL: "error" }, kvPath })));
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.dispose()));
  await rm(dir, { recursive: true, force: true });
});

async function notebook(server: Server, args: Record<string, unknown>): Promise<string> {
  const response = await postModern(server.url, "tools/call", { name: "notebook", arguments: args }, { name: "notebook" });
  const answer = (await response.json()) as any;
  if (answer.error || answer.result.isError) throw new Error(JSON.stringify(answer));
  return answer.result.content[0].text;
}

it("loses no note when two processes add to one notebook at the same time", { timeout: 60_000 }, async () => {
  const opened = await notebook(servers[0]!, { action: "add", text: "first" });
  const id = /notebook ([0-9a-f]{32})/.exec(opened)![1];
  const adds = Array.from({ length: 30 }, (_, i) => notebook(servers[i % 2]!, { notebook: id, action: "add", text: `note ${i}` }));
  await Promise.all(adds);
  const listed = (await notebook(servers[1]!, { notebook: id, action: "list" })).split("\n");
  expect(listed).toHaveLength(31);
  expect(new Set(listed.map((line) => line.replace(/^\d+\. /, "")))).toEqual(new Set(["first", ...Array.from({ length: 30 }, (_, i) => `note ${i}`)]));
});

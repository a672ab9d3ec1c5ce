/**
 * A Deno fleet on one KV file with no session affinity: two processes of the example behind a
 * round-robin balancer (`roundRobin`: each request to the next process), as several instances of
 * a Deno Deploy application or `deno serve --parallel` behind a balancer serve, driven by the
 * official SDK clients over 2025 Streamable HTTP, HTTP+SSE and 2026-07-28. A session's requests
 * reach its holder whichever process they land on; a holder killed outright hands its sessions to
 * the other; after every process restarts, sessions and handles are still there.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { startDenoServer } from "../../scripts/startDenoServer.mjs";
import { closeAll, hearsAcrossProcesses, modernClient as modern, notebookIn, servesEveryEra, sessionClient as connect, streamableAt } from "../support/fleetClients.ts";
import { freePort } from "../support/freePort.ts";
import { type Balancer, roundRobin } from "../support/roundRobin.ts";

type Server = Awaited<ReturnType<typeof startDenoServer>>;
let dir: string;
const running: Server[] = [];
const balancers: Balancer[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "durable-mcp-deno-fleet-"));
});
afterEach(async () => {
  await closeAll();
  await Promise.all(balancers.splice(0).map((balancer) => balancer.close()));
  await Promise.all(running.splice(0).map((server) => server.dispose()));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function start(port: number, kvPath: string): Promise<Server> {
  const server = await startDenoServer({ port, kvPath, vars: { LOG_LEVEL: "error" } });
  running.push(server);
  return server;
}

async function fleet(name: string): Promise<{ ports: number[]; kvPath: string; servers: Server[]; balancer: Balancer }> {
  const kvPath = join(dir, `${name}.kv`);
  const ports = [await freePort(), await freePort()];
  // Started together, as a deployment's instances are: the KV file is opened by both at once.
  const servers = await Promise.all(ports.map((port) => start(port, kvPath)));
  const balancer = await roundRobin(servers.map((server) => server.url));
  balancers.push(balancer);
  return { ports, kvPath, servers, balancer };
}

async function kill(server: Server): Promise<void> {
  await server.kill();
  running.splice(running.indexOf(server), 1);
}

it("serves every era through a balancer with no affinity: a session's requests reach its holder whichever process they land on", { timeout: 120_000 }, async () => {
  const { balancer } = await fleet("eras");

  await servesEveryEra(balancer);
});

it("hands a killed holder's session to the other process, and keeps every session and handle across a restart of all", { timeout: 180_000 }, async () => {
  const { ports, kvPath, servers, balancer } = await fleet("restarts");
  const session = await connect(streamableAt(balancer.url));
  await session.call("notepad", { action: "add", text: "before the kill" });
  const writer = await modern(balancer.url);
  const notebook = notebookIn(await writer("notebook", { action: "add", text: "kept" }));

  await kill(servers[balancer.routed[0]!]!);
  expect(await session.call("notepad", { action: "list" })).toBe("1. before the kill");
  await session.call("notepad", { action: "add", text: "after the kill" });

  for (const server of [...running]) await kill(server);
  await Promise.all(ports.map((port) => start(port, kvPath)));
  expect(await session.call("notepad", { action: "list" })).toBe("1. before the kill\n2. after the kill");
  const reader = await modern(balancer.url);
  expect(await reader("notebook", { notebook, action: "list" })).toBe("1. kept");
});

it("tells a listen and a 2025 subscription on one process of a notebook written through the other, in each era", { timeout: 120_000 }, async () => {
  const { servers } = await fleet("notes");
  await hearsAcrossProcesses(servers[0]!.url, servers[1]!.url);
});

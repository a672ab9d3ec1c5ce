/**
 * Fair shares when the server fills, over real HTTP, on the runtimes that hold a total
 * (`MAX_SESSIONS`, `MAX_TASKS`): Node (here, and in contract-node) and Deno (contract-deno; its
 * tasks and their shares in a KV file, as with `--kv`). Workers have no total, each session and
 * task being an object of its own, so the e2e project runs this file on Node.
 *
 * One client with ten addresses, each on a network of its own, opens every session (starts every
 * task) it may; newcomers from other networks are still served. Each request leaves from its own
 * loopback address (the server counts the socket's peer), with the defaults' proportion of one
 * client's share to the total.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../../scripts/startServer.mjs";
import { BOTH, initialize, MODERN } from "../support/httpSession.ts";

const runtime = process.env.RUNTIME ?? "node";
let server: { url: string; dispose(): Promise<void> };
let probes: { url: string; dispose(): Promise<void> };
let kvDir: string;

beforeAll(async () => {
  kvDir = await mkdtemp(join(tmpdir(), "durable-mcp-crowded-"));
  [server, probes] = await Promise.all([
    startServer({ runtime, vars: { LOG_LEVEL: "error", MAX_SESSIONS: "100", MAX_SESSIONS_PER_CLIENT: "10" } }),
    startServer({ runtime, entry: "test/runtime/testWorker.ts", persistDir: kvDir, vars: { LOG_LEVEL: "error", MAX_TASKS: "100", MAX_TASKS_PER_CLIENT: "10" } }),
  ]);
});
afterAll(async () => {
  await Promise.all([server?.dispose(), probes?.dispose()]);
  if (kvDir) await rm(kvDir, { recursive: true, force: true });
});

/** A JSON-RPC request posted from `address`: the status, and the refusal's message if any. */
function postFrom(to: { url: string }, address: string, message: unknown, headers: Record<string, string> = {}): Promise<{ status: number; message?: string }> {
  const body = JSON.stringify(message);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      new URL("/mcp", to.url),
      { method: "POST", localAddress: address, headers: { "content-type": "application/json", accept: BOTH, "content-length": Buffer.byteLength(body), ...headers } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          const text = Buffer.concat(chunks).toString();
          const refusal = (JSON.parse(text) as { error?: { message?: string } }).error?.message;
          resolve(refusal === undefined ? { status: response.statusCode! } : { status: response.statusCode!, message: refusal });
        });
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}

const initializeFrom = (address: string) => postFrom(server, address, initialize(0, "2025-11-25"));

/** A task started from `address` (2026-07-28, the tasks extension declared): one quick step, its share held until its TTL. */
const taskFrom = (address: string) =>
  postFrom(
    probes,
    address,
    { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "task_steps", arguments: { steps: 1, ms: 1 }, _meta: { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } } } } },
    { "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": "task_steps" },
  );

/** Sends from each of ten networks until refused (429); how many were served. */
async function greedy(send: (address: string) => Promise<{ status: number; message?: string }>): Promise<number> {
  let served = 0;
  for (let network = 1; network <= 10; network++) {
    for (let attempt = 0; attempt < 20; attempt++) {
      const answer = await send(`127.0.${network}.2`);
      if (answer.status !== 200) {
        expect(answer.status).toBe(429);
        break;
      }
      served++;
    }
  }
  return served;
}

describe(`a crowded server (${runtime})`, () => {
  it("serves newcomers after a client with ten addresses on ten networks opens all the sessions it may", { timeout: 60_000 }, async () => {
    // Past half the total, what one network may take shrinks with what is free: the ten hold 84 of 100.
    expect(await greedy(initializeFrom)).toBe(84);
    for (let newcomer = 1; newcomer <= 10; newcomer++) {
      const answer = await initializeFrom(`127.0.${200 + newcomer}.2`);
      expect(answer.message ?? answer.status).toBe(200);
    }
  });

  it("starts newcomers' tasks after a client with ten addresses on ten networks starts all the tasks it may", { timeout: 60_000 }, async () => {
    expect(await greedy(taskFrom)).toBe(84);
    for (let newcomer = 1; newcomer <= 10; newcomer++) {
      const answer = await taskFrom(`127.0.${200 + newcomer}.2`);
      expect(answer.message ?? answer.status).toBe(200);
    }
  });
});

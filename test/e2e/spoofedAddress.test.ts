/**
 * `CF-Connecting-IP` names the client only where Cloudflare's edge wrote it, or where the
 * operator's `TRUST_PROXY` says a proxy in front does. On self-hosted workerd (bare, in the e2e
 * project: nothing in front; workerd's `request.cf` holds only the socket's peer), on Deno and on
 * Node, values a client makes up count as one client, its socket's peer; on miniflare, which stands
 * in for the edge (it gives every request the edge's `cf` properties and the header), and on Deno
 * and Node with `TRUST_PROXY=cf-connecting-ip`, the header counts clients apart. Counted here by
 * fair shares: one session per client (`MAX_SESSIONS_PER_CLIENT=1`).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../../scripts/startServer.mjs";
import { startWorkerd } from "../../scripts/startWorkerd.mjs";
import { BOTH, initialize, postJson } from "../support/httpSession.ts";

const vars = { LOG_LEVEL: "error", MAX_SESSIONS_PER_CLIENT: "1" };
const workerd = process.env.RUNTIME === undefined;
let selfHosted: { url: string; dispose(): Promise<void> };
let trusted: { url: string; dispose(): Promise<void> };

beforeAll(async () => {
  [selfHosted, trusted] = await Promise.all([
    workerd ? startWorkerd({ entry: "example/worker.ts", vars, onDisk: true }) : startServer({ vars }),
    startServer({ vars: workerd ? vars : { ...vars, TRUST_PROXY: "cf-connecting-ip" } }),
  ]);
});
afterAll(() => Promise.all([selfHosted?.dispose(), trusted?.dispose()]));

/** `initialize` claiming to come from `address`: its status. */
async function initializeAs(server: { url: string }, address: string): Promise<number> {
  const response = await postJson(`${server.url}/mcp`, initialize(0, "2025-11-25"), { headers: { "content-type": "application/json", accept: BOTH, "cf-connecting-ip": address } });
  await response.arrayBuffer();
  return response.status;
}

describe("CF-Connecting-IP", () => {
  it(`set by the client is not its address (${workerd ? "bare workerd" : process.env.RUNTIME}): five made-up values count as one client`, async () => {
    const statuses: number[] = [];
    for (let i = 1; i <= 5; i++) statuses.push(await initializeAs(selfHosted, `198.51.100.${i}`));
    expect(statuses).toEqual([200, 429, 429, 429, 429]);
  });

  it(`set by ${workerd ? "Cloudflare's edge (request.cf present: miniflare)" : "a proxy TRUST_PROXY names"} counts clients apart`, async () => {
    expect(await initializeAs(trusted, "203.0.113.1")).toBe(200);
    expect(await initializeAs(trusted, "203.0.113.1")).toBe(429);
    expect(await initializeAs(trusted, "203.0.113.2")).toBe(200);
  });
});

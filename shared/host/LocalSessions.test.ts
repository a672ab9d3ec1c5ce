import { afterEach, describe, expect, it, vi } from "vitest";
import { DEFAULT_CONFIG } from "../config/readConfig.ts";
import { Logger } from "../log/Logger.ts";
import { probeTools } from "../testing/testKit.ts";
import { clientKey } from "../shares/clientKey.ts";
import { LocalSessions } from "./LocalSessions.ts";
import { localRuntime } from "../runtime/localRuntime.ts";
import { CompiledServer } from "../server/CompiledServer.ts";

const DAY_MS = 24 * 60 * 60 * 1000;
const server = new CompiledServer({ name: "local", version: "1", tools: probeTools([]) });
const initialize = { jsonrpc: "2.0" as const, id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } } };

function sessions(sessionIdleTtlMs: number) {
  return new LocalSessions(localRuntime(server, { config: { ...DEFAULT_CONFIG, sessionIdleTtlMs }, logger: new Logger("error"), env: {} }));
}

async function open(local: LocalSessions, sessionId: string) {
  const response = await local.apply({ kind: "post", sessionId, messages: [initialize], size: 100, create: true });
  expect(response.status).toBe(200);
}

const ping = (sessionId: string) => ({ kind: "post" as const, sessionId, messages: [{ jsonrpc: "2.0" as const, id: 1, method: "ping" }], size: 40, create: false });

afterEach(() => vi.useRealTimers());

describe("LocalSessions: expiry in process", () => {
  it("ends a session that only ever answered with JSON at its deadline, and forgets it", async () => {
    const local = sessions(40);
    await open(local, "a".repeat(32));
    expect(local.size).toBe(1);
    // The deadline lies 40–60 ms ahead; the timer ends the session then.
    await new Promise((r) => setTimeout(r, 150));
    expect(local.size).toBe(0);
    expect((await local.apply(ping("a".repeat(32)))).status).toBe(404);
    local.close();
  });

  it("reaches a deadline beyond one timer's 24.8-day range by re-arming, not by firing at once", async () => {
    vi.useFakeTimers();
    const local = sessions(30 * DAY_MS);
    await open(local, "b".repeat(32));
    // A single timer for 45 days would overflow and fire at once.
    await vi.advanceTimersByTimeAsync(25 * DAY_MS);
    expect(local.size).toBe(1);
    expect((await local.apply(ping("b".repeat(32)))).status).toBe(200);
    await vi.advanceTimersByTimeAsync(46 * DAY_MS);
    expect(local.size).toBe(0);
    local.close();
  });
});

describe("LocalSessions: fair shares", () => {
  const limited = (overrides: Partial<typeof DEFAULT_CONFIG>) =>
    new LocalSessions(localRuntime(server, { config: { ...DEFAULT_CONFIG, ...overrides }, logger: new Logger("error"), env: {} }));
  const create = (local: LocalSessions, sessionId: string, shareKey: string) => local.apply({ kind: "post", sessionId, messages: [initialize], size: 100, create: true, shareKey });

  it("refuses a client past MAX_SESSIONS_PER_CLIENT with 429 naming it, while another client is served; an ended session frees its slot", async () => {
    const local = limited({ maxSessionsPerClient: 2 });
    for (const id of ["1", "2"]) expect((await create(local, id.repeat(32), "greedy")).status).toBe(200);
    const refused = await create(local, "3".repeat(32), "greedy");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("60");
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
      "This client holds 2 sessions, the most one client may hold at once (MAX_SESSIONS_PER_CLIENT); retry after 60s",
    );
    expect(local.size).toBe(2);
    expect((await create(local, "4".repeat(32), "modest")).status).toBe(200);
    expect((await local.apply({ kind: "end", sessionId: "1".repeat(32) })).status).toBe(204);
    expect((await create(local, "5".repeat(32), "greedy")).status).toBe(200);
    local.close();
  });

  it("refuses anyone past MAX_SESSIONS in the process", async () => {
    const local = limited({ maxSessions: 2 });
    expect((await create(local, "a".repeat(32), "one")).status).toBe(200);
    expect((await create(local, "b".repeat(32), "two")).status).toBe(200);
    const refused = await create(local, "c".repeat(32), "three");
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/^This server holds 2 sessions, the most it holds at once \(MAX_SESSIONS\)/);
    local.close();
  });

  it("leaves room for a newcomer after a client with ten addresses opens all the sessions it may", async () => {
    vi.useFakeTimers();
    // The defaults' proportion: one client may hold a tenth of the total.
    const local = limited({ maxSessions: 100, maxSessionsPerClient: 10 });
    let opened = 0;
    for (let network = 1; network <= 10; network++) {
      const greedy = await clientKey(undefined, `198.51.${network}.7`);
      for (let attempt = 0; attempt < 20; attempt++) {
        const response = await create(local, crypto.randomUUID().replaceAll("-", ""), greedy);
        if (response.status !== 200) break;
        opened++;
      }
    }
    const newcomer = await create(local, "n".repeat(32), await clientKey(undefined, "203.0.113.9"));
    expect(newcomer.status === 200 ? "served" : ((await newcomer.json()) as { error: { message: string } }).error.message).toBe("served");
    local.close();
  });
});

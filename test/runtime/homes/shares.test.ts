/**
 * Fair shares on Workers, inside real workerd: each client's sessions and tasks are
 * counted in its home object — the signed-in user's own — so one user holding their share is
 * refused (429, Retry-After, the limit named) while another is served; a session ended or a task
 * cancelled gives its slot back at once; a holding never given back lapses, and the home's alarm
 * leaves no key of it; and `deleteUserData` ends the user's sessions and tasks with their home.
 * MAX_SESSIONS_PER_CLIENT is 3 and MAX_TASKS_PER_CLIENT 2 here.
 */
import { env, runDurableObjectAlarm, runInDurableObject, SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { initialize } from "../../support/messages.ts";
import { ISSUER, worker } from "./homeWorker.ts";
import { BASE, modern, modernFetch, startIssuer, streamable, tokenFor, userHome } from "./signedIn.ts";

type Stub = Awaited<ReturnType<typeof userHome>>;
const keysOf = (stub: Stub | DurableObjectStub) => runInDurableObject(stub as Stub, async (_i, state) => [...(await state.storage.list()).keys()].sort());
const someone = (label: string) => `${label}-${crypto.randomUUID()}`;
const TASKS = { extensions: { "io.modelcontextprotocol/tasks": {} } };

beforeAll(startIssuer);

/** `initialize` as `subject`: the whole response. */
async function initializeAs(subject: string): Promise<Response> {
  return SELF.fetch(`${BASE}/mcp`, {
    method: "POST",
    headers: { authorization: `Bearer ${await tokenFor(subject)}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify(initialize(0, "2025-11-25")),
  });
}

describe("fair shares in the client's home", () => {
  it("are listed on GET /, with the homes' bounds", async () => {
    const described = (await (await SELF.fetch(`${BASE}/`, { headers: { authorization: `Bearer ${await tokenFor(someone("reader"))}` } })).json()) as any;
    expect(described.limits.perClient).toEqual({ sessions: 3, listens: 10, tasks: 2, taskBytes: 32 * 1024 * 1024, handles: 3 });
    expect(described.limits.homes).toEqual({ maxBytes: 65_536, maxKeys: 20, retentionMs: 90 * 24 * 3_600_000 });
  });

  it("refuses a user's session past MAX_SESSIONS_PER_CLIENT while another user is served; DELETE gives the slot back", async () => {
    const greedy = someone("greedy");
    const sessions = [];
    for (let i = 0; i < 3; i++) sessions.push((await initializeAs(greedy)).headers.get("mcp-session-id")!);
    expect(sessions.every((id) => /^[0-9a-f]{32}$/.test(id))).toBe(true);
    const refused = await initializeAs(greedy);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("60");
    expect(((await refused.json()) as any).error).toMatchObject({ code: -32000, message: "This client holds 3 sessions, the most one client may hold at once (MAX_SESSIONS_PER_CLIENT); retry after 60s" });
    expect((await initializeAs(someone("modest"))).status).toBe(200);
    // The holdings are the user's home's keys, one per live session.
    expect(await keysOf(await userHome(greedy))).toEqual(sessions.map((id) => `share:session:${id}`).sort());

    const deleted = await SELF.fetch(`${BASE}/mcp`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${await tokenFor(greedy)}`, "mcp-session-id": sessions[0]!, "mcp-protocol-version": "2025-11-25" },
    });
    expect(deleted.status).toBe(204);
    expect((await initializeAs(greedy)).status).toBe(200);
  });

  it("refuses a user's task past MAX_TASKS_PER_CLIENT while another is served; tasks/cancel gives the slot back at once", async () => {
    const busy = someone("busy");
    const first = await modern(busy, "tools/call", { name: "slow_task", arguments: { ms: 60_000 } }, { capabilities: TASKS });
    await modern(busy, "tools/call", { name: "slow_task", arguments: { ms: 60_000 } }, { capabilities: TASKS });
    const refused = await modernFetch(busy, "tools/call", { name: "slow_task", arguments: { ms: 1 } }, { capabilities: TASKS });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("60");
    expect(((await refused.json()) as any).error.message).toBe("This client holds 2 tasks, the most one client may hold at once (MAX_TASKS_PER_CLIENT); retry after 60s");
    expect((await modern(someone("idle"), "tools/call", { name: "slow_task", arguments: { ms: 1 } }, { capabilities: TASKS })).resultType).toBe("task");
    await modern(busy, "tasks/cancel", { taskId: first.taskId }, { capabilities: TASKS });
    expect((await modern(busy, "tools/call", { name: "slow_task", arguments: { ms: 1 } }, { capabilities: TASKS })).resultType).toBe("task");
  });

  it("lets a holding never given back lapse, and the home's alarm then leaves no key", async () => {
    const brief = someone("brief");
    await streamable(brief);
    const home = await userHome(brief);
    expect((await keysOf(home)).length).toBe(1);
    expect(await runInDurableObject(home, (_i, state) => state.storage.getAlarm())).not.toBeNull();
    // The session's deadline passes without its end being told (as if its object were lost).
    await runInDurableObject(home, async (_i, state) => {
      const [key, holding] = [...(await state.storage.list<{ until: number }>({ prefix: "share:" }))][0]!;
      await state.storage.put(key, { ...holding, until: Date.now() - 1 });
    });
    expect(await runDurableObjectAlarm(home)).toBe(true);
    expect(await keysOf(home)).toEqual([]);
    expect(await runInDurableObject(home, (_i, state) => state.storage.getAlarm())).toBeNull();
  });

  it("ends the user's sessions and tasks with their home on deleteUserData, each leaving zero keys", async () => {
    const gone = someone("gone");
    const session = await streamable(gone);
    await session.call("notepad", { action: "add", text: "in the home" });
    const task = await modern(gone, "tools/call", { name: "slow_task", arguments: { ms: 60_000 } }, { capabilities: TASKS });
    expect(await worker.deleteUserData(env, { issuer: ISSUER, subject: gone })).toEqual({ sessions: 1, tasks: 1 });
    const sessionObject = env.MCP_SESSION.get(env.MCP_SESSION.idFromName(session.sessionId));
    const taskObject = env.MCP_TASK!.get(env.MCP_TASK!.idFromName(task.taskId));
    expect(await keysOf(await userHome(gone))).toEqual([]);
    expect(await keysOf(sessionObject)).toEqual([]);
    expect(await keysOf(taskObject)).toEqual([]);
    expect(await runInDurableObject(taskObject as unknown as Stub, (_i, state) => state.storage.getAlarm())).toBeNull();
  });
});

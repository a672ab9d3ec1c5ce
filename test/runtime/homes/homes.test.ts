/**
 * Homes inside real workerd: a user's home object and a handle's, reached through the
 * Worker with real tokens in every era. The home object is evicted between steps, so every answer
 * comes from storage; each ending (retention, `deleteUserData`) is checked by listing the
 * object's storage afterwards. MAX_HOME_KEYS is 20 and MAX_HOME_BYTES 64 KiB here.
 */
import { env, evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { SseReader } from "../../support/SseReader.ts";
import { call } from "../../support/messages.ts";
import { captureErrorLines, closeSession, eventually } from "../helpers.ts";
import { ISSUER, worker } from "./homeWorker.ts";
import { handleHome, legacy, modern, startIssuer, streamable, text, userHome } from "./signedIn.ts";

type Stub = Awaited<ReturnType<typeof userHome>>;
const keysOf = (stub: Stub) => runInDurableObject(stub, async (_i, state) => [...(await state.storage.list()).keys()].sort());
const alarmOf = (stub: Stub) => runInDurableObject(stub, (_i, state) => state.storage.getAlarm());
/** A unique user per test: each test's homes are its own. */
const someone = (label: string) => `${label}-${crypto.randomUUID()}`;

beforeAll(startIssuer);

describe("a user's home", () => {
  it("keeps a user's notes across 2026-07-28, a 2025 session and HTTP+SSE, the object evicted between every step", async () => {
    const alice = someone("alice");
    const home = await userHome(alice);
    expect(text(await modern(alice, "tools/call", { name: "notepad", arguments: { action: "add", text: "from 2026-07-28" } }))).toBe("Noted. The pad has 1 note(s).");
    await evictDurableObject(home);
    expect(await keysOf(home)).toEqual(["data:notes", "home"]);

    const session = await streamable(alice);
    expect(text(await session.call("notepad", { action: "add", text: "from a 2025 session" }))).toBe("Noted. The pad has 2 note(s).");
    await evictDurableObject(home);

    const sse = await legacy(alice);
    expect(text(await sse.call("notepad", { action: "list" }))).toBe("1. from 2026-07-28\n2. from a 2025 session");
    await sse.call("notepad", { action: "add", text: "from HTTP+SSE" });
    await sse.close();
    await evictDurableObject(home);

    // Another session of hers, later: a new session is not new state.
    expect(text(await (await streamable(alice)).call("notepad", { action: "list" }))).toBe("1. from 2026-07-28\n2. from a 2025 session\n3. from HTTP+SSE");
  });

  it("never shows one principal another's notes", async () => {
    const alice = someone("alice");
    const bob = someone("bob");
    await modern(alice, "tools/call", { name: "notepad", arguments: { action: "add", text: "alice's secret" } });
    expect(text(await modern(bob, "tools/call", { name: "notepad", arguments: { action: "list" } }))).toBe("The note pad is empty.");
    await modern(bob, "tools/call", { name: "notepad", arguments: { action: "add", text: "bob's" } });
    expect(text(await (await streamable(alice)).call("notepad", { action: "list" }))).toBe("1. alice's secret");
    expect((await userHome(alice)).id.toString()).not.toBe((await userHome(bob)).id.toString());
  });

  it("refuses a write past MAX_HOME_KEYS or MAX_HOME_BYTES with a tool error that names the bound", async () => {
    const carol = someone("carol");
    // The note pad keeps one key; SQL rows grow the database: 40 KB rows pass the 64 KiB bound on the second.
    expect(JSON.parse(text(await modern(carol, "tools/call", { name: "sql_notes", arguments: { bytes: 20_000 } })))).toMatchObject({ rows: 1 });
    const errors = captureErrorLines();
    let full: Awaited<ReturnType<typeof modern>>;
    try {
      full = await modern(carol, "tools/call", { name: "sql_notes", arguments: { bytes: 60_000 } });
    } finally {
      errors.restore();
    }
    expect(full.isError).toBe(true);
    // The handler threw: the operator's error line says so, once, with its stack.
    expect(errors.lines).toEqual([expect.objectContaining({ level: "error", event: "handler.error", method: "tools/call", tool: "sql_notes", error: "RangeError", message: expect.stringMatching(/past the 65536 it may hold \(MAX_HOME_BYTES\)/), stack: expect.any(Array) })]);
    expect(JSON.stringify(errors.lines)).not.toMatch(/eyJ[\w-]*\.[\w-]*\./); // no bearer token
    expect(text(full)).toMatch(/This storage is full: the statement would bring its database to \d+ bytes, past the 65536 it may hold \(MAX_HOME_BYTES\); nothing was changed/);
    // Rolled back: still one row.
    expect(JSON.parse(text(await modern(carol, "tools/call", { name: "sql_notes", arguments: { bytes: 0 } })))).toMatchObject({ rows: 1 });
    const note = await modern(carol, "tools/call", { name: "notepad", arguments: { action: "add", text: "x".repeat(1_999) } });
    expect(note.isError).toBe(false);
  });

  it("is made by a write through SQL alone, so it too expires", async () => {
    const dave = someone("dave");
    await modern(dave, "tools/call", { name: "sql_notes", arguments: { bytes: 10 } });
    const home = await userHome(dave);
    expect(await keysOf(home)).toEqual(["home"]);
    expect(await alarmOf(home)).not.toBeNull();
  });

  it("reports progress from the home on the request's stream, and hears the request's cancellation", async () => {
    const erin = someone("erin");
    const session = await streamable(erin);
    const response = await session.post(call(41, "user_wait", { ms: 60_000 }, { progressToken: "p" }));
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const reader = new SseReader(response.body!);
    let event = await reader.next();
    // A 2025-11-25 stream opens with its priming event (an id, no data).
    if (event.data === "") event = await reader.next();
    expect(JSON.parse(event.data)).toMatchObject({ method: "notifications/progress", params: { progressToken: "p", message: "started in the home" } });
    // The client cancels: the session aborts its request, and the handler in the home hears it.
    await session.post({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 41 } });
    const home = await userHome(erin);
    const aborted = await eventually(() => runInDurableObject(home, (_i, state) => state.storage.get<string>("data:aborted")), 15_000);
    expect(aborted).toBe("Error: The request was cancelled");
    // Ended, not dropped: a dropped stream is found by the next keepalive, which workerd reports.
    await closeSession(session.sessionId, reader);
  });

  it("runs a task's handler in the user's home", { timeout: 30_000 }, async () => {
    const frank = someone("frank");
    const capabilities = { extensions: { "io.modelcontextprotocol/tasks": {} } };
    const created = await modern(frank, "tools/call", { name: "user_task", arguments: { text: "from a task" } }, { capabilities });
    expect(created.resultType).toBe("task");
    for (let i = 0; i < 300; i++) {
      const task = await modern(frank, "tasks/get", { taskId: created.taskId }, { capabilities });
      if (task.status === "completed") break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(text(await modern(frank, "tools/call", { name: "notepad", arguments: { action: "list" } }))).toBe("1. from a task");
  });

  it("is deleted, every key and its alarm, once unused for HOME_RETENTION_MS", async () => {
    const gina = someone("gina");
    await modern(gina, "tools/call", { name: "notepad", arguments: { action: "add", text: "old" } });
    const home = await userHome(gina);
    // Used recently: the alarm re-arms instead of deleting.
    expect(await runDurableObjectAlarm(home)).toBe(true);
    expect(await keysOf(home)).toEqual(["data:notes", "home"]);
    const due = await alarmOf(home);
    expect(due).toBeGreaterThan(Date.now() + 80 * 24 * 3600_000);
    // Last used 91 days ago: the alarm deletes it.
    await runInDurableObject(home, async (_i, state) => {
      const record = await state.storage.get<{ usedAt: number }>("home");
      await state.storage.put("home", { ...record, usedAt: Date.now() - 91 * 24 * 3600_000 });
    });
    await evictDurableObject(home);
    expect(await runDurableObjectAlarm(home)).toBe(true);
    expect(await keysOf(home)).toEqual([]);
    expect(await alarmOf(home)).toBeNull();
    expect(text(await modern(gina, "tools/call", { name: "notepad", arguments: { action: "list" } }))).toBe("The note pad is empty.");
  });

  it("is deleted by deleteUserData, every key, table and alarm, and no one else's", async () => {
    const hank = someone("hank");
    const ivy = someone("ivy");
    await modern(hank, "tools/call", { name: "notepad", arguments: { action: "add", text: "forget me" } });
    await modern(hank, "tools/call", { name: "sql_notes", arguments: { bytes: 100 } });
    await modern(ivy, "tools/call", { name: "notepad", arguments: { action: "add", text: "keep me" } });
    await worker.deleteUserData(env, { issuer: ISSUER, subject: hank });
    const home = await userHome(hank);
    expect(await keysOf(home)).toEqual([]);
    expect(await alarmOf(home)).toBeNull();
    expect(await runInDurableObject(home, (_i, state) => state.storage.sql.exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'notes'").toArray())).toEqual([]);
    expect(await keysOf(await userHome(ivy))).toEqual(["data:notes", "home"]);
  });
});

describe("a handle's home", () => {
  it("opens a notebook for a call without one, and finds it in every era for its owner, the object evicted between steps", async () => {
    const jack = someone("jack");
    const opened = text(await modern(jack, "tools/call", { name: "notebook", arguments: { action: "add", text: "handled" } }));
    const handle = /notebook ([0-9a-f]{32})/.exec(opened)![1]!;
    const home = handleHome(handle);
    await evictDurableObject(home);
    expect(await keysOf(home)).toEqual(["data:notes", "home"]);
    expect(text(await (await streamable(jack)).call("notebook", { notebook: handle, action: "list" }))).toBe("1. handled");
    await evictDurableObject(home);
    const sse = await legacy(jack);
    expect(text(await sse.call("notebook", { notebook: handle, action: "list" }))).toBe("1. handled");
    await sse.close();
  });

  it("answers another principal's, a forged and a malformed handle as unknown, with a tool error", async () => {
    const kate = someone("kate");
    const handle = /notebook ([0-9a-f]{32})/.exec(text(await modern(kate, "tools/call", { name: "notebook", arguments: { action: "add", text: "mine" } })))![1]!;
    const unknown = (id: string) => `Unknown handle ${JSON.stringify(id)}: it was never made, has expired unused, or is not yours. Call notebook without it to start a new one.`;
    const foreign = await modern(someone("leo"), "tools/call", { name: "notebook", arguments: { notebook: handle, action: "list" } });
    expect(foreign).toMatchObject({ isError: true, content: [{ text: unknown(handle) }] });
    const forged = "f".repeat(32);
    expect(await modern(kate, "tools/call", { name: "notebook", arguments: { notebook: forged, action: "list" } })).toMatchObject({ isError: true, content: [{ text: unknown(forged) }] });
    // A forged handle wakes its object, which finds nothing and keeps nothing.
    expect(await keysOf(handleHome(forged))).toEqual([]);
    expect(await modern(kate, "tools/call", { name: "notebook", arguments: { notebook: "../etc/passwd", action: "list" } })).toMatchObject({ isError: true });
    expect(await keysOf(handleHome(handle))).toEqual(["data:notes", "home"]);
  });

  it("keeps nothing for a call that stored nothing", async () => {
    const answer = text(await modern(someone("mia"), "tools/call", { name: "notebook", arguments: { action: "list" } }));
    expect(answer).toBe("The note pad is empty. (No notebook was given, and none was kept: add a note to open one.)");
  });
});

/**
 * Fair shares over real HTTP, on bare workerd (where each user's counts live in their home object;
 * bare, because miniflare's proxy never tells a Worker that its client closed a stream, and
 * closing a listen must free its slot) and on Deno and Node (where they live in the process: the
 * contract suites run this file with RUNTIME=deno and RUNTIME=node), behind the JWT issuer of `test/fixtures/auth/`:
 * for each bounded resource — live sessions, open listens, tasks, bytes of stored task arguments
 * — one user exhausts their share and is refused with 429, `Retry-After` and the limit named,
 * while another user is still served; giving one back (DELETE, closing a listen, tasks/cancel)
 * makes room again. Without a token, a client is its address: on the example server, one address
 * past its share of sessions is refused while another is served.
 */
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../../scripts/startServer.mjs";
import { startWorkerd } from "../../scripts/startWorkerd.mjs";
import { BOTH, initialize, postJson, postModern } from "../support/httpSession.ts";
import { SseReader } from "../support/SseReader.ts";
import { type TestIssuer, testIssuer } from "../support/testIssuer.ts";

const ENTRY = "test/fixtures/auth/authWorker.ts";
const ISSUER = "https://issuer.example";
const TASKS = { extensions: { "io.modelcontextprotocol/tasks": {} } };

let issuer: TestIssuer;
let server: { url: string; dispose(): Promise<void> };

beforeAll(async () => {
  issuer = await testIssuer(ISSUER);
  const vars = { LOG_LEVEL: "error", JWT_ISSUER: ISSUER, JWT_KEYS: issuer.jwks, MAX_SESSIONS_PER_CLIENT: "2", MAX_LISTENS_PER_CLIENT: "1", MAX_TASKS_PER_CLIENT: "2", MAX_TASK_BYTES_PER_CLIENT: "3000", KEEPALIVE_INTERVAL_MS: "250" };
  // Objects on disk: workerd 1.20260426 aborts ("Promise callback destroyed itself") when a task's alarm runs on in-memory storage.
  server = process.env.RUNTIME ? await startServer({ entry: ENTRY, vars }) : await startWorkerd({ entry: ENTRY, vars, onDisk: true });
});
afterAll(() => server?.dispose());

const bearer = async (subject: string) => ({ authorization: `Bearer ${await issuer.sign({ sub: subject, aud: `${server.url}/mcp` })}` });
/** Each test's users are its own. */
const someone = (label: string) => `${label}-${crypto.randomUUID()}`;

async function openSession(subject: string): Promise<Response> {
  return postJson(`${server.url}/mcp`, initialize(0, "2025-11-25"), { headers: { "content-type": "application/json", accept: BOTH, ...(await bearer(subject)) } });
}

async function modern(subject: string, method: string, params: Record<string, unknown>, name?: string): Promise<Response> {
  return postModern(server.url, method, params, { capabilities: TASKS, name, headers: await bearer(subject) });
}

/** A refusal: 429, a Retry-After, and the JSON-RPC error's message. */
async function refusal(response: Response): Promise<string> {
  expect(response.status).toBe(429);
  expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
  const { error } = (await response.json()) as { error: { code: number; message: string } };
  expect(error.code).toBe(-32000);
  return error.message;
}

describe("each client's share", () => {
  it("of live sessions: the third is refused while another user opens one; DELETE makes room", async () => {
    const greedy = someone("greedy");
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const opened = await openSession(greedy);
      expect(opened.status).toBe(200);
      ids.push(opened.headers.get("mcp-session-id")!);
      await opened.arrayBuffer();
    }
    expect(await refusal(await openSession(greedy))).toMatch(/^This client holds 2 sessions, the most one client may hold at once \(MAX_SESSIONS_PER_CLIENT\); retry after \d+s$/);
    expect((await openSession(someone("modest"))).status).toBe(200);
    const deleted = await fetch(`${server.url}/mcp`, { method: "DELETE", headers: { "mcp-session-id": ids[0]!, "mcp-protocol-version": "2025-11-25", ...(await bearer(greedy)) } });
    expect(deleted.status).toBe(204);
    expect((await openSession(greedy)).status).toBe(200);
  });

  it("of open listens: the second is refused while another user listens; closing one makes room", { timeout: 30_000 }, async () => {
    const listener = someone("listener");
    const listen = (subject: string) => modern(subject, "subscriptions/listen", { notifications: { toolsListChanged: true } });
    const first = await listen(listener);
    expect(first.status).toBe(200);
    const reader = new SseReader(first.body!);
    expect((await reader.nextMessage(10_000)).method).toBe("notifications/subscriptions/acknowledged");
    expect(await refusal(await listen(listener))).toMatch(/^This client holds 1 listen requests open, the most one client may \(MAX_LISTENS_PER_CLIENT\)/);
    const other = await listen(someone("other"));
    expect(other.status).toBe(200);
    await other.body!.cancel();
    // The server learns the client left at its next write (a keepalive at most): the slot comes back.
    await reader.cancel();
    let again: Response | undefined;
    for (let attempt = 0; attempt < 100; attempt++) {
      again = await listen(listener);
      if (again.status === 200) break;
      await again.arrayBuffer();
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(again!.status).toBe(200);
    await again!.body!.cancel();
  });

  it("of tasks: the third is refused while another user starts one; tasks/cancel makes room at once", async () => {
    const busy = someone("busy");
    const start = (subject: string) => modern(subject, "tools/call", { name: "wait", arguments: { seconds: 300 } }, "wait");
    const first = (await (await start(busy)).json()) as { result: { taskId: string } };
    expect((await start(busy)).status).toBe(200);
    expect(await refusal(await start(busy))).toMatch(/^This client holds 2 tasks, the most one client may hold at once \(MAX_TASKS_PER_CLIENT\); retry after \d+s$/);
    const others = (await (await start(someone("idle"))).json()) as { result: { resultType: string } };
    expect(others.result.resultType).toBe("task");
    const cancelled = await modern(busy, "tasks/cancel", { taskId: first.result.taskId }, first.result.taskId);
    expect(cancelled.status).toBe(200);
    expect((await start(busy)).status).toBe(200);
  });

  it("of the bytes of stored task arguments: a task past them is refused while another user's is stored", async () => {
    const bulky = someone("bulky");
    // Arguments a task stores, whatever its tool makes of them: these fail validation when the task runs.
    const start = (subject: string, size: number) => modern(subject, "tools/call", { name: "wait", arguments: { seconds: 1, padding: "x".repeat(size) } }, "wait");
    expect((await start(bulky, 1_800)).status).toBe(200);
    expect(await refusal(await start(bulky, 1_800))).toMatch(/^This client's tasks would hold \d+ bytes of arguments, past the 3000 one client may \(MAX_TASK_BYTES_PER_CLIENT\)/);
    expect((await start(someone("slim"), 1_800)).status).toBe(200);
  });
});

describe("a client without a token", () => {
  let open: { url: string; dispose(): Promise<void> };
  beforeAll(async () => {
    const vars = { LOG_LEVEL: "error", MAX_SESSIONS_PER_CLIENT: "1" };
    open = process.env.RUNTIME ? await startServer({ vars }) : await startWorkerd({ entry: "example/worker.ts", vars, onDisk: true });
  });
  afterAll(() => open?.dispose());

  /** `initialize` from `address`: the TCP peer, so the request leaves from that loopback address (bare workerd counts its socket's peer too). */
  function initializeFrom(address: string): Promise<{ status: number; retryAfter: string | undefined }> {
    const body = JSON.stringify(initialize(0, "2025-11-25"));
    const url = new URL("/mcp", open.url);
    return new Promise((resolve, reject) => {
      const request = httpRequest(
        url,
        {
          method: "POST",
          localAddress: address,
          headers: { "content-type": "application/json", accept: BOTH, "content-length": Buffer.byteLength(body) },
        },
        (response) => {
          response.resume();
          response.on("end", () => resolve({ status: response.statusCode!, retryAfter: response.headers["retry-after"] as string | undefined }));
        },
      );
      request.on("error", reject);
      request.end(body);
    });
  }

  it("counts by its address: one address past its share is refused while another is served", async () => {
    expect((await initializeFrom("127.0.0.2")).status).toBe(200);
    expect(await initializeFrom("127.0.0.2")).toEqual({ status: 429, retryAfter: "60" });
    expect((await initializeFrom("127.0.0.3")).status).toBe(200);
  });
});

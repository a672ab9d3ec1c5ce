/**
 * Every malformed request gets the right status and JSON-RPC error, and no input yields a 5xx.
 * Run against the real Worker and session object in workerd.
 */
import { SELF } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BASE, openSession, post, type OpenSession } from "./helpers.ts";

let session: OpenSession;
beforeAll(async () => {
  session = await openSession();
});
afterAll(() => session.reader.cancel());

async function expectError(response: Response, status: number, code: number) {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toContain("application/json");
  const body = await response.json<any>();
  expect(body.jsonrpc).toBe("2.0");
  expect(body.error.code).toBe(code);
  expect(body.error.message).not.toMatch(/\n\s+at /); // no stack trace on the wire
  return body;
}

const FOUR_MIB = 4 * 1024 * 1024;

describe("hostile input on POST /message", () => {
  it("missing sessionId → 400", async () => {
    await expectError(await post("/message", { jsonrpc: "2.0", id: 1, method: "ping" }), 400, -32600);
  });

  it("malformed sessionId → 400", async () => {
    await expectError(await post("/message?sessionId=../../etc", { jsonrpc: "2.0", id: 1, method: "ping" }), 400, -32600);
  });

  it("unknown session → 404, never a silent 202", async () => {
    const body = await expectError(await post(`/message?sessionId=${"a".repeat(32)}`, { jsonrpc: "2.0", id: 1, method: "ping" }), 404, -32600);
    expect(body.error.message).toMatch(/Unknown session/);
  });

  it("invalid JSON → 400 with -32700", async () => {
    await expectError(await session.post('{"jsonrpc":"2.0","id":1,'), 400, -32700);
  });

  it("empty body → 400 with -32700", async () => {
    await expectError(await session.post(""), 400, -32700);
  });

  it("invalid JSON-RPC → 400 with -32600, echoing the id", async () => {
    const body = await expectError(await session.post({ jsonrpc: "1.0", id: 5, method: "ping" }), 400, -32600);
    expect(body.id).toBe(5);
    await expectError(await session.post({ jsonrpc: "2.0", id: null, method: "ping" }), 400, -32600);
    await expectError(await session.post({ jsonrpc: "2.0", id: 1, method: "ping", params: [1, 2] }), 400, -32600);
    await expectError(await session.post([]), 400, -32600);
    await expectError(await session.post(42), 400, -32600);
  });

  it("wrong content type → 415", async () => {
    await expectError(await session.post('{"jsonrpc":"2.0","id":1,"method":"ping"}', { headers: { "content-type": "text/plain" } }), 415, -32600);
    await expectError(await session.post("{}", { headers: { "content-type": "application/json; charset=latin1" } }), 415, -32600);
  });

  it("a body over the limit → 413, by declared length and by streamed length", async () => {
    const big = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "x".repeat(FOUR_MIB) } });
    await expectError(await session.post(big), 413, -32600);

    // No Content-Length: the limit is enforced while the body streams in.
    const chunk = new Uint8Array(256 * 1024).fill(0x20);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent > FOUR_MIB + chunk.byteLength) return controller.close();
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const response = await SELF.fetch(new URL(session.endpoint, BASE), { method: "POST", headers: { "content-type": "application/json" }, body: stream });
    await expectError(response, 413, -32600);
  });

  it("absurd nesting → 400", async () => {
    const deep = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":${"[".repeat(100_000)}${"]".repeat(100_000)}}}`;
    const body = await expectError(await session.post(deep), 400, -32600);
    expect(body.error.message).toMatch(/nesting depth/);
  });

  it("invalid UTF-8 → 400 with -32700", async () => {
    const bytes = new Uint8Array([...new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"method":"'), 0xff, 0xfe, ...new TextEncoder().encode('"}')]);
    await expectError(await session.post(bytes), 400, -32700);
  });

  it("a batch over the limit → 400", async () => {
    const batch = Array.from({ length: 101 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "ping" }));
    await expectError(await session.post(batch), 400, -32600);
  });

  it("unknown method → -32601 on the stream; unknown tool → -32602", async () => {
    expect((await session.post({ jsonrpc: "2.0", id: "m", method: "bogus/method" })).status).toBe(202);
    expect(await session.reader.nextMessage()).toEqual({ jsonrpc: "2.0", id: "m", error: { code: -32601, message: "Method not found: bogus/method" } });
    await session.post({ jsonrpc: "2.0", id: "t", method: "tools/call", params: { name: "nope", arguments: {} } });
    expect((await session.reader.nextMessage()).error).toEqual({ code: -32602, message: "Unknown tool: nope" });
  });

  it("invalid tool arguments → a tool error result naming the problem", async () => {
    await session.post({ jsonrpc: "2.0", id: "a", method: "tools/call", params: { name: "getScore", arguments: { name: 5, extra: true } } });
    const reply = await session.reader.nextMessage();
    expect(reply.result.isError).toBe(true);
    expect(reply.result.content[0].text).toMatch(/Invalid arguments for tool getScore/);
    expect(reply.result.content[0].text).toMatch(/name/);
  });
});

describe("hostile input elsewhere", () => {
  it("wrong methods → 405 with Allow", async () => {
    const get = await SELF.fetch(`${BASE}/message?sessionId=${session.sessionId}`);
    await expectError(get, 405, -32600);
    expect(get.headers.get("allow")).toBe("POST");
    const put = await SELF.fetch(`${BASE}/sse`, { method: "PUT" });
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")).toBe("GET");
  });

  it("unknown paths → 404 JSON", async () => {
    await expectError(await SELF.fetch(`${BASE}/wp-admin.php`), 404, -32600);
  });

  it("reopening with a malformed or unknown session id → 400 / 404", async () => {
    expect((await SELF.fetch(`${BASE}/sse?sessionId=xyz`)).status).toBe(400);
    expect((await SELF.fetch(`${BASE}/sse?sessionId=${"b".repeat(32)}`)).status).toBe(404);
  });

  it("no generated garbage produces a 5xx", async () => {
    // A seeded generator, so a failure reproduces.
    let seed = 0x2f6b;
    const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!;
    const values = [null, true, 0, -1, 1e308, "", "x", [], {}, [[]], { jsonrpc: "2.0" }, { method: "ping" }];
    const statuses = new Set<number>();
    for (let i = 0; i < 200; i++) {
      let body: string | Uint8Array;
      const kind = i % 4;
      if (kind === 0) body = crypto.getRandomValues(new Uint8Array(1 + Math.floor(rand() * 64)));
      else if (kind === 1) body = JSON.stringify(pick(values));
      else if (kind === 2) body = JSON.stringify({ jsonrpc: "2.0", id: pick([1, "a", null, {}, []]), method: pick(["ping", "", 5, "tools/call", "initialize"]), params: pick(values) });
      else body = JSON.stringify({ jsonrpc: "2.0", id: i, method: "tools/call", params: { name: pick(["getScore", "toUpperCase", "notepad", 7]), arguments: pick(values) } });
      const response = await session.post(body);
      statuses.add(response.status);
      expect(response.status, `body #${i}`).toBeLessThan(500);
      await response.arrayBuffer();
    }
    expect([...statuses].sort()).toEqual(expect.arrayContaining([202, 400]));
  });
});

describe("hostile input on the 2026-07-28 path of POST /mcp", () => {
  it("no generated garbage in _meta, headers, inputResponses or requestState produces a 5xx", { timeout: 30_000 }, async () => {
    let seed = 0x5eed;
    const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!;
    const values = [undefined, null, true, 0, -1, 1e308, "", "x", "2026-07-28", [], {}, [[]], { action: "accept" }, { a: { b: {} } }];
    const methods = ["server/discover", "tools/list", "tools/call", "prompts/get", "resources/read", "subscriptions/listen", "completion/complete", "ping", "", "x/y"];
    const statuses = new Set<number>();
    for (let i = 0; i < 200; i++) {
      const method = pick(methods);
      const meta = pick([
        { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": pick(values) },
        { "io.modelcontextprotocol/protocolVersion": pick(values), "io.modelcontextprotocol/clientCapabilities": {} },
        { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}, "io.modelcontextprotocol/logLevel": pick(values), progressToken: pick(values) },
        pick(values),
      ]);
      const params = {
        _meta: meta,
        name: pick(["getScore", "wait", "vault", "unlock", 7, undefined]),
        uri: pick(["test://counter", "nope", 5, undefined]),
        arguments: pick(values),
        inputResponses: pick(values),
        requestState: pick([...values, "a.b", "x".repeat(10_000), "..", "AAAA.BBBB"]),
        notifications: pick(values),
      };
      const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": pick(["2026-07-28", "v9", " 2026-07-28 "]) };
      if (rand() < 0.8) headers["mcp-method"] = pick([method, "tools/list", "=?base64?!!?=", "=?base64?dG9vbHMvY2FsbA==?="]);
      if (rand() < 0.6) headers["mcp-name"] = pick(["getScore", "wait", "=?base64?Z2V0U2NvcmU=?=", "=?base64?/w==?=", "test://counter"]);
      const response = await SELF.fetch(`${BASE}/mcp`, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id: i, method, params }) });
      statuses.add(response.status);
      expect(response.status, `request #${i}: ${method} ${JSON.stringify(params).slice(0, 200)}`).toBeLessThan(500);
      if (response.headers.get("content-type")?.includes("text/event-stream")) await response.body!.cancel();
      else await response.arrayBuffer();
    }
    expect([...statuses].sort()).toEqual(expect.arrayContaining([200, 400, 404]));
  });
});

describe("Origin validation and CORS (DNS rebinding)", () => {
  it("refuses a foreign Origin with 403 and a JSON-RPC error, on every endpoint", async () => {
    const origin = { origin: "http://evil.test" };
    await expectError(await SELF.fetch(`${BASE}/sse`, { headers: origin }), 403, -32600);
    await expectError(await post(session.endpoint, { jsonrpc: "2.0", id: 1, method: "ping" }, { headers: { ...origin, "content-type": "application/json" } }), 403, -32600);
  });

  it("serves a request without Origin, and answers an allowed origin with CORS headers", async () => {
    const local = "http://localhost:6274";
    const preflight = await SELF.fetch(`http://127.0.0.1:8787/message`, { method: "OPTIONS", headers: { origin: local, "access-control-request-method": "POST" } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe(local);
    const health = await SELF.fetch(`http://127.0.0.1:8787/health`, { headers: { origin: local } });
    expect(health.status).toBe(200);
    expect(health.headers.get("access-control-allow-origin")).toBe(local);
    // A loopback origin is a local-development allowance, not granted to a deployed host name.
    expect((await SELF.fetch(`${BASE}/health`, { headers: { origin: local } })).status).toBe(403);
  });
});

/**
 * Hostile input over real HTTP, on whichever runtime `startServer` starts (workerd; Deno with
 * RUNTIME=deno — the contract suite runs this file against both): every malformed request gets
 * the status and JSON-RPC error the errors table of `docs/protocol.md` documents, on the legacy
 * transport (`GET /sse` + `POST /message`), on 2025-11-25 sessions of `/mcp` and on its
 * 2026-07-28 stateless path; no error message carries a stack trace; and no generated garbage
 * yields a 5xx.
 *
 * The workerd-only twin (`test/runtime/hostileInput.test.ts`) reaches the Worker in-process; this
 * one goes through each runtime's HTTP server, so it also covers what only a socket shows:
 * chunked bodies without a length, bytes that are not UTF-8, a request with no Accept at all.
 *
 * Longer than most files because it is one table: the errors table of `docs/protocol.md`, row by
 * row, over three paths; split, the rows would be harder to check against it.
 */
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../../scripts/startServer.mjs";
import { SseReader } from "../support/SseReader.ts";
import { BOTH, call, initialize, openLegacySession, openStreamableSession, postJson, type LegacySession, type StreamableSession } from "../support/httpSession.ts";

/** Small limits, so the limits are reached quickly (strings, as wrangler `[vars]` are). */
const VARS = {
  LOG_LEVEL: "error",
  MAX_QUEUE_MESSAGES: "20",
  MAX_QUEUE_BYTES: "65536",
  HANDLER_TIMEOUT_MS: "2000",
  MAX_CONCURRENT_HANDLERS: "4",
  KEEPALIVE_INTERVAL_MS: "250",
  MAX_BODY_BYTES: "65536",
};
const MAX_BODY_BYTES = 65_536;
const MODERN = "2026-07-28";
const META = { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {} };

/** `runtime` is returned on both runtimes ("workerd" | "deno"), though startServer's JSDoc return type leaves it out. */
let server: Awaited<ReturnType<typeof startServer>> & { runtime: string };
let legacy: LegacySession;
let session: StreamableSession;
beforeAll(async () => {
  server = (await startServer({ entry: "test/runtime/testWorker.ts", vars: VARS })) as typeof server;
  legacy = await openLegacySession(server.url);
  session = await openStreamableSession(server.url);
});
afterAll(async () => {
  await legacy?.reader.cancel().catch(() => {});
  await server?.dispose();
});

const mcp = () => `${server.url}/mcp`;

/** Asserts a JSON-RPC error response; returns its body. */
async function expectError(response: Response, status: number, code: number, id: string | number | null = null) {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  expect(response.headers.get("content-type")).toContain("application/json");
  const body = JSON.parse(text);
  expect(body).toMatchObject({ jsonrpc: "2.0", id, error: { code } });
  expect(typeof body.error.message).toBe("string");
  expect(body.error.message, "no stack trace on the wire").not.toMatch(/\n\s+at |\.[cm]?[jt]s:\d+/);
  return body;
}

/** One raw HTTP/1.1 exchange with exactly these headers: fetch always adds `Accept: *\/*`. */
function raw(method: string, path: string, headers: Record<string, string>, body?: string) {
  return new Promise<Response>((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port: server.port, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const out = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (typeof value === "string") out.set(name, value);
        resolve(new Response(Buffer.concat(chunks), { status: res.statusCode!, headers: out }));
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * A request that declares `declared` bytes but sends only a few and never finishes: answered
 * before the body arrives only if the declared length alone is checked against the limit.
 */
function declaredOnly(url: string, headers: Record<string, string>, declared: number) {
  return new Promise<Response>((resolve, reject) => {
    const req = httpRequest(url, { method: "POST", headers: { ...headers, "content-length": String(declared) }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        req.destroy();
        resolve(new Response(Buffer.concat(chunks), { status: res.statusCode!, headers: { "content-type": String(res.headers["content-type"]) } }));
      });
    });
    req.on("error", reject);
    req.write('{"jsonrpc":"2.0"');
  });
}

/** A body with no Content-Length (chunked), `total` bytes of spaces: the limit must be enforced while reading. */
function streamedBody(total: number): ReadableStream<Uint8Array> {
  const chunk = new Uint8Array(16 * 1024).fill(0x20);
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= total) return controller.close();
      sent += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
}

const utf8 = (text: string) => new TextEncoder().encode(text);
/** `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":[[…]]}}` nested `depth` deep in all. */
const nested = (depth: number) => `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":${"[".repeat(depth - 2)}${"]".repeat(depth - 2)}}}`;

/**
 * The three ways in, each with the headers a well-behaved client would send: the checks on the
 * body run before the session or era is looked at, so every one must answer alike.
 */
const targets: { name: string; url: () => string; headers: () => Record<string, string> }[] = [
  { name: "POST /message (legacy session)", url: () => legacy.endpoint, headers: () => ({ "content-type": "application/json" }) },
  { name: "POST /mcp (2025-11-25 session)", url: mcp, headers: () => session.headers },
  {
    name: "POST /mcp (2026-07-28, stateless)",
    url: mcp,
    headers: () => ({ "content-type": "application/json", accept: BOTH, "mcp-protocol-version": MODERN, "mcp-method": "tools/list" }),
  },
];

for (const target of targets) {
  describe(`malformed bodies on ${target.name}`, () => {
    const send = (body: unknown, headers: Record<string, string> = {}) => postJson(target.url(), body, { headers: { ...target.headers(), ...headers } });

    it("invalid JSON or an empty body → 400 with -32700", async () => {
      await expectError(await send('{"jsonrpc":"2.0","id":1,'), 400, -32700);
      await expectError(await send(""), 400, -32700);
    });

    it("not a JSON-RPC 2.0 message → 400 with -32600, echoing the id when readable", async () => {
      await expectError(await send({ jsonrpc: "1.0", id: 5, method: "tools/list" }), 400, -32600, 5);
      await expectError(await send({ jsonrpc: "2.0", id: "p", method: "tools/list", params: [1, 2] }), 400, -32600, "p");
      await expectError(await send({ jsonrpc: "2.0", id: 7, method: "" }), 400, -32600, 7);
      await expectError(await send({ jsonrpc: "2.0", id: null, method: "tools/list" }), 400, -32600);
      await expectError(await send({ jsonrpc: "2.0", id: {}, method: "tools/list" }), 400, -32600);
      await expectError(await send({ jsonrpc: "2.0" }), 400, -32600);
      await expectError(await send([]), 400, -32600);
      await expectError(await send(42), 400, -32600);
      await expectError(await send('"a string"'), 400, -32600);
      await expectError(await send([{ jsonrpc: "2.0", id: 1, method: "tools/list" }, { jsonrpc: "1.0", id: 9, method: "tools/list" }]), 400, -32600, 9);
    });

    it("a content type other than UTF-8 JSON → 415", async () => {
      await expectError(await send('{"jsonrpc":"2.0","id":1,"method":"tools/list"}', { "content-type": "text/plain" }), 415, -32600);
      await expectError(await send("{}", { "content-type": "application/json; charset=latin1" }), 415, -32600);
      await expectError(await send("{}", { "content-type": "application/jsonx" }), 415, -32600);
      // Bytes without a content type: fetch sends none.
      const { "content-type": _, ...withoutType } = target.headers();
      await expectError(await fetch(target.url(), { method: "POST", headers: withoutType, body: utf8('{"jsonrpc":"2.0","id":1,"method":"tools/list"}') }), 415, -32600);
    });

    it("a body over MAX_BODY_BYTES → 413, by declared length and when streamed without one", async () => {
      const big = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { pad: "x".repeat(MAX_BODY_BYTES) } });
      await expectError(await send(big), 413, -32600);
      await expectError(await declaredOnly(target.url(), target.headers(), 16 * MAX_BODY_BYTES), 413, -32600);
      const streamed = await fetch(target.url(), {
        method: "POST",
        headers: target.headers(),
        body: streamedBody(MAX_BODY_BYTES + 64 * 1024),
        duplex: "half", // Node's fetch needs this for a stream body; it then sends it chunked, without Content-Length
      } as RequestInit);
      await expectError(streamed, 413, -32600);
      // One byte under the limit is read (and then refused for what it is, not for its size).
      const spaces = " ".repeat(MAX_BODY_BYTES - 1);
      await expectError(await send(spaces), 400, -32700);
    });

    it("JSON nested deeper than 64 → 400 with -32600, without parsing it", async () => {
      const body = await expectError(await send(nested(20_000)), 400, -32600);
      expect(body.error.message).toMatch(/nesting depth 20000 exceeds the limit of 64/);
      await expectError(await send(nested(65)), 400, -32600);
    });

    it("invalid UTF-8 → 400 with -32700", async () => {
      const bytes = new Uint8Array([...utf8('{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"a":"'), 0xff, 0xfe, ...utf8('"}}')]);
      await expectError(await send(bytes), 400, -32700);
      await expectError(await send(new Uint8Array([0xc3, 0x28])), 400, -32700); // a truncated two-byte sequence
    });

    it("a batch over 100 messages → 400 with -32600", async () => {
      const batch = Array.from({ length: 101 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "tools/list" }));
      const body = await expectError(await send(batch), 400, -32600);
      expect(body.error.message).toMatch(/batch of 101 messages exceeds the limit of 100/);
    });
  });
}

describe("the legacy transport (GET /sse, POST /message)", () => {
  const ping = { jsonrpc: "2.0", id: 1, method: "ping" };

  it("a missing or malformed sessionId → 400; an unknown one → 404, never a silent 202", async () => {
    await expectError(await postJson(`${server.url}/message`, ping), 400, -32600);
    await expectError(await postJson(`${server.url}/message?sessionId=`, ping), 400, -32600);
    for (const bad of ["../../etc", "A".repeat(32), "a".repeat(31), "a".repeat(33), `${"a".repeat(31)}g`]) {
      await expectError(await postJson(`${server.url}/message?sessionId=${encodeURIComponent(bad)}`, ping), 400, -32600);
    }
    const body = await expectError(await postJson(`${server.url}/message?sessionId=${"a".repeat(32)}`, ping), 404, -32600);
    expect(body.error.message).toMatch(/Unknown session/);
  });

  it("reopening a stream with a malformed or unknown session id → 400 / 404; a still-open one is replaced, the old stream ending", async () => {
    await expectError(await fetch(`${server.url}/sse?sessionId=xyz`, { headers: { accept: "text/event-stream" } }), 400, -32600);
    await expectError(await fetch(`${server.url}/sse?sessionId=${"b".repeat(32)}`, { headers: { accept: "text/event-stream" } }), 404, -32600);
    const own = await openLegacySession(server.url);
    const reopened = await fetch(`${server.url}/sse?sessionId=${own.sessionId}`, { headers: { accept: "text/event-stream" } });
    expect(reopened.status).toBe(200);
    const reader = new SseReader(reopened.body!);
    expect((await reader.next()).event).toBe("endpoint");
    await expect(own.reader.next(5_000)).rejects.toThrow("SSE stream ended");
    await reader.cancel();
  });

  it("a Streamable HTTP session's id on /message, and a legacy session's on /mcp → 400", async () => {
    await expectError(await postJson(`${server.url}/message?sessionId=${session.sessionId}`, ping), 400, -32600);
    await expectError(await postJson(mcp(), ping, { headers: { ...session.headers, "mcp-session-id": legacy.sessionId } }), 400, -32600);
  });

  it("answers an unknown method -32601 and an unknown tool -32602 on the stream; bad arguments are a tool error", async () => {
    expect((await legacy.post({ jsonrpc: "2.0", id: "m", method: "bogus/method" })).status).toBe(202);
    expect(await legacy.reader.nextMessage()).toEqual({ jsonrpc: "2.0", id: "m", error: { code: -32601, message: "Method not found: bogus/method" } });
    expect((await legacy.post(call("t", "nope", {}))).status).toBe(202);
    expect(await legacy.reader.nextMessage()).toMatchObject({ id: "t", error: { code: -32602, message: "Unknown tool: nope" } });
    expect((await legacy.post(call("a", "getScore", { name: 5, extra: true }))).status).toBe(202);
    const reply = await legacy.reader.nextMessage();
    expect(reply).toMatchObject({ id: "a", result: { isError: true } });
    expect(reply.result.content[0].text).toMatch(/Invalid arguments for tool getScore/);
    expect(reply.result.content[0].text).not.toMatch(/\n\s+at /);
  });

  it("takes JSON nested exactly 64 deep (the limit is inclusive)", async () => {
    expect((await legacy.post(nested(64))).status).toBe(202);
    expect(await legacy.reader.nextMessage()).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
  });

  it("wrong HTTP methods → 405 with Allow", async () => {
    const get = await fetch(legacy.endpoint);
    expect(get.headers.get("allow")).toBe("POST");
    await expectError(get, 405, -32600);
    const del = await fetch(legacy.endpoint, { method: "DELETE" });
    expect(del.headers.get("allow")).toBe("POST");
    await expectError(del, 405, -32600);
    const put = await fetch(`${server.url}/sse`, { method: "PUT", body: "x" });
    expect(put.headers.get("allow")).toBe("GET");
    await expectError(put, 405, -32600);
  });
});

describe("2025-11-25 sessions on /mcp", () => {
  const ping = { jsonrpc: "2.0", id: 1, method: "ping" };

  it("without Accept: application/json and text/event-stream (GET: text/event-stream) → 406", async () => {
    const body = JSON.stringify(ping);
    const { accept: _, ...noAccept } = session.headers;
    await expectError(await raw("POST", "/mcp", noAccept, body), 406, -32600); // no Accept header at all
    await expectError(await postJson(mcp(), ping, { headers: { ...session.headers, accept: "application/json" } }), 406, -32600);
    await expectError(await postJson(mcp(), ping, { headers: { ...session.headers, accept: "text/event-stream" } }), 406, -32600);
    await expectError(await postJson(mcp(), initialize(0, "2025-11-25"), { headers: { "content-type": "application/json", accept: "text/html" } }), 406, -32600);
    await expectError(await raw("GET", "/mcp", { "mcp-session-id": session.sessionId, "mcp-protocol-version": "2025-11-25" }), 406, -32600);
    await expectError(await fetch(mcp(), { headers: { ...session.headers, accept: "application/json" } }), 406, -32600);
  });

  it("an empty Mcp-Session-Id → 400; an unknown or malformed one → 404 (none at all is served where it can be: sessionless.test.ts)", async () => {
    await expectError(await postJson(mcp(), ping, { headers: { ...session.headers, "mcp-session-id": "" } }), 400, -32600);
    await expectError(await postJson(mcp(), ping, { headers: { ...session.headers, "mcp-session-id": "f".repeat(32) } }), 404, -32600);
    await expectError(await postJson(mcp(), ping, { headers: { ...session.headers, "mcp-session-id": "not-a-session" } }), 404, -32600);
    await expectError(await fetch(mcp(), { headers: { ...session.headers, accept: "text/event-stream", "mcp-session-id": "f".repeat(32) } }), 404, -32600);
    await expectError(await fetch(mcp(), { method: "DELETE", headers: { ...session.headers, "mcp-session-id": "f".repeat(32) } }), 404, -32600);
  });

  it("batches past 2025-03-26, initialize with a session id or in a batch → 400", async () => {
    await expectError(await session.post([ping, { ...ping, id: 2 }]), 400, -32600);
    // A batch is a 2025 construct whatever its version header says, so it takes the session path: an unknown version there is -32600.
    await expectError(await session.post([ping], { headers: { "mcp-protocol-version": "1999-01-01" } }), 400, -32600);
    await expectError(await session.post(initialize(0, "2025-11-25")), 400, -32600);
    const { "mcp-session-id": _, ...noSession } = session.headers;
    await expectError(await postJson(mcp(), [initialize(0, "2025-03-26"), ping], { headers: { ...noSession, "mcp-protocol-version": "2025-03-26" } }), 400, -32600);
  });

  it("an unsupported MCP-Protocol-Version → 400, on GET and DELETE as on POST", async () => {
    const own = await openStreamableSession(server.url);
    const unsupported = { ...own.headers, "mcp-protocol-version": "1999-01-01" };
    // A POSTed single message under a version that is no 2024/2025 revision is judged a 2026-07-28
    // request (docs/protocol.md, "How a request on `/mcp` is classified"), which must carry _meta: -32602.
    await expectError(await postJson(mcp(), { jsonrpc: "2.0", id: 1, method: "ping" }, { headers: unsupported }), 400, -32602, 1);
    // A GET or DELETE has only the header; docs/protocol.md's errors: an unsupported one is 400, -32600
    // (and the 2025-11-25 transports spec: "MUST respond with 400 Bad Request").
    await expectError(await fetch(mcp(), { headers: { ...unsupported, accept: "text/event-stream" } }), 400, -32600);
    await expectError(await fetch(mcp(), { method: "DELETE", headers: unsupported }), 400, -32600);
  });

  it("answers an unknown method with -32601 and an unknown tool with -32602", async () => {
    const method = await session.post({ jsonrpc: "2.0", id: "m", method: "bogus/method" });
    expect(method.status).toBe(200);
    expect(await method.json()).toEqual({ jsonrpc: "2.0", id: "m", error: { code: -32601, message: "Method not found: bogus/method" } });
    const tool = await session.post(call("t", "nope", {}));
    expect(((await tool.json()) as any).error).toEqual({ code: -32602, message: "Unknown tool: nope" });
  });

  it("a second standalone stream replaces the first; a Last-Event-ID malformed → 400, of another session → an empty stream that ends (not 404)", async () => {
    const first = await fetch(mcp(), { headers: { ...session.headers, accept: "text/event-stream" } });
    expect(first.status).toBe(200);
    const second = await fetch(mcp(), { headers: { ...session.headers, accept: "text/event-stream" } });
    expect(second.status).toBe(200);
    expect(await first.text()).toMatch(/^id: [0-9a-f]{12}\.0\n/); // the priming event, then the end
    await second.body!.cancel();

    const other = await openStreamableSession(server.url);
    const streamed = await other.post(call(1, "wait", { ms: 1 }, { progressToken: "p" }));
    expect(streamed.headers.get("content-type")).toContain("text/event-stream");
    const text = await streamed.text();
    const eventId = /^id: (\S+)$/m.exec(text)![1]!;
    const foreign = await fetch(mcp(), { headers: { ...session.headers, accept: "text/event-stream", "last-event-id": eventId } });
    expect(foreign.status).toBe(200);
    expect(await foreign.text()).toBe("");
    await expectError(await fetch(mcp(), { headers: { ...session.headers, accept: "text/event-stream", "last-event-id": "nonsense" } }), 400, -32600);
  });

  it("a deleted session: 204, then 404 for every use of its id", async () => {
    const doomed = await openStreamableSession(server.url);
    expect((await fetch(mcp(), { method: "DELETE", headers: doomed.headers })).status).toBe(204);
    await expectError(await doomed.post(ping), 404, -32600);
    await expectError(await fetch(mcp(), { headers: { ...doomed.headers, accept: "text/event-stream" } }), 404, -32600);
    await expectError(await fetch(mcp(), { method: "DELETE", headers: doomed.headers }), 404, -32600);
  });

  it("wrong HTTP methods → 405 with Allow", async () => {
    for (const method of ["PUT", "PATCH"]) {
      const response = await fetch(mcp(), { method, headers: session.headers, body: "{}" });
      expect(response.headers.get("allow"), method).toBe("GET, POST, DELETE");
      await expectError(response, 405, -32600);
    }
  });
});

describe("the 2026-07-28 path of /mcp", () => {
  let nextId = 100;
  const NO_META = Symbol("no _meta");
  /** A 2026-07-28 request: well-formed, unless `headers` replaces or removes (undefined) a header, or `meta` replaces `_meta`. */
  function modern(method: string, params: Record<string, unknown>, headers: Record<string, string | undefined> = {}, meta: unknown = META) {
    const id = nextId++;
    const all: Record<string, string | undefined> = { "content-type": "application/json", accept: BOTH, "mcp-protocol-version": MODERN, "mcp-method": method, ...headers };
    const sent = Object.fromEntries(Object.entries(all).filter((entry): entry is [string, string] => entry[1] !== undefined));
    const body = { jsonrpc: "2.0", id, method, params: meta === NO_META ? params : { ...params, _meta: meta } };
    return { id, response: postJson(mcp(), body, { headers: sent }) };
  }
  const getScore = { name: "getScore", arguments: { name: "lisi" } };

  it("serves a well-formed request (the baseline the refusals below differ from)", async () => {
    const { id, response } = modern("tools/call", getScore, { "mcp-name": "getScore" });
    const ok = await response;
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ id, result: { content: [{ text: '"80.0"' }], resultType: "complete" } });
    // The base64 form of a header value is decoded before it is compared.
    const encoded = modern("tools/call", getScore, { "mcp-name": `=?base64?${btoa("getScore")}?=` });
    expect((await encoded.response).status).toBe(200);
  });

  it("a missing, malformed or disagreeing MCP-Protocol-Version / Mcp-Method / Mcp-Name → 400 with -32020", async () => {
    const cases = [
      modern("tools/list", {}, { "mcp-protocol-version": undefined }),
      modern("tools/list", {}, { "mcp-method": undefined }),
      modern("tools/list", {}, { "mcp-method": "tools/call" }),
      modern("tools/list", {}, { "mcp-method": "=?base64?!!?=" }),
      modern("tools/call", getScore, {}),
      modern("tools/call", getScore, { "mcp-name": "toUpperCase" }),
      modern("tools/call", getScore, { "mcp-name": "=?base64?/w==?=" }), // base64 of a byte that is not UTF-8
      modern("tools/list", {}, {}, { ...META, "io.modelcontextprotocol/protocolVersion": "2099-01-01" }), // header and _meta disagree
    ];
    for (const { id, response } of cases) await expectError(await response, 400, -32020, id);
  });

  it("a header value that is not ASCII is malformed → 400 with -32020; the base64 form carries it", async () => {
    const name = "g\u00e9tScore"; // no such tool: a name that passed the header check would be -32602
    const body = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: {}, _meta: META } });
    const headers = { "content-type": "application/json", accept: BOTH, "mcp-protocol-version": MODERN, "mcp-method": "tools/call" };
    // Node sends U+00E9 as the single byte 0xE9. Runtimes turn such bytes into different strings:
    // workerd reads them as Latin-1 (as Fetch's Headers specify), so 0xE9 equals the body's "é";
    // Deno reads them otherwise. Clients must send non-ASCII values in the base64 form, so a raw
    // one is malformed, whichever way the runtime happens to read it.
    await expectError(await raw("POST", "/mcp", { ...headers, "mcp-name": name }, body(1)), 400, -32020, 1);
    await expectError(await raw("POST", "/mcp", { ...headers, "mcp-name": Buffer.from(name).toString("latin1") }, body(2)), 400, -32020, 2); // raw UTF-8 bytes
    const encoded = `=?base64?${Buffer.from(name).toString("base64")}?=`;
    const unknown = await expectError(await raw("POST", "/mcp", { ...headers, "mcp-name": encoded }, body(3)), 400, -32602, 3);
    expect(unknown.error.message).toBe(`Unknown tool: ${name}`);
  });

  it("_meta without protocolVersion or clientCapabilities → 400 with -32602", async () => {
    const cases = [
      modern("tools/list", {}, {}, NO_META),
      modern("tools/list", {}, {}, "not an object"),
      modern("tools/list", {}, {}, { "io.modelcontextprotocol/clientCapabilities": {} }),
      modern("tools/list", {}, {}, { "io.modelcontextprotocol/protocolVersion": MODERN }),
      modern("tools/list", {}, {}, { ...META, "io.modelcontextprotocol/clientCapabilities": [] }),
    ];
    for (const { id, response } of cases) await expectError(await response, 400, -32602, id);
  });

  it("a version not served → 400 with -32022, naming what is", async () => {
    const { id, response } = modern("tools/list", {}, { "mcp-protocol-version": "2099-01-01" }, { ...META, "io.modelcontextprotocol/protocolVersion": "2099-01-01" });
    const body = await expectError(await response, 400, -32022, id);
    expect(body.error.data).toEqual({ supported: [MODERN], requested: "2099-01-01" });
  });

  it("an unknown method, or one this revision dropped → 404 with -32601", async () => {
    for (const method of ["bogus/method", "initialize", "ping", "logging/setLevel", "resources/subscribe"]) {
      const { id, response } = modern(method, {});
      await expectError(await response, 404, -32601, id);
    }
  });

  it("subscriptions/listen with malformed params → 400 with -32602, echoing the id like every other method", async () => {
    const cases = [
      modern("subscriptions/listen", { notifications: 5 }),
      modern("subscriptions/listen", { notifications: { resourceSubscriptions: "test://counter" } }),
      modern("subscriptions/listen", { notifications: { resourceSubscriptions: Array.from({ length: 101 }, (_, i) => `test://r${i}`) } }),
    ];
    for (const { id, response } of cases) await expectError(await response, 400, -32602, id);
  });

  it("GET and DELETE → 405 with Allow: POST", async () => {
    for (const method of ["GET", "DELETE"]) {
      const response = await fetch(mcp(), { method, headers: { accept: "text/event-stream", "mcp-protocol-version": MODERN } });
      expect(response.headers.get("allow"), method).toBe("POST");
      await expectError(response, 405, -32600);
    }
  });
});

describe("every endpoint", () => {
  it("unknown paths → 404 with a JSON-RPC error", async () => {
    await expectError(await fetch(`${server.url}/wp-admin.php`), 404, -32600);
    await expectError(await fetch(`${server.url}/mcp/extra`, { method: "POST", body: "{}" }), 404, -32600);
    await expectError(await fetch(`${server.url}/..%2F..%2Fetc%2Fpasswd`), 404, -32600);
  });

  it("a wrong method on the GET-only endpoints (/, /health) → 405 with Allow, as on every route", async () => {
    for (const [method, path] of [["POST", "/health"], ["DELETE", "/health"], ["PUT", "/"]] as const) {
      const response = await fetch(`${server.url}${path}`, { method, ...(method === "DELETE" ? {} : { body: "{}" }) });
      expect(response.headers.get("allow"), `${method} ${path}`).toBe("GET");
      await expectError(response, 405, -32600);
    }
  });

  it("a header block past the HTTP server's own limit is refused before any route runs, with a 4xx", async () => {
    const response = await raw("GET", "/health", { "x-pad": "a".repeat(256 * 1024) });
    // A platform limit, not ours: the runtime's HTTP server answers before the Worker or handler
    // sees the request, so there is no JSON-RPC body. workerd allows ≈ 128 KiB of headers and
    // answers 431; Deno's server (hyper) allows ≈ 64 KiB and answers a bare 400.
    expect(response.status).toBe(server.runtime === "deno" ? 400 : 431);
  });

  it("a foreign Origin → 403 with a JSON-RPC error (DNS rebinding)", async () => {
    const origin = { origin: "http://evil.test" };
    await expectError(await fetch(`${server.url}/sse`, { headers: { ...origin, accept: "text/event-stream" } }), 403, -32600);
    await expectError(await postJson(legacy.endpoint, { jsonrpc: "2.0", id: 1, method: "ping" }, { headers: { ...origin, "content-type": "application/json" } }), 403, -32600);
    await expectError(await postJson(mcp(), { jsonrpc: "2.0", id: 1, method: "ping" }, { headers: { ...session.headers, ...origin } }), 403, -32600);
    await expectError(await postJson(mcp(), initialize(0, "2025-11-25"), { headers: { "content-type": "application/json", accept: BOTH, ...origin } }), 403, -32600);
    await expectError(
      await postJson(mcp(), { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: META } }, { headers: { "content-type": "application/json", accept: BOTH, "mcp-protocol-version": MODERN, "mcp-method": "tools/list", ...origin } }),
      403,
      -32600,
    );
    await expectError(await fetch(`${server.url}/health`, { headers: origin }), 403, -32600);
    // A preflight is answered before any route, but grants nothing: no CORS headers, so the browser refuses.
    const preflight = await fetch(mcp(), { method: "OPTIONS", headers: { ...origin, "access-control-request-method": "POST" } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("serves a loopback origin when reached on a loopback host, with CORS headers", async () => {
    const local = "http://localhost:6274";
    const preflight = await fetch(`${server.url}/message`, { method: "OPTIONS", headers: { origin: local, "access-control-request-method": "POST" } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe(local);
    const health = await fetch(`${server.url}/health`, { headers: { origin: local } });
    expect(health.status).toBe(200);
    expect(health.headers.get("access-control-allow-origin")).toBe(local);
  });
});

describe("generated garbage", () => {
  it("no generated request on any of the three paths produces a 5xx", { timeout: 60_000 }, async () => {
    const own = await openLegacySession(server.url);
    const stream = await openStreamableSession(server.url);
    // Replies to accepted legacy requests go to the stream: keep reading it so the queue never fills.
    const drained = (async () => {
      try {
        for (;;) await own.reader.next(60_000);
      } catch {
        // cancelled at the end
      }
    })();

    // A task that exists (tasks extension), so that garbage aimed at tasks/* can reach one.
    const TASKS_META = { ...META, "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } } };
    const created = await postJson(mcp(), { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "task_until_cancelled", arguments: { ms: 60_000 }, _meta: TASKS_META } }, {
      headers: { "content-type": "application/json", accept: BOTH, "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": "task_until_cancelled" },
    });
    const { taskId } = ((await created.json()) as { result: { taskId: string } }).result;
    expect(taskId).toMatch(/^[0-9a-f]{32}$/);

    // A seeded generator, so a failure reproduces.
    let seed = 0x6a55;
    const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    const maybe = <T>(p: number, value: T): T | undefined => (rand() < p ? value : undefined);
    const values = [undefined, null, true, 0, -1, 1e308, "", "x", MODERN, [], {}, [[]], { a: { b: {} } }, { jsonrpc: "2.0" }, { method: "ping" }];
    const methods = ["ping", "tools/list", "tools/call", "initialize", "notifications/initialized", "server/discover", "subscriptions/listen", "resources/read", "prompts/get", "tasks/get", "tasks/update", "tasks/cancel", "", "x/y", 5];
    const taskIds = [taskId, taskId, "0".repeat(32), "x", "f".repeat(5_000), 5, null, [taskId]];
    const metas = [
      META,
      TASKS_META,
      { ...META, "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": pick(values) } } },
      { ...META, "io.modelcontextprotocol/clientCapabilities": pick(values) },
      { "io.modelcontextprotocol/protocolVersion": pick(values), "io.modelcontextprotocol/clientCapabilities": {} },
      { ...META, "io.modelcontextprotocol/logLevel": pick(values), progressToken: pick(values) },
      undefined,
      "x",
    ];
    const message = () => {
      const method = pick(methods);
      const params = pick([
        pick(values),
        { name: pick(["getScore", "toUpperCase", "notepad", "whoami", "blob", "nope", 7]), arguments: pick(values), _meta: pick(metas) },
        { name: "getScore", arguments: { name: pick(["lisi", 5, "zhangsan"]) }, _meta: pick(metas), requestState: pick(["a.b", "..", "x".repeat(2_000), 5]) },
        { uri: pick(["test://counter", "nope", 5]), _meta: pick(metas) },
        { notifications: pick(values), _meta: pick(metas) },
        { notifications: { taskIds: pick([[taskId], taskIds, pick(values)]) }, _meta: pick(metas) },
        { taskId: pick(taskIds), inputResponses: pick([...values, { x: { action: "accept" } }]), _meta: pick(metas) },
        { name: pick(["task_steps", "task_until_cancelled", "task_consults"]), arguments: pick([...values, { steps: 1, ms: 1 }, { topic: "x" }]), _meta: pick(metas) },
      ]);
      return { jsonrpc: pick(["2.0", "2.0", "2.0", "1.0", 2]), id: pick([1, "a", 1.5, -1, null, {}, [], undefined]), method, params };
    };
    const body = (): string | Uint8Array => {
      switch (Math.floor(rand() * 6)) {
        case 0:
          return Uint8Array.from({ length: 1 + Math.floor(rand() * 64) }, () => Math.floor(rand() * 256));
        case 1:
          return JSON.stringify(pick(values)) ?? "";
        case 2:
          return JSON.stringify(Array.from({ length: 1 + Math.floor(rand() * 3) }, message));
        case 3:
          return JSON.stringify(message()).slice(0, rand() < 0.2 ? Math.floor(rand() * 40) : undefined);
        case 4:
          return nested(2 + Math.floor(rand() * 100));
        default:
          return JSON.stringify(message());
      }
    };
    const contentType = () => pick(["application/json", "application/json", "application/json; charset=utf-8", "text/plain", "application/json; charset=latin1", undefined]);

    const statuses = new Map<number, number>();
    for (let i = 0; i < 240; i++) {
      const path = i % 3;
      const headers: Record<string, string | undefined> = { "content-type": contentType() };
      let url: string;
      if (path === 0) {
        url = pick([own.endpoint, own.endpoint, `${server.url}/message?sessionId=${pick(["", "zz", "c".repeat(32)])}`]);
      } else {
        url = mcp();
        headers.accept = pick([BOTH, BOTH, "application/json", "text/event-stream", "*/*", ""]);
        headers["mcp-protocol-version"] = pick(path === 1 ? ["2025-11-25", "2025-11-25", "2025-03-26", "2024-11-05", "v9", undefined] : [MODERN, MODERN, " 2026-07-28 ", "v9"]);
        headers["mcp-session-id"] = path === 1 ? pick([stream.sessionId, stream.sessionId, "d".repeat(32), "", "xyz", undefined]) : maybe(0.2, stream.sessionId);
        headers["mcp-method"] = maybe(path === 2 ? 0.8 : 0.1, pick(["tools/call", "tools/list", "ping", "tasks/get", "tasks/update", "tasks/cancel", "=?base64?!!?=", "=?base64?dG9vbHMvY2FsbA==?="]));
        headers["mcp-name"] = maybe(0.5, pick(["getScore", "toUpperCase", "=?base64?Z2V0U2NvcmU=?=", "=?base64?/w==?=", "test://counter", taskId, "task_steps"]));
      }
      const sent = Object.fromEntries(Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== undefined));
      const payload = body();
      const response = await fetch(url, { method: "POST", headers: sent, body: payload });
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      const label = `request #${i} to ${url.replace(server.url, "")} ${JSON.stringify(sent)} ${typeof payload === "string" ? payload.slice(0, 200) : `bytes ${[...payload].join(",")}`}`;
      expect(response.status, label).toBeLessThan(500);
      if (response.headers.get("content-type")?.includes("text/event-stream")) await response.body!.cancel();
      else {
        const text = await response.text();
        expect(text, label).not.toMatch(/\n\s+at /);
      }
    }
    await own.reader.cancel();
    await drained;
    // The garbage reached past the guards too: some was served, some refused at each stage.
    expect([...statuses.keys()].sort(), JSON.stringify([...statuses])).toEqual(expect.arrayContaining([200, 202, 400, 404, 406, 415]));
  });
});

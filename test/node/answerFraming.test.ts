/**
 * How the Node server frames its answers on the wire, over raw HTTP/1.1 on `node:net` sockets
 * against the real server (`serveNode`, bundled as `startNodeServer` bundles it):
 * - a whole answer (a JSON reply, a 202, an error, one with CORS headers, `/health`) carries a
 *   `Content-Length` that is its body's length, no `Transfer-Encoding`, and the status line's
 *   standard reason phrase; several of them follow one another on one kept-alive connection;
 * - an answer that streams (a call that reports progress first) is an event stream whose first
 *   event arrives while the call still runs;
 * - a client that closes its connection while its call streams is noticed: its session logs the
 *   stream closed by the client (the call itself runs on, as 2025 sessions want).
 * The server logs nothing unexplained for any of it.
 */
import type { Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startNodeServer } from "../../scripts/startNodeServer.mjs";
import { openRaw, rawExchange, readAnswer, type RawAnswer } from "../support/rawExchange.ts";
import { jsonLines, unexplained } from "../support/serverLogs.ts";

/** How long a dropped stream may take to be noticed, on a busy machine. */
const ABORT_BOUND_MS = 10_000;
const PROBE_INTERVAL_MS = 100;
/** The one warning a server without REQUEST_STATE_SECRET logs, whatever it serves. */
const ORDINARY = ["config.request-state-secret"];

let server: Awaited<ReturnType<typeof startNodeServer>>;
beforeAll(async () => {
  server = await startNodeServer({ definition: "test/runtime/testServer.ts", vars: { LOG_LEVEL: "info" }, captureLogs: true });
});
afterAll(async () => {
  await server?.dispose();
});

const host = () => `127.0.0.1:${server.port}`;
const MODERN_META = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };

/** A POST of `message` to `path`, as raw bytes; `headers` added (names as written). */
function post(path: string, message: unknown, headers: Record<string, string> = {}, connection = "keep-alive"): string {
  const body = JSON.stringify(message);
  const fields = { Host: host(), "Content-Type": "application/json", Accept: "application/json, text/event-stream", "Content-Length": String(Buffer.byteLength(body)), Connection: connection, ...headers };
  return `POST ${path} HTTP/1.1\r\n${Object.entries(fields)
    .map(([name, value]) => `${name}: ${value}`)
    .join("\r\n")}\r\n\r\n${body}`;
}

/** The headers a 2026-07-28 `tools/call` of `name` carries. */
const modern = (name: string) => ({ "Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": name });

function statusLine(answer: RawAnswer): string {
  return answer.text.slice(0, answer.text.indexOf("\r\n"));
}

/** The body of a whole answer, checked against its framing: a Content-Length that is its length in bytes, and no Transfer-Encoding. */
function wholeBody(answer: RawAnswer): string {
  expect(answer.headers["transfer-encoding"], answer.text).toBeUndefined();
  expect(answer.headers["content-length"], answer.text).toMatch(/^\d+$/);
  const body = answer.text.slice(answer.text.indexOf("\r\n\r\n") + 4);
  expect(Buffer.byteLength(body, "latin1")).toBe(Number(answer.headers["content-length"]));
  return Buffer.from(body, "latin1").toString("utf8");
}

/** A 2025 session begun on `socket`: its id. */
async function beginSession(socket: Socket): Promise<string> {
  const init = await readAnswer(socket, post("/mcp", { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "framing", version: "1" } } }));
  expect(statusLine(init)).toBe("HTTP/1.1 200 OK");
  wholeBody(init);
  const session = init.headers["mcp-session-id"]!;
  expect(session).toBeTruthy();
  const initialized = await readAnswer(socket, post("/mcp", { jsonrpc: "2.0", method: "notifications/initialized" }, { "Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-11-25" }));
  expect(statusLine(initialized)).toBe("HTTP/1.1 202 Accepted");
  expect(wholeBody(initialized)).toBe("");
  return session;
}

/** What arrives on a connection of its own after `request` is written, read as it comes: `until(text)` resolves once the text so far passes `test`. */
async function streamed(request: string): Promise<{ socket: Socket; until(test: (text: string) => boolean): Promise<string> }> {
  const socket = await openRaw(server.url);
  let text = "";
  let waiting: (() => void) | undefined;
  socket.on("data", (chunk: Buffer) => {
    text += chunk.toString("utf8");
    waiting?.();
  });
  socket.write(request);
  return {
    socket,
    until: (test) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`Not seen within ${ABORT_BOUND_MS} ms; received: ${JSON.stringify(text.slice(0, 400))}`)), ABORT_BOUND_MS);
        waiting = () => {
          if (!test(text)) return;
          clearTimeout(timer);
          waiting = undefined;
          resolve(text);
        };
        waiting();
      }),
  };
}

describe("a whole answer", () => {
  it("has a Content-Length, no Transfer-Encoding and the standard reason phrase: a 2026-07-28 tools/call, then more on the same connection", async () => {
    const socket = await openRaw(server.url);
    try {
      for (const [id, input] of [[1, "small"], [2, "ünïcödé ✓"]] as const) {
        const answer = await readAnswer(socket, post("/mcp", { jsonrpc: "2.0", id, method: "tools/call", params: { name: "toUpperCase", arguments: { input }, _meta: MODERN_META } }, modern("toUpperCase")));
        expect(statusLine(answer)).toBe("HTTP/1.1 200 OK");
        expect(answer.headers["content-type"]).toBe("application/json");
        const reply = JSON.parse(wholeBody(answer));
        expect(reply).toMatchObject({ id, result: { content: [{ type: "text", text: input.toUpperCase() }] } });
      }
      // The connection still carries a request after them; a body made otherwise (`Response.json`) is framed the same.
      const health = await readAnswer(socket, `GET /health HTTP/1.1\r\nHost: ${host()}\r\n\r\n`);
      expect(statusLine(health)).toBe("HTTP/1.1 200 OK");
      expect(JSON.parse(wholeBody(health))).toEqual({ status: "ok" });
    } finally {
      socket.destroy();
    }
  });

  it("has them on a 2025 session too: initialize, the 202 of a notification, a call", async () => {
    const socket = await openRaw(server.url);
    try {
      const session = await beginSession(socket);
      const answer = await readAnswer(socket, post("/mcp", { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "toUpperCase", arguments: { input: "session" } } }, { "Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-11-25" }));
      expect(statusLine(answer)).toBe("HTTP/1.1 200 OK");
      expect(JSON.parse(wholeBody(answer))).toMatchObject({ id: 1, result: { content: [{ text: "SESSION" }] } });
    } finally {
      socket.destroy();
    }
  });

  it("has them on errors: an unknown path, a body that is not JSON, an unknown session", async () => {
    const unknownPath = await rawExchange(server.url, post("/nowhere", { jsonrpc: "2.0", id: 1, method: "ping" }, {}, "close"));
    expect(statusLine(unknownPath)).toBe("HTTP/1.1 404 Not Found");
    expect(JSON.parse(wholeBody(unknownPath))).toMatchObject({ error: { code: -32600 } });

    const body = "{not json";
    const notJson = await rawExchange(server.url, `POST /mcp HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
    expect(statusLine(notJson)).toBe("HTTP/1.1 400 Bad Request");
    expect(JSON.parse(wholeBody(notJson))).toMatchObject({ error: { code: -32700 } });

    const unknownSession = await rawExchange(server.url, post("/mcp", { jsonrpc: "2.0", id: 1, method: "tools/list" }, { "Mcp-Session-Id": "no-such-session", "Mcp-Protocol-Version": "2025-11-25" }, "close"));
    expect(statusLine(unknownSession)).toBe("HTTP/1.1 404 Not Found");
    wholeBody(unknownSession);
  });

  it("has them with CORS headers, for an allowed browser origin", async () => {
    const origin = `http://${host()}`;
    const answer = await rawExchange(server.url, post("/mcp", { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "toUpperCase", arguments: { input: "cors" }, _meta: MODERN_META } }, { ...modern("toUpperCase"), Origin: origin }, "close"));
    expect(statusLine(answer)).toBe("HTTP/1.1 200 OK");
    expect(answer.headers["access-control-allow-origin"]).toBe(origin);
    expect(answer.headers.vary).toContain("Origin");
    expect(JSON.parse(wholeBody(answer))).toMatchObject({ id: 3, result: { content: [{ text: "CORS" }] } });
  });
});

describe("an answer that streams", () => {
  it("is an event stream whose first event, the call's progress, arrives while the call runs", async () => {
    const call = await streamed(post("/mcp", { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "wait", arguments: { ms: 60_000 }, _meta: { ...MODERN_META, progressToken: "p" } } }, modern("wait"), "close"));
    try {
      const text = await call.until((seen) => seen.includes("notifications/progress"));
      expect(text.slice(0, text.indexOf("\r\n"))).toBe("HTTP/1.1 200 OK");
      expect(text).toMatch(/\r\ncontent-type: text\/event-stream/i);
      // The call waits a minute: what arrived is its progress, not its end.
      expect(text).not.toContain('"result"');
    } finally {
      call.socket.destroy();
    }
  });

  it("notices a client that closes its connection mid-call: its session logs the stream closed by the client", async () => {
    const socket = await openRaw(server.url);
    try {
      const session = await beginSession(socket);
      const closedByClient = () => jsonLines(server.logs()).filter((line) => line.event === "stream.closed" && line.reason === "client-disconnected");
      const before = closedByClient().length;
      const headers = { "Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-11-25" };
      const call = await streamed(post("/mcp", { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "wait", arguments: { ms: 60_000 }, _meta: { progressToken: "p" } } }, headers, "close"));
      await call.until((seen) => seen.includes("notifications/progress"));
      expect(closedByClient()).toHaveLength(before);
      call.socket.destroy();
      const deadline = Date.now() + ABORT_BOUND_MS;
      while (closedByClient().length === before && Date.now() < deadline) await sleep(PROBE_INTERVAL_MS);
      expect(closedByClient(), "no stream.closed (client-disconnected) after the client left").toHaveLength(before + 1);
    } finally {
      socket.destroy();
    }
  });

  it("logs nothing unexplained", () => {
    // The sessions' info lines (opened, closed) are what the tests above provoke.
    const info = jsonLines(server.logs()).filter((line) => line.level === "info").map((line) => String(line.event));
    expect(unexplained(server.logs(), { events: [...ORDINARY, ...info] })).toEqual([]);
  });
});

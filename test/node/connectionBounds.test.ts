/**
 * What one client can make the Node server hold, over raw HTTP/1.1 on `node:net` sockets against
 * the real server (`serveNode`, bundled as `startNodeServer` bundles it), with small bounds:
 * - a request whose body (or header block) never finishes is answered 408 and its connection
 *   closed once `REQUEST_TIMEOUT_MS` has passed, instead of holding its connection and its
 *   buffer for as long as the client likes;
 * - that timeout is about receiving the request only: an HTTP+SSE stream held well past it still
 *   carries a reply;
 * - past `MAX_CONNECTIONS_PER_ADDRESS` open connections from 127.0.0.1, a new connection's request
 *   is answered 429 with `Retry-After` and `Connection: close`, while 127.0.0.2 (loopback too on
 *   Linux) is served, and 127.0.0.1 is again once one of its connections closes.
 * The server logs nothing for any of it.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startNodeServer } from "../../scripts/startNodeServer.mjs";
import { openRaw, rawExchange, readAnswer } from "../support/rawExchange.ts";
import { openRawSse, type RawSse } from "../support/openRawSse.ts";
import { unexplained } from "../support/serverLogs.ts";

const REQUEST_TIMEOUT_MS = 1_000;
const MAX_CONNECTIONS_PER_ADDRESS = 4;
/** Far past the bound and Node's one-second check of it, so that a cut stream would have been cut. */
const HELD_MS = 4 * REQUEST_TIMEOUT_MS;
/** How long a closed connection may take to leave the count, on a busy machine. */
const SETTLE_MS = 10_000;

let server: Awaited<ReturnType<typeof startNodeServer>>;
beforeAll(async () => {
  server = await startNodeServer({
    definition: "test/runtime/testServer.ts",
    vars: { LOG_LEVEL: "warning", REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS), MAX_CONNECTIONS_PER_ADDRESS: String(MAX_CONNECTIONS_PER_ADDRESS) },
    captureLogs: true,
  });
});
afterAll(async () => {
  await server?.dispose();
});

const host = () => `127.0.0.1:${server.port}`;
const health = () => `GET /health HTTP/1.1\r\nHost: ${host()}\r\nConnection: close\r\n\r\n`;
/** The one warning a server without REQUEST_STATE_SECRET logs, whatever it serves. */
const ORDINARY = ["config.request-state-secret"];

describe("a request that does not arrive whole", () => {
  it("is answered 408 and its connection closed once REQUEST_TIMEOUT_MS has passed: a body one byte short", async () => {
    const socket = await openRaw(server.url);
    const declared = 4 * 1024 * 1024;
    const head = `POST /mcp HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${declared}\r\n\r\n`;
    // Most of the body, as the client that declares 4 MiB and waits before its last byte.
    const answer = readAnswer(socket, head, { untilClose: true });
    socket.write(Buffer.alloc(declared - 1, 0x20));
    const { status, closed, text } = await answer;
    socket.destroy();
    expect(status, text).toBe(408);
    expect(closed).toBe(true);
  });

  it("is answered 408 and closed too when its header block never ends, or never starts", async () => {
    for (const written of [`GET /health HTTP/1.1\r\nHost: ${host()}\r\nX-Slow: `, ""]) {
      const socket = await openRaw(server.url);
      const { status, closed, text } = await readAnswer(socket, written, { untilClose: true });
      socket.destroy();
      expect(status, `${JSON.stringify(written)}: ${text}`).toBe(408);
      expect(closed).toBe(true);
    }
  });

  it("does not cut an answer streamed past the bound: an HTTP+SSE stream still carries a reply", async () => {
    const stream = await openRawSse(`${server.url}/sse`);
    try {
      expect(stream.status).toBe(200);
      const endpoint = await stream.reader.next();
      expect(endpoint?.event).toBe("endpoint");
      await sleep(HELD_MS);
      // Raw, with Connection: close: a pooled connection of fetch's would count against the cap below.
      const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2024-11-05", capabilities: {}, clientInfo: { name: "t", version: "1" } } });
      const posted = await rawExchange(server.url, `POST ${endpoint!.data} HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
      expect(posted.status, posted.text).toBe(202);
      const reply = await stream.reader.next();
      expect(JSON.parse(reply!.data)).toMatchObject({ id: 1, result: { protocolVersion: "2024-11-05" } });
    } finally {
      stream.destroy();
    }
  });
});

describe("connections per address", () => {
  it(`refuses a connection past ${MAX_CONNECTIONS_PER_ADDRESS} from one address with 429, serves another address, and takes the first again once one closes`, async () => {
    const held: RawSse[] = [];
    try {
      // Streams: answers under way, which no request timeout cuts.
      for (let i = 0; i < MAX_CONNECTIONS_PER_ADDRESS; i++) held.push(await openRawSse(`${server.url}/sse`));
      for (const stream of held) expect(stream.status).toBe(200);

      const refused = await rawExchange(server.url, health(), { untilClose: true });
      expect(refused.status, refused.text).toBe(429);
      expect(refused.headers["retry-after"]).toBe("1");
      expect(refused.headers.connection).toBe("close");
      expect(refused.text).toContain('"code":-32000');
      expect(refused.text).toContain(`This address holds ${MAX_CONNECTIONS_PER_ADDRESS} open connections to this server, its most (MAX_CONNECTIONS_PER_ADDRESS)`);
      expect(refused.closed).toBe(true);

      const other = await openRaw(server.url, "127.0.0.2");
      const served = await readAnswer(other, health());
      other.destroy();
      expect(served.status, served.text).toBe(200);

      held.pop()!.destroy();
      let again = await rawExchange(server.url, health());
      for (const started = Date.now(); again.status === 429 && Date.now() - started < SETTLE_MS; ) {
        await sleep(100);
        again = await rawExchange(server.url, health());
      }
      expect(again.status, again.text).toBe(200);
    } finally {
      for (const stream of held) stream.destroy();
    }
  });

  it("logged nothing for any of it", async () => {
    await sleep(200);
    expect(unexplained(server.logs(), { events: ORDINARY })).toEqual([]);
  });
});

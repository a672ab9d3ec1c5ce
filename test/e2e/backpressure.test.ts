/**
 * The outbound bounds over real HTTP, with a client that stops reading, on whichever runtime
 * `startServer` starts (the contract suite runs this file on workerd and on Deno) — docs/operations.md,
 * "How a session holds up":
 * - a legacy session refuses new requests with 429 + Retry-After once its queue is full, and
 *   every request it accepted is answered exactly once when the client reads again;
 * - a 2026-07-28 `subscriptions/listen` stream that falls too far behind is ended, not buffered,
 *   and the client reading again gets what was held within the bounds, then the final result.
 *
 * What a socket adds. The workerd-only twins (`test/runtime/backpressure.test.ts`,
 * `stateless.test.ts`) read the queue's figures inside the Durable Object; here only the wire is
 * visible, and between the server's queue and this test sit the operating system's socket
 * buffers and Node's fetch's own: a client that "stops reading" still absorbs megabytes (≈ 4 MiB
 * measured on Linux loopback, where the sender's buffer grows to `tcp_wmem`'s 4 MiB maximum, on
 * both runtimes alike). So the assertions allow `SOCKET_SLACK_BYTES` outside the server, and the
 * messages are made large so that slack is worth few of them: replies of 256 KiB, and a listen
 * request with a 16 KiB id, which tags every notification of its stream.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../../scripts/startServer.mjs";
import { BOTH, call, openLegacySession, postJson } from "../support/httpSession.ts";
import { SseReader } from "../support/SseReader.ts";

/** Twice the ≈ 4 MiB measured; a bound that would fail if the server buffered for a stalled client. */
const SOCKET_SLACK_BYTES = 8 * 1024 * 1024;
const MAX_QUEUE_MESSAGES = 20;
const BASE_VARS = { LOG_LEVEL: "error", MAX_QUEUE_MESSAGES: String(MAX_QUEUE_MESSAGES), HANDLER_TIMEOUT_MS: "2000", MAX_CONCURRENT_HANDLERS: "4", KEEPALIVE_INTERVAL_MS: "250", MAX_BODY_BYTES: "65536" };

describe("a legacy session whose client stops reading", () => {
  const REPLY_CHARS = 256 * 1024;
  /** Room for 20 such replies, so the message cap is the bound reached (and each reply fits: a larger one would become -32603). */
  const MAX_QUEUE_BYTES = 8 * 1024 * 1024;
  /** Refusals to collect before reading: the first 429 and more after it, as the queue stays full while nobody reads. */
  const REFUSALS = 5;
  const MAX_POSTS = 300;

  let server: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    server = await startServer({ entry: "test/runtime/testWorker.ts", vars: { ...BASE_VARS, MAX_QUEUE_BYTES: String(MAX_QUEUE_BYTES) } });
  });
  afterAll(() => server?.dispose());

  it("refuses with 429 and Retry-After once its queue is full, and answers every accepted request exactly once when the client reads again", { timeout: 30_000 }, async () => {
    const session = await openLegacySession(server.url);
    // From here the test reads nothing from the stream until every POST is answered.
    const accepted: number[] = [];
    const refused: number[] = [];
    for (let id = 1; id <= MAX_POSTS && refused.length < REFUSALS; id++) {
      const response = await session.post(call(id, "blob", { bytes: REPLY_CHARS }));
      if (response.status === 202) {
        expect(await response.text()).toBe("");
        accepted.push(id);
        continue;
      }
      expect(response.status, `POST #${id}`).toBe(429);
      expect(response.headers.get("retry-after")).toBe("1");
      expect(response.headers.get("content-type")).toContain("application/json");
      expect(await response.json()).toMatchObject({ jsonrpc: "2.0", id, error: { code: -32000, message: expect.stringMatching(/queue is full/) } });
      refused.push(id);
    }
    expect(refused, `the queue never filled in ${MAX_POSTS} posts`).toHaveLength(REFUSALS);
    // A refusal means the queue held its cap in replies and reservations (less one place a
    // keepalive comment may hold); beyond that, only what the socket took before it stopped draining.
    expect(accepted.length).toBeGreaterThanOrEqual(MAX_QUEUE_MESSAGES - 1);
    expect(accepted.length).toBeLessThanOrEqual(MAX_QUEUE_MESSAGES + Math.ceil(SOCKET_SLACK_BYTES / REPLY_CHARS));

    // The client reads again: every accepted request is answered, once; no refused one is.
    const answered = new Map<number, number>();
    while (answered.size < accepted.length) {
      const reply = await session.reader.nextMessage(10_000);
      expect(reply.result?.content[0].text, `reply ${reply.id}`).toHaveLength(REPLY_CHARS);
      answered.set(reply.id, (answered.get(reply.id) ?? 0) + 1);
    }
    expect([...answered.keys()].sort((a, b) => a - b)).toEqual(accepted);
    expect([...answered.values()].every((n) => n === 1), "no reply twice").toBe(true);

    // Drained: the session takes work again. Its reply is the very next message, so nothing (a
    // duplicate, a refused request's reply) was queued after the last accepted reply.
    expect((await session.post(call("again", "toUpperCase", { input: "ok" }))).status).toBe(202);
    expect(await session.reader.nextMessage()).toEqual({ jsonrpc: "2.0", id: "again", result: { content: [{ type: "text", text: "OK" }], isError: false } });
    await session.reader.cancel();
  });
});

describe("a subscriptions/listen stream whose client stops reading", () => {
  /** Small, so the topic's bound (bytes of unread notifications per listener) is reached soon. */
  const MAX_QUEUE_BYTES = 8_192;
  /** A notification as the topic holds it, before the stream tags it: `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`. */
  const PUBLISHED_BYTES = 60;
  /** Every notification of the stream carries the listen request's id (`subscriptionId`): this makes each ≈ 16 KiB on the wire. */
  const LISTEN_ID = "L".repeat(16 * 1024);
  const ANNOUNCEMENTS = 2_000;
  const CONCURRENCY = 8;
  const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";
  const META = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };

  let server: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    server = await startServer({ entry: "test/runtime/testWorker.ts", vars: { ...BASE_VARS, MAX_QUEUE_BYTES: String(MAX_QUEUE_BYTES) } });
  });
  afterAll(() => server?.dispose());

  function post(id: string | number, method: string, params: Record<string, unknown>, headers: Record<string, string> = {}) {
    return postJson(`${server.url}/mcp`, { jsonrpc: "2.0", id, method, params: { ...params, _meta: META } }, {
      headers: { "content-type": "application/json", accept: BOTH, "mcp-protocol-version": "2026-07-28", "mcp-method": method, ...headers },
    });
  }
  const announce = (id: number) => post(id, "tools/call", { name: "announce", arguments: {} }, { "mcp-name": "announce" });

  async function listen(id: string | number): Promise<SseReader> {
    const response = await post(id, "subscriptions/listen", { notifications: { toolsListChanged: true } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const reader = new SseReader(response.body!);
    expect(JSON.parse((await reader.next()).data)).toMatchObject({
      method: "notifications/subscriptions/acknowledged",
      params: { notifications: { toolsListChanged: true }, _meta: { [SUBSCRIPTION_ID]: id } },
    });
    return reader;
  }

  it("is ended instead of buffered; reading again yields what the bounds held, then the final result", { timeout: 30_000 }, async () => {
    const reader = await listen(LISTEN_ID);
    // The client reads nothing more. Each announcement publishes one tools/list_changed to every listener.
    let next = 1;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next <= ANNOUNCEMENTS) {
          const response = await announce(next++);
          expect(response.status).toBe(200);
          expect(((await response.json()) as any).result.content[0].text).toBe("announced");
        }
      }),
    );

    let delivered = 0;
    let last: any;
    for (;;) {
      const message = JSON.parse((await reader.next(10_000)).data);
      if (!("method" in message)) {
        last = message;
        break;
      }
      expect(message).toEqual({ jsonrpc: "2.0", method: "notifications/tools/list_changed", params: { _meta: { [SUBSCRIPTION_ID]: LISTEN_ID } } });
      delivered++;
    }
    expect(last).toMatchObject({ jsonrpc: "2.0", id: LISTEN_ID, result: { resultType: "complete", _meta: { [SUBSCRIPTION_ID]: LISTEN_ID } } });
    await expect(reader.next(2_000)).rejects.toThrow("SSE stream ended");
    // Not everything: what the socket absorbed, plus the topic's bound, plus the stream's own queue.
    const bound = Math.ceil(SOCKET_SLACK_BYTES / LISTEN_ID.length) + Math.ceil(MAX_QUEUE_BYTES / PUBLISHED_BYTES) + MAX_QUEUE_MESSAGES;
    expect(delivered).toBeLessThanOrEqual(bound);
    expect(delivered).toBeLessThan(ANNOUNCEMENTS);

    // The client may listen again, and hears the next change.
    const again = await listen("again");
    expect((await announce(0)).status).toBe(200);
    expect(JSON.parse((await again.next()).data)).toEqual({ jsonrpc: "2.0", method: "notifications/tools/list_changed", params: { _meta: { [SUBSCRIPTION_ID]: "again" } } });
    await again.cancel();
  });
});

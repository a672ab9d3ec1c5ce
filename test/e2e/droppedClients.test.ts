/**
 * Clients that vanish: the client closes a real TCP connection — raw HTTP/1.1
 * written on a `node:net` socket (`openRawSse`), then `destroy()`ed; not a reader cancelled
 * in-process — on every way this repository serves a Worker, and on Deno. The e2e project runs
 * workerd through miniflare (`startServer`, as `npm run fixture` does), bare workerd
 * (`startWorkerd`) and `wrangler dev` (`npm start`: `scripts/start.mjs` with this entry and
 * `--var`s); the contract-deno project runs Deno, and contract-node runs Node (`serveNode`, bundled
 * by `bundleNodeEntry`). Each server is a process of its own, so that what it prints can be read
 * (`startServerProcess`).
 *
 * - Legacy: the client drops its `GET /sse` while a `wait` call runs. The session hears it and
 *   aborts the call — seen over HTTP as the call's id being free again: a probe with the same id
 *   runs instead of being refused "already in use". Probes go every PROBE_INTERVAL_MS after the
 *   drop; the first to run bounds when the drop was heard, and the last must have run by
 *   TEARDOWN_BOUND_MS. Then `GET /sse?sessionId=` reopens the stream (200) and a new call's reply
 *   arrives on it.
 * - Streamable HTTP: a `GET /mcp` dropped the same way; a second `GET /mcp` at once gets 200 (the
 *   old stream is replaced, not refused with 409), and an update made after the old connection's
 *   teardown (`resources/subscribe`, then `touch`) arrives on the new stream.
 * - Nothing on the console for an ordinary disconnect: no "Uncaught", no "Network connection lost".
 *
 * Every runtime reports the close, so no case falls back to asserting the reconnect alone: workerd
 * at the Worker's next write to the stream (a keepalive; KEEPALIVE_INTERVAL_MS is short here),
 * Deno and Node at once, by cancelling the response body when the connection closes. How soon
 * each heard it is the run's `measured` annotation (`--reporter=verbose`).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DENO_FLAGS } from "../../scripts/startDenoServer.mjs";
import { bundleNodeEntry } from "../../scripts/startNodeServer.mjs";
import { freePort } from "../support/freePort.ts";
import { call, initialize, openStreamableSession, postJson } from "../support/httpSession.ts";
import { openRawSse } from "../support/openRawSse.ts";
import { SseReader } from "../support/SseReader.ts";
import { messagesOf } from "../support/messagesOf.ts";
import { type ServerProcess, startServerProcess } from "../support/startServerProcess.ts";

const ENTRY = "test/runtime/testWorker.ts";
const KEEPALIVE_INTERVAL_MS = 300;
/** `info`, so that the session's `stream.closed` line says when it heard its client leave. */
const VARS = { LOG_LEVEL: "info", KEEPALIVE_INTERVAL_MS: String(KEEPALIVE_INTERVAL_MS) };
/** Ten keepalives: where a runtime reports the close, the session must have heard it by then, on a busy machine too. */
const TEARDOWN_BOUND_MS = 10 * KEEPALIVE_INTERVAL_MS;
const PROBE_INTERVAL_MS = 100;
/** What an ordinary disconnect must not print (the defect printed `✘ [ERROR] Uncaught Error: Network connection lost.`). */
const NOISE = /Uncaught|Network connection lost/i;
/** The session's log line for a legacy stream its client left. */
const HEARD = /"event":"stream\.closed".*"stream":"legacy".*"reason":"client-disconnected"/;

const deno = join(dirname(createRequire(import.meta.url).resolve("deno/package.json")), process.platform === "win32" ? "deno.exe" : "deno");
const noColor = { NO_COLOR: "1" };

interface Runtime {
  name: string;
  start(): Promise<ServerProcess>;
}

const onWorkerd = (how: "miniflare" | "workerd"): Runtime["start"] =>
  () => startServerProcess({ command: [process.execPath, "test/support/serveEntry.mjs", how, ENTRY, ...Object.entries(VARS).map(([k, v]) => `${k}=${v}`)], env: noColor });

/** The Node server (`serveNode`) of the same definition, bundled as `startServer` bundles it. */
const onNode: Runtime["start"] = async () => {
  const bundled = await bundleNodeEntry({ definition: "test/runtime/testServer.ts" });
  const server = await startServerProcess({ command: [process.execPath, bundled.outfile, "--port", "0"], env: { ...VARS, ...noColor } }).catch((error) => {
    bundled.remove();
    throw error;
  });
  return { ...server, stop: () => server.stop().finally(bundled.remove) };
};

const RUNTIMES: Runtime[] =
  process.env.RUNTIME === "node"
    ? [{ name: "Node", start: onNode }]
    : process.env.RUNTIME === "deno"
    ? [
        {
          name: "Deno",
          start: () =>
            startServerProcess({
              command: [deno, ...DENO_FLAGS, "test/support/denoServer.ts", "--server", "test/runtime/testServer.ts", "--port", "0"],
              env: { ...VARS, ...noColor, DENO_NO_UPDATE_CHECK: "1" },
            }),
        },
      ]
    : [
        { name: "workerd through miniflare (startServer)", start: onWorkerd("miniflare") },
        { name: "bare workerd (startWorkerd)", start: onWorkerd("workerd") },
        {
          name: "wrangler dev (npm start)",
          start: async () => {
            const port = await freePort();
            // Its Durable Objects' storage in a directory of the test's, not the repository's `.wrangler/state`.
            const state = await mkdtemp(join(tmpdir(), "durable-mcp-dropped-"));
            const vars = Object.entries(VARS).map(([k, v]) => `${k}:${v}`);
            const server = await startServerProcess({
              command: [process.execPath, "scripts/start.mjs", "--port", String(port), ENTRY, "--persist-to", state, "--var", ...vars],
              env: { ...noColor, CI: "true" },
              url: `http://127.0.0.1:${port}`,
            }).catch(async (error) => {
              await rm(state, { recursive: true, force: true });
              throw error;
            });
            return { ...server, stop: () => server.stop().finally(() => rm(state, { recursive: true, force: true })) };
          },
        },
      ];


const noiseIn = (server: ServerProcess, since: number) => server.printed(since).map((line) => line.text).filter((text) => NOISE.test(text));

for (const runtime of RUNTIMES) {
  describe(runtime.name, () => {
    let server: ServerProcess;
    beforeAll(async () => {
      server = await runtime.start();
    }, 90_000);
    afterAll(() => server?.stop(), 30_000);

    it("legacy: the session hears the socket close (its running call aborted); GET /sse?sessionId= then gets the stream", async ({ annotate }) => {
      const since = Date.now();
      const stream = await openRawSse(`${server.url}/sse`);
      expect(stream.status).toBe(200);
      expect(stream.headers["content-type"]).toContain("text/event-stream");
      const endpoint = await stream.reader.next();
      expect(endpoint.event).toBe("endpoint");
      const messageUrl = new URL(endpoint.data, server.url).href;
      const sessionId = new URL(messageUrl).searchParams.get("sessionId")!;
      const post = async (body: unknown) => {
        const answer = await postJson(messageUrl, body);
        expect(answer.status, await answer.text()).toBe(202);
      };

      await post(initialize(0));
      expect(await stream.reader.nextMessage()).toMatchObject({ id: 0, result: { protocolVersion: "2024-11-05" } });
      await post({ jsonrpc: "2.0", method: "notifications/initialized" });
      await post(call(1, "wait", { ms: 60_000, label: "dropped" }, { progressToken: "dropped" }));
      // Running: its first progress notification arrived.
      expect(await stream.reader.nextMessage()).toMatchObject({ method: "notifications/progress", params: { progressToken: "dropped", progress: 0 } });

      const droppedAt = Date.now();
      stream.destroy();
      // While `wait` (id 1) runs, a request with id 1 is refused on the stream (-32600, already in
      // use), and the refusal waits in the queue that hearing the drop discards; once it is heard
      // and the call aborted, id 1 is free and each probe runs, its reply waiting for the client.
      const deliveredAtMs: number[] = [];
      while (Date.now() - droppedAt < TEARDOWN_BOUND_MS) {
        await post(call(1, "toUpperCase", { input: `probe ${deliveredAtMs.length}` }));
        deliveredAtMs.push(Date.now() - droppedAt);
        await sleep(PROBE_INTERVAL_MS);
      }

      const reopened = await fetch(`${server.url}/sse?sessionId=${sessionId}`, { headers: { accept: "text/event-stream" } });
      expect(reopened.status, "GET /sse?sessionId= after the drop").toBe(200);
      const reader = new SseReader(reopened.body!);
      expect((await reader.next()).event).toBe("endpoint");
      // The reopened stream is the session's: a new call's reply arrives on it, after what waited.
      await post(call(2, "toUpperCase", { input: "on the new stream" }));
      const waited: any[] = [];
      let reply = await reader.nextMessage();
      for (; reply.id !== 2; reply = await reader.nextMessage()) waited.push(reply);
      expect(reply).toMatchObject({ result: { content: [{ text: "ON THE NEW STREAM" }] } });

      // Only probes waited: `wait` sent nothing (an aborted call is not answered). A refusal may
      // precede the first probe that ran (one that arrived while the aborted call was finishing).
      for (const message of waited) {
        expect(message.id).toBe(1);
        if (message.error) expect(message.error).toMatchObject({ code: -32600, message: expect.stringContaining("already in use") });
        else expect(message.result.content[0].text).toMatch(/^PROBE \d+$/);
      }
      const ran = waited.filter((m) => m.result).map((m) => Number(m.result.content[0].text.slice("PROBE ".length)));
      expect(ran.at(-1), "the last probe ran: the dropped call had been aborted").toBe(deliveredAtMs.length - 1);
      const heard = await server.waitForLine(HEARD, droppedAt, 0);
      await annotate(
        `${runtime.name}: the first probe that ran was delivered ${deliveredAtMs[ran[0]!]} ms after the drop (the one before it at ` +
          `${deliveredAtMs[ran[0]! - 1] ?? "-"} ms); the session logged stream.closed (client-disconnected) after ${heard ? `${heard.at - droppedAt} ms` : "nothing"}`,
        "measured",
      );
      await reader.cancel();
      expect(noiseIn(server, since)).toEqual([]);
    });

    it("Streamable HTTP: a second GET /mcp replaces one whose socket closed, and gets an update made afterwards", async () => {
      const since = Date.now();
      const session = await openStreamableSession(server.url);
      const streamHeaders = { "mcp-session-id": session.sessionId, "mcp-protocol-version": "2025-11-25" };
      const dropped = await openRawSse(`${server.url}/mcp`, streamHeaders);
      expect(dropped.status).toBe(200);
      expect((await dropped.reader.next()).data).toBe(""); // its priming event
      dropped.destroy();

      // At once, before a keepalive could tell the server the old one is gone: replaced, not 409.
      const second = await fetch(`${server.url}/mcp`, { headers: { ...streamHeaders, accept: "text/event-stream" } });
      expect(second.status, second.status === 200 ? "" : await second.text()).toBe(200);
      const events = new SseReader(second.body!);
      // Past the old connection's teardown, however late it is heard: it must not end this stream.
      await sleep(TEARDOWN_BOUND_MS);

      const [subscribed] = await messagesOf(await session.post({ jsonrpc: "2.0", id: 1, method: "resources/subscribe", params: { uri: "test://counter" } }));
      expect(subscribed).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
      const [touched] = await messagesOf(await session.post(call(2, "touch", {})));
      expect(touched).toMatchObject({ id: 2, result: { content: [{ text: "touched" }] } });
      expect(await events.nextMessage()).toEqual({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: "test://counter" } });
      await events.cancel();
      expect(noiseIn(server, since)).toEqual([]);
    });
  });
}

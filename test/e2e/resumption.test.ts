/**
 * Resumption as the official SDK client lives it: the network drops a POST's SSE stream right
 * after the first progress event, the handler finishes while nobody is connected, and the
 * client's own reconnect (GET with `Last-Event-ID`) still receives the reply — once.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startServer } from "../../scripts/startServer.mjs";

let server: Awaited<ReturnType<typeof startServer>>;
beforeAll(async () => {
  // A short retry hint so that the client's reconnect comes quickly, but after the handler is done.
  server = await startServer({ entry: "test/runtime/testWorker.ts", vars: { LOG_LEVEL: "error", SSE_RETRY_MS: "600" } });
});
afterAll(() => server?.dispose());

/** A `fetch` whose POST streams for the `wait` tool break, as a dropped connection would, once progress was seen. */
function cuttingFetch(log: { resumedFrom: (string | null)[]; cut: number }) {
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await fetch(input, init);
    if (init?.method === "GET") log.resumedFrom.push(new Headers(init.headers).get("last-event-id"));
    const isWait = init?.method === "POST" && typeof init.body === "string" && init.body.includes('"name":"wait"');
    if (!isWait || !response.body) return response;
    const upstream = response.body.getReader();
    const decoder = new TextDecoder();
    let seen = "";
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { value, done } = await upstream.read();
        if (done) return controller.close();
        controller.enqueue(value);
        seen += decoder.decode(value, { stream: true });
        if (seen.includes("notifications/progress") && seen.endsWith("\n\n")) {
          log.cut++;
          await upstream.cancel();
          controller.error(new TypeError("network connection lost"));
        }
      },
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
}

it("delivers a reply that completed during a dropped connection once the SDK client resumes", async () => {
  const log = { resumedFrom: [] as (string | null)[], cut: 0 };
  const transport = new StreamableHTTPClientTransport(new URL("/mcp", server.url), { fetch: cuttingFetch(log) });
  const client = new Client({ name: "resumer", version: "1.0.0" });
  const errors: Error[] = [];
  client.onerror = (error) => errors.push(error);
  await client.connect(transport);

  const progress: unknown[] = [];
  const result = await client.callTool({ name: "wait", arguments: { ms: 300 } }, CallToolResultSchema, {
    onprogress: (p) => progress.push(p),
    timeout: 10_000,
  });

  expect(result.content).toEqual([{ type: "text", text: "waited 300 ms" }]);
  expect(log.cut).toBe(1);
  expect(errors.map((e) => e.message)).toContain("SSE stream disconnected: TypeError: network connection lost");
  // The resuming GET named the progress event, the last one the client saw.
  const resumes = log.resumedFrom.filter((id) => id !== null);
  expect(resumes).toHaveLength(1);
  expect(resumes[0]).toMatch(/^[0-9a-f]{12}\.1$/);
  expect(progress).toEqual([{ progress: 0, total: 1, message: "started" }]);
  await client.close();
});

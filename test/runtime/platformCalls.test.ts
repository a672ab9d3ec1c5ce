/**
 * The platform calls one stateless `tools/call` makes in workerd, counted exactly
 * (`scripts/bench/platformCounters.ts`, installed before anything here runs): header reads,
 * request accessors, the body read and its decoding, the one `Response`, and nothing else — no
 * timer, no URL, no stream, no listener. A budget like the bundle test's: a change that adds a
 * crossing into the runtime on this path fails here and says which; one that removes a crossing
 * lowers the figures written here. The request is built before the counts start, and the answer
 * read as text (uncounted), so only the Worker's own calls are in them.
 */
import { takeCounts } from "../../scripts/bench/platformCounters.ts";
import { createExecutionContext, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "./testWorker.ts";
import { BASE } from "./helpers.ts";

const MODERN_META = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };

/** One tools/call of `toUpperCase`, as a 2026-07-28 client sends it, or as a 2025 client without a session does. */
function call(modern: boolean): Request {
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "toUpperCase", arguments: { input: "counted" }, ...(modern ? { _meta: MODERN_META } : {}) } });
  return new Request(`${BASE}/mcp`, {
    method: "POST",
    body,
    headers: {
      accept: "application/json, text/event-stream",
      "content-type": "application/json",
      "content-length": String(body.length),
      "mcp-protocol-version": modern ? "2026-07-28" : "2025-11-25",
      "mcp-method": "tools/call",
      "mcp-name": "toUpperCase",
    },
  });
}

/** The platform calls the Worker made answering `request`, and the answer's text. */
async function counted(request: Request): Promise<{ counts: Record<string, number>; text: string }> {
  takeCounts();
  const response = await worker.fetch(request, env as never, createExecutionContext());
  const text = await response.text();
  return { counts: takeCounts(), text };
}

describe("platform calls per stateless tools/call", () => {
  it("on 2026-07-28: its seven headers, the request's accessors, the body, its decoding, the signal and one Response", async () => {
    await counted(call(true)); // the first request builds the environment's services
    const { counts, text } = await counted(call(true));
    expect(JSON.parse(text).result.content[0].text).toBe("COUNTED");
    // Headers: Origin, Accept, Content-Type, Content-Length, MCP-Protocol-Version, Mcp-Method, Mcp-Name.
    expect(counts).toEqual({
      "Headers.get": 7,
      "new AbortController": 1,
      "new Response": 1,
      "request.arrayBuffer": 1,
      "request.headers": 1,
      "request.method": 1,
      "request.url": 1,
      "TextDecoder.decode": 1,
    });
  });

  it("from a 2025 client without a session: the same, with the session's headers for the mirrored ones", async () => {
    await counted(call(false));
    const { counts, text } = await counted(call(false));
    expect(JSON.parse(text).result.content[0].text).toBe("COUNTED");
    // Headers: Origin, Accept, Content-Type, Content-Length, MCP-Protocol-Version (read once for era and version), Mcp-Session-Id.
    expect(counts).toEqual({
      "Headers.get": 6,
      "new AbortController": 1,
      "new Response": 1,
      "request.arrayBuffer": 1,
      "request.headers": 1,
      "request.method": 1,
      "request.url": 1,
      "TextDecoder.decode": 1,
    });
  });
});

/**
 * The Worker `inIsolate.mjs` loads: the bench's Worker (`floorWorker.ts`), plus `GET /in-isolate`,
 * which builds `n` requests inside the isolate and hands each to that Worker's own `fetch`, one
 * after another, reading each answer whole. No socket, no HTTP parsing, no client: the CPU the
 * process spends on one such request is the Worker's own, the MCP layer's or the floor's.
 *
 * `?mode=`: `2026-07-28` (a stateless `tools/call`), `sessionless` (the same call from a 2025
 * client that sends no `Mcp-Session-Id`), `floor` (the bare Worker echo), or `spec` (the spec
 * floor: the bare echo made to do what the protocol asks of any server, `specFloor` in
 * `floorWorker.ts`). Every mode's request carries the same headers, so building it costs each
 * the same. Answers `n` when every answer held the tool's result, so a broken path cannot pass
 * for a fast one.
 */
import floor from "./floorWorker.ts";

export { FloorObject, McpHome, McpSession, McpTask, McpWatch } from "./floorWorker.ts";

const MODERN_META = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };

const MODES: Record<string, { path: string; version: string; meta?: object }> = {
  "2026-07-28": { path: "/mcp", version: "2026-07-28", meta: MODERN_META },
  sessionless: { path: "/mcp", version: "2025-11-25" },
  floor: { path: "/floor/echo", version: "2026-07-28" },
  spec: { path: "/floor/spec", version: "2026-07-28", meta: MODERN_META },
};

export default {
  async fetch(request, env, ctx) {
    const url = new URL(request.url);
    if (url.pathname !== "/in-isolate") return floor.fetch!(request, env, ctx);
    const mode = MODES[url.searchParams.get("mode") ?? ""];
    if (!mode) return new Response(`mode is one of ${Object.keys(MODES).join(", ")}`, { status: 400 });
    const n = Number(url.searchParams.get("n") ?? 1_000);
    const target = new URL(mode.path, url).href;
    let answered = 0;
    for (let id = 1; id <= n; id++) {
      const body = JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "toUpperCase", arguments: { input: "bench" }, ...(mode.meta ? { _meta: mode.meta } : {}) } });
      const call = new Request(target, {
        method: "POST",
        body,
        headers: {
          accept: "application/json, text/event-stream",
          "content-type": "application/json",
          "content-length": String(body.length),
          "mcp-protocol-version": mode.version,
          "mcp-method": "tools/call",
          "mcp-name": "toUpperCase",
        },
      });
      // Made here, not received: it has none of the properties Cloudflare adds to an incoming request, and the path reads none.
      const response = await floor.fetch!(call as Request<unknown, IncomingRequestCfProperties>, env, ctx);
      if ((await response.text()).includes("BENCH")) answered++;
    }
    return new Response(String(answered));
  },
} satisfies ExportedHandler;

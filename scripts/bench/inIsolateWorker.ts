/**
 * The Worker `inIsolate.mjs` loads: the bench's Worker (`floorWorker.ts`), plus `GET /in-isolate`,
 * which builds `n` requests inside the isolate and hands each to that Worker's own `fetch`, one
 * after another, reading each answer whole. No socket, no HTTP parsing, no client: the CPU the
 * process spends on one such request is the Worker's own, the MCP layer's or the floor's.
 *
 * `?mode=`: `2026-07-28` (a stateless `tools/call`), `sessionless` (the same call from a 2025
 * client that sends no `Mcp-Session-Id`), `floor` (the bare Worker echo), or `spec` (the spec
 * floor: the bare echo made to do what the protocol asks of any server, `specFloor` below). Every
 * mode's request carries the same headers, so building it costs each the same. Answers `n` when
 * every answer held the tool's result, so a broken path cannot pass for a fast one.
 */
import * as z from "zod/mini";
import floor from "./floorWorker.ts";

export { FloorObject, McpHome, McpSession, McpTask, McpWatch } from "./floorWorker.ts";

const MODERN_META = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };

const MODES: Record<string, { path: string; version: string; meta?: object }> = {
  "2026-07-28": { path: "/mcp", version: "2026-07-28", meta: MODERN_META },
  sessionless: { path: "/mcp", version: "2025-11-25" },
  floor: { path: "/floor/echo", version: "2026-07-28" },
  spec: { path: "/floor/spec", version: "2026-07-28", meta: MODERN_META },
};

/** The spec floor's request limit, as the server's default. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;
const MAX_DEPTH = 64;
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
/** The example's `toUpperCase` input, validated the same way. */
const input = z.strictObject({ input: z.string() });
const SERVER_INFO = { name: "bench", version: "1.0.0" };

/**
 * The spec floor of a 2026-07-28 `tools/call`: the least work any correct server does for it, in
 * one function. The header reads the transport asks for (Origin, Accept, Content-Type,
 * Content-Length, MCP-Protocol-Version, Mcp-Method, Mcp-Name) and their agreement with the body,
 * the body within a limit as bytes through a strict UTF-8 decoder, a nesting bound before
 * `JSON.parse`, the JSON-RPC shape, the arguments through the tool's schema, the handler's
 * `AbortSignal`, the result as 2026-07-28 words it (`resultType`, the server's identity), one
 * `JSON.stringify` and one `Response`. No logging, no tracing, no deadline, no routing beyond the
 * path: what the server does above this is its own cost.
 */
async function specFloor(request: Request): Promise<Response> {
  const refuse = (status: number) => new Response(null, { status });
  if (request.method !== "POST") return refuse(405);
  const headers = request.headers;
  const origin = headers.get("origin");
  if (origin !== null && new URL(origin).host !== new URL(request.url).host) return refuse(403);
  const accept = headers.get("accept") ?? "";
  if (!accept.includes("application/json") || !accept.includes("text/event-stream")) return refuse(406);
  if (headers.get("content-type") !== "application/json") return refuse(415);
  if (Number(headers.get("content-length") ?? 0) > MAX_BODY_BYTES) return refuse(413);
  const version = headers.get("mcp-protocol-version");
  let text: string;
  try {
    text = strictUtf8.decode(await request.arrayBuffer());
  } catch {
    return refuse(400);
  }
  let depth = 0;
  for (let i = 0, open = 0, inString = false; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) depth = Math.max(depth, ++open);
    else if (c === 0x5d || c === 0x7d) open--;
  }
  if (depth > MAX_DEPTH) return refuse(400);
  const call = JSON.parse(text) as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: { name?: unknown; arguments?: unknown; _meta?: Record<string, unknown> } };
  if (call.jsonrpc !== "2.0" || typeof call.method !== "string" || (typeof call.id !== "number" && typeof call.id !== "string")) return refuse(400);
  if (headers.get("mcp-method") !== call.method || headers.get("mcp-name") !== call.params?.name) return refuse(400);
  if (call.params?._meta?.["io.modelcontextprotocol/protocolVersion"] !== version) return refuse(400);
  const args = input.safeParse(call.params?.arguments ?? {});
  const signal = new AbortController().signal;
  const result = args.success && !signal.aborted
    ? { content: [{ type: "text", text: args.data.input.toUpperCase() }], isError: false }
    : { content: [{ type: "text", text: "Invalid arguments" }], isError: true };
  const reply = { jsonrpc: "2.0", id: call.id, result: { ...result, resultType: "complete", _meta: { "io.modelcontextprotocol/serverInfo": SERVER_INFO } } };
  return new Response(JSON.stringify(reply), { headers: { "content-type": "application/json" } });
}

export default {
  async fetch(request, env, ctx) {
    const url = new URL(request.url);
    if (url.pathname === "/floor/spec") return specFloor(request);
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
      const worker = mode === MODES.spec ? { fetch: specFloor } : floor;
      const response = await worker.fetch!(call as Request<unknown, IncomingRequestCfProperties>, env, ctx);
      if ((await response.text()).includes("BENCH")) answered++;
    }
    return new Response(String(answered));
  },
} satisfies ExportedHandler;

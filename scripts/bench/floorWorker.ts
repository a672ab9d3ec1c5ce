/**
 * The Worker `npm run bench` loads into workerd: the example server exactly as deployed, plus the
 * floors its figures are measured against, in the same process and the same run. A floor is the
 * least work that can carry the same exchange, so the server's cost above it is what the MCP
 * layer adds:
 *
 * - `POST /floor/echo`: a bare Worker that parses the JSON-RPC request and answers the tool's
 *   result as JSON (the floor of 2026-07-28, which never leaves the Worker);
 * - `POST /floor/object?session=…`: the Worker parses the request and hands it over RPC to a
 *   Durable Object per session, which answers the result (the floor of a Streamable HTTP session);
 * - `GET /floor/stream?session=…` + `POST /floor/object?session=…&stream=1`: the same object
 *   holds the client's SSE stream and writes the result there as an SSE event, the POST answered
 *   202 (the floor of a legacy HTTP+SSE session);
 * - `POST /floor/spec`: the spec floor of 2026-07-28, the bare echo made to do what the protocol
 *   asks of any server (`specFloor`): what the server does above it is its own cost.
 *
 * No validation, no limits, no logging: nothing here is safe to deploy; it exists to be measured.
 */
import { DurableObject } from "cloudflare:workers";
import * as z from "zod/mini";
import worker from "../../example/worker.ts";

export { McpSession, McpWatch, McpTask, McpHome } from "../../example/worker.ts";

interface FloorEnv {
  FLOOR: DurableObjectNamespace<FloorObject>;
}

interface Call {
  id: number | string;
  params: { arguments: { input: string } };
}

const encoder = new TextEncoder();

function answer(call: Call): object {
  return { jsonrpc: "2.0", id: call.id, result: { content: [{ type: "text", text: call.params.arguments.input.toUpperCase() }], isError: false } };
}

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
export async function specFloor(request: Request): Promise<Response> {
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

export class FloorObject extends DurableObject {
  #stream: WritableStreamDefaultWriter<Uint8Array> | undefined;

  call(call: Call): object {
    return answer(call);
  }

  open(): Response {
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    this.#stream = writable.getWriter();
    return new Response(readable, { headers: { "content-type": "text/event-stream" } });
  }

  push(call: Call): void {
    void this.#stream?.write(encoder.encode(`event: message\ndata: ${JSON.stringify(answer(call))}\n\n`));
  }
}

export default {
  async fetch(request, env, ctx) {
    const url = new URL(request.url);
    if (!url.pathname.startsWith("/floor/")) return worker.fetch!(request, env as never, ctx);
    const floor = (env as unknown as FloorEnv).FLOOR;
    if (url.pathname === "/floor/echo") return Response.json(answer((await request.json()) as Call));
    if (url.pathname === "/floor/spec") return specFloor(request);
    const object = floor.get(floor.idFromName(url.searchParams.get("session") ?? ""));
    if (url.pathname === "/floor/stream") return object.open();
    const call = (await request.json()) as Call;
    if (url.searchParams.has("stream")) {
      await object.push(call);
      return new Response(null, { status: 202 });
    }
    return Response.json(await object.call(call));
  },
} satisfies ExportedHandler;

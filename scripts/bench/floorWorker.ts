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
 *   202 (the floor of a legacy HTTP+SSE session).
 *
 * No validation, no limits, no logging: nothing here is safe to deploy; it exists to be measured.
 */
import { DurableObject } from "cloudflare:workers";
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

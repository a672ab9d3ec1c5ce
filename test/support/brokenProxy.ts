/**
 * Test helper: a server built to be wrong in one way. It sits in front of a real one on its own
 * loopback port, forwards each request, and lets `transform` change what goes out or comes back;
 * like a reverse proxy, it rewrites the upstream's origin to its own in headers and text bodies,
 * so documents that name their URL (OAuth metadata) name the proxy. With no transform it is
 * transparent, which the check's tests prove before they break anything.
 *
 * @example
 * const proxy = await brokenProxy(server.url, async (request, forward) =>
 *   new URL(request.url).pathname === "/sse" ? new Response("no", { status: 404 }) : forward(request));
 * await proxy.close();
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type Transform = (request: Request, forward: (request: Request) => Promise<Response>) => Promise<Response>;

export interface BrokenProxy {
  url: string;
  close(): Promise<void>;
}

export async function brokenProxy(upstream: string, transform: Transform = (request, forward) => forward(request)): Promise<BrokenProxy> {
  const target = new URL(upstream);
  let own = "";
  const forward = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const headers = new Headers(request.headers);
    headers.delete("host");
    const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.clone().arrayBuffer();
    const response = await fetch(new URL(url.pathname + url.search, target), { method: request.method, headers, body, redirect: "manual" });
    return rewrite(response, target.origin, own);
  };
  const server = createServer((incoming, outgoing) => {
    void handle(incoming, outgoing).catch((error) => {
      outgoing.statusCode = 502;
      outgoing.end(String(error));
    });
  });
  async function handle(incoming: IncomingMessage, outgoing: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(incoming.headers)) if (typeof value === "string") headers.set(name, value);
    const hasBody = incoming.method !== "GET" && incoming.method !== "HEAD";
    const request = new Request(new URL(incoming.url ?? "/", own), { method: incoming.method, headers, body: hasBody ? Buffer.concat(chunks) : undefined });
    const response = await transform(request, forward);
    outgoing.writeHead(response.status, Object.fromEntries(response.headers));
    if (!response.body) return void outgoing.end();
    // Streamed through as it comes: SSE answers stay open until the client or upstream ends them.
    const reader = response.body.getReader();
    outgoing.on("close", () => void reader.cancel().catch(() => undefined));
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      outgoing.write(value);
    }
    outgoing.end();
  }
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  own = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: own,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** The upstream's origin replaced by the proxy's in header values and in JSON bodies (streams pass untouched). */
async function rewrite(response: Response, from: string, to: string): Promise<Response> {
  const headers = new Headers();
  for (const [name, value] of response.headers) if (name !== "content-length" && name !== "content-encoding") headers.append(name, value.replaceAll(from, to));
  if (!(response.headers.get("content-type") ?? "").includes("application/json")) return new Response(response.body, { status: response.status, headers });
  return new Response((await response.text()).replaceAll(from, to), { status: response.status, headers });
}

/** A JSON answer (or one SSE message) changed by `edit`; anything else as it was. */
export async function editJson(response: Response, edit: (body: any) => void): Promise<Response> {
  const type = response.headers.get("content-type") ?? "";
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  if (type.includes("application/json")) {
    const body = await response.json();
    edit(body);
    return new Response(JSON.stringify(body), { status: response.status, headers });
  }
  if (type.includes("text/event-stream")) {
    const text = await response.text();
    const edited = text.replace(/^data: (.*)$/gm, (_line, data: string) => {
      const body = JSON.parse(data);
      edit(body);
      return `data: ${JSON.stringify(body)}`;
    });
    return new Response(edited, { status: response.status, headers });
  }
  return response;
}

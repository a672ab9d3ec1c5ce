/**
 * Test helper: a load balancer with no affinity in front of several servers, on 127.0.0.1. Each
 * HTTP request goes to the next server in turn, whichever connection it came on and whatever
 * session it names, as a round-robin balancer without sticky sessions sends it. A server that
 * refuses connections (stopped, killed) is skipped for the next one, as a balancer's passive
 * health check does, so a fleet that lost a process keeps serving; bodies are buffered for that.
 * Streamed answers (SSE) are piped through as they come, and a client that leaves ends its
 * request upstream.
 *
 * @example
 * const balancer = await roundRobin([a.url, b.url]);
 * const client = new Client(…); await client.connect(new StreamableHTTPClientTransport(new URL(`${balancer.url}/mcp`)));
 * await balancer.close();
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface Balancer {
  readonly url: string;
  /** Which server each request went to, in order: the index into the upstreams. */
  readonly routed: number[];
  close(): Promise<void>;
}

/** The largest request body buffered: far above what the tests send. */
const MAX_BODY_BYTES = 8 * 1024 * 1024;

export async function roundRobin(upstreams: string[]): Promise<Balancer> {
  let next = 0;
  const routed: number[] = [];
  const server = createServer((incoming, outgoing) => void forward(incoming, outgoing));

  async function forward(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of incoming as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) return void outgoing.writeHead(413).end();
      chunks.push(chunk);
    }
    const body = Buffer.concat(chunks);
    for (let tried = 0; tried < upstreams.length; tried++) {
      const index = next++ % upstreams.length;
      const target = new URL(incoming.url ?? "/", upstreams[index]);
      const sent = await attempt(target, incoming, outgoing, body);
      if (sent) return void routed.push(index);
    }
    outgoing.writeHead(502, { "content-type": "text/plain" }).end("no server answered");
  }

  /** False when the server refused the connection (the next one is tried); true once it answered. */
  function attempt(target: URL, incoming: IncomingMessage, outgoing: ServerResponse, body: Buffer): Promise<boolean> {
    return new Promise((resolve) => {
      const upstream = httpRequest(target, { method: incoming.method, headers: { ...incoming.headers, host: target.host } }, (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
        answer.on("error", () => outgoing.destroy());
        resolve(true);
      });
      upstream.on("error", (error: NodeJS.ErrnoException) => {
        if (!outgoing.headersSent && (error.code === "ECONNREFUSED" || error.code === "ECONNRESET")) return resolve(false);
        outgoing.destroy();
        resolve(true);
      });
      // A client that leaves ends its request upstream, as a balancer closes the server's side.
      outgoing.on("close", () => upstream.destroy());
      upstream.end(body);
    });
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    routed,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

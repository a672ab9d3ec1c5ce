/**
 * Preloaded into a Deno server that `startServer` starts with `outbound` routes (`--preload`): the
 * server's fetches to each origin named in `DURABLE_MCP_OUTBOUND` (JSON: origin → loopback origin)
 * go to the loopback origin, path and query kept; every other fetch is answered 502. The same as
 * miniflare's outbound service does for a Worker, so one test serves on loopback what the server
 * must reach over https, on either runtime. Tests only: nothing in the project imports it.
 */
const routes: Record<string, string> = JSON.parse(Deno.env.get("DURABLE_MCP_OUTBOUND") ?? "{}");
const send = globalThis.fetch;

globalThis.fetch = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
  const request = new Request(input, init);
  const url = new URL(request.url);
  const target = routes[url.origin];
  if (!target) return Promise.resolve(new Response(`startServer: outbound fetch to ${url.origin} is not routed in this test`, { status: 502 }));
  return send(new Request(new URL(url.pathname + url.search, target), request));
};

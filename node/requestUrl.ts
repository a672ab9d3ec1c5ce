/**
 * The URL of a request `node:http` parsed: the authority its Host header names, then the path its
 * request target names — so that the Host header alone says which server was asked, as on Deno
 * and workerd, and the Host check (`ALLOWED_HOSTS`) reads what the client really sent there.
 *
 * A target `//name/…` is a path whose first segment is empty (RFC 9112 §3.2.1), not another
 * authority, as `new URL(target, base)` would read it. An absolute-form target
 * (`http://name/…`, RFC 9112 §3.2.2) is served when it names the Host header's authority, which
 * a client sends identical to it (RFC 9110 §7.2), and refused otherwise: either name could be
 * the one checked, so neither is. Any other target (`*`, `name:port`) and a Host that is not a
 * bare `host[:port]` are refused too. Not here: which hosts are allowed (`checkHost`).
 */

/** Why a request has no URL: the sentence of its 400. */
export type UnaddressedRequest = { refused: string };

/**
 * @example requestUrl("localhost:8787", "//evil.test/mcp").pathname // "//evil.test/mcp", host localhost:8787
 * @example requestUrl("evil.test", "http://localhost/health") // { refused: "…" }
 */
export function requestUrl(host: string | undefined, target: string): URL | UnaddressedRequest {
  const origin = originOf(host ?? "localhost");
  if (!origin) return { refused: "Bad Request: the Host header is not a host name" };
  // Concatenated, not resolved against a base: after the authority, a leading `//` stays a path.
  if (target.startsWith("/")) return new URL(`${origin.origin}${target}`);
  const absolute = /^https?:\/\//i.test(target) ? parsed(target) : undefined;
  if (absolute && absolute.host === origin.host) return new URL(`${origin.origin}${absolute.pathname}${absolute.search}`);
  return { refused: absolute ? "Bad Request: the request target names another host than the Host header" : "Bad Request: the request target is not a path" };
}

/** Host header values read before, with their origins: a server is asked under a handful of names. */
const origins = new Map<string, { origin: string; host: string } | undefined>();
/** Past this many names (a client sending a new one each time), the map starts over. */
const MAX_REMEMBERED_HOSTS = 64;

/** `http://host[:port]` for a Host header value that is exactly that, else undefined (a path, a query, user info). */
function originOf(host: string): { origin: string; host: string } | undefined {
  if (origins.has(host)) return origins.get(host);
  const url = parsed(`http://${host}`);
  const origin = !url || url.username || url.password || url.pathname !== "/" || url.search || url.hash || url.host === "" ? undefined : { origin: url.origin, host: url.host };
  if (origins.size >= MAX_REMEMBERED_HOSTS) origins.clear();
  origins.set(host, origin);
  return origin;
}

function parsed(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

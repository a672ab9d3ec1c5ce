/**
 * An absolute-form request target (`GET http://name/… HTTP/1.1`, RFC 9112 §3.2.2) gives Deno's
 * request its URL, whatever the Host header says; a client sends the two identical (RFC 9110
 * §7.2). When they differ the request is refused 400, so that the name the Host check
 * (`ALLOWED_HOSTS`) reads is the name the client sent, as on Node (`node/requestUrl.ts`). Not
 * here: which hosts are allowed, a malformed Host (Deno refuses it before the handler).
 */

/**
 * A 400 when `request`'s URL names another authority than its Host header, else undefined.
 *
 * @example refuseOtherTargetHost(request) ?? handle(request)
 */
export function refuseOtherTargetHost(request: Request): Response | undefined {
  const host = request.headers.get("host");
  if (host === null || hostOf(host) === new URL(request.url).host) return undefined;
  return new Response("Bad Request: the request target names another host than the Host header", { status: 400, headers: { "content-type": "text/plain; charset=utf-8", connection: "close" } });
}

/** The Host header's value as a URL writes it (lower case, default port dropped), or undefined. */
function hostOf(host: string): string | undefined {
  try {
    return new URL(`http://${host}`).host;
  } catch {
    return undefined;
  }
}

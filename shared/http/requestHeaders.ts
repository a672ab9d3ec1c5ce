/**
 * A request's headers, fetched from the platform once per request: on workerd `request.headers`
 * is an accessor that crosses into the runtime each time it is read (`npm run bench:calls`
 * counts the crossings), and a request's checks read it at each step. The `Headers` object is
 * the request's own, live, so holding it changes nothing. It is kept on the request itself, under
 * a symbol no other code knows: a `WeakMap` keyed by every request would cost more per request
 * than the crossings it saves, and more again in the collector.
 */
const HEADERS = Symbol("headers");

export function requestHeaders(request: Request): Headers {
  const held = request as Request & { [HEADERS]?: Headers };
  return (held[HEADERS] ??= request.headers);
}

/**
 * A request's headers, fetched from the platform once per request: on workerd `request.headers`
 * is an accessor that crosses into the runtime each time it is read (`npm run bench:calls`
 * counts the crossings), and a request's checks read it at each step. The `Headers` object is
 * the request's own, live, so holding it changes nothing; the entry goes with the request.
 */
const fetched = new WeakMap<Request, Headers>();

export function requestHeaders(request: Request): Headers {
  let headers = fetched.get(request);
  if (!headers) fetched.set(request, (headers = request.headers));
  return headers;
}

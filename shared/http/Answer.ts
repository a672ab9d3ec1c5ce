/**
 * An HTTP answer as the session's host produces it: a streaming `Response`, or — for the common
 * JSON, 202 and error answers — plain data. Plain data crosses the Durable Object RPC boundary by
 * value; a `Response` has its body streamed across, which costs as much CPU as the rest of the
 * request (`npm run bench`). The routes turn it back into a `Response` on their side
 * (`toResponse`), which remembers the data it was made from (`plainAnswer`): a runtime edge that
 * writes to a socket itself (Node) sends those bytes with a `Content-Length` instead of reading
 * the `Response`'s body stream, and for such an edge the routes make the `Response` without a body
 * at all (`bodyless`). A `Response` made here is not changed afterwards, but for the CORS headers
 * `withCors` sets on one that answers a browser's request (one with an `Origin`).
 */
export interface TextAnswer {
  status: number;
  headers?: Record<string, string>;
  /** The body as text; none for 202 and 204. */
  body?: string;
}

export type Answer = Response | TextAnswer;

/**
 * Where a `Response` that `toResponse` made from plain data keeps that data (whole bodies, never an
 * event stream): on the `Response` itself, under a symbol no other code knows, which costs less
 * per request than a `WeakMap` entry.
 */
const PLAIN = Symbol("plain");

type Remembered = Response & { [PLAIN]?: TextAnswer };

/** `bodyless`: the body stays aside (`plainAnswer`), for a runtime edge that writes it itself; nothing else may be handed such a `Response`. */
export function toResponse(answer: Answer, bodyless = false): Response {
  return answer instanceof Response ? answer : plainResponse(answer, bodyless);
}

/** A whole body (never an event stream) as the final `Response`, remembered with the data it was made from (`plainAnswer`, `isPlain`). */
export function plainResponse(answer: TextAnswer, bodyless = false): Response {
  const response: Remembered = new Response(bodyless ? null : (answer.body ?? null), answer);
  response[PLAIN] = answer;
  return response;
}

/** Whether `response` was made from plain data here: a runtime edge then need not read its headers or body to know it is no stream (each read a platform call). */
export function isPlain(response: Response): boolean {
  return (response as Remembered)[PLAIN] !== undefined;
}

/** The plain data `response` was made from by `toResponse` (its status, headers and whole body), or undefined for any other `Response`. */
export function plainAnswer(response: Response): TextAnswer | undefined {
  return (response as Remembered)[PLAIN];
}

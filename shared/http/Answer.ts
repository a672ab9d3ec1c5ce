/**
 * An HTTP answer as the session's host produces it: a streaming `Response`, or — for the common
 * JSON, 202 and error answers — plain data. Plain data crosses the Durable Object RPC boundary by
 * value; a `Response` has its body streamed across, which measured at about 40 µs of CPU per
 * call (`npm run bench`), as much as the rest of the request. The routes turn it back into a
 * `Response` on their side (`toResponse`).
 */
export interface TextAnswer {
  status: number;
  headers?: Record<string, string>;
  /** The body as text; none for 202 and 204. */
  body?: string;
}

export type Answer = Response | TextAnswer;

/** The responses `toResponse` made from plain data: whole bodies, never an event stream. */
const PLAIN = new WeakSet<Response>();

export function toResponse(answer: Answer): Response {
  return answer instanceof Response ? answer : plainResponse(answer.body ?? null, answer);
}

/** A whole body (never an event stream) as the final `Response`, known as plain to the runtime edge (`isPlain`). */
export function plainResponse(body: string | null, init: ResponseInit): Response {
  const response = new Response(body, init);
  PLAIN.add(response);
  return response;
}

/** Whether `response` was made from plain data here: a runtime edge then need not read its headers or body to know it is no stream (each read a platform call). */
export function isPlain(response: Response): boolean {
  return PLAIN.has(response);
}

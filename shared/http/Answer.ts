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

export function toResponse(answer: Answer): Response {
  return answer instanceof Response ? answer : new Response(answer.body ?? null, answer);
}

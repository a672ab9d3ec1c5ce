/**
 * An HTTP answer as the session's host produces it: a streaming `Response`, or — for the common
 * JSON, 202 and error answers — plain data. Plain data crosses the Durable Object RPC boundary by
 * value; a `Response` has its body streamed across, which costs as much CPU as the rest of the
 * request (`npm run bench`). The routes turn it back into a
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
  if (answer instanceof Response) return answer;
  const response = new Response(answer.body ?? null, answer);
  PLAIN.add(response);
  return response;
}

/** Whether `response` was made from plain data here: a runtime edge then need not read its headers or body to know it is no stream (each read a platform call). */
export function isPlain(response: Response): boolean {
  return PLAIN.has(response);
}

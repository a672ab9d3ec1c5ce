/**
 * One JSON-RPC message POSTed the way a Streamable HTTP client posts it, and the answer read
 * whichever way the server gives it: a JSON body, or an event stream whose first message with the
 * request's id is the answer (transports spec, "Sending Messages to the Server"). The stream is
 * read up to `MAX_ANSWER_BYTES` and the target's deadline, then cancelled: a probe never waits on
 * a server that streams forever.
 */
import { type CheckTarget, send } from "./CheckTarget.ts";

/** How much of one answer a probe reads before it gives up on it. */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

export interface RpcAnswer {
  status: number;
  headers: Headers;
  /** The JSON-RPC response with the request's id, when there was one. */
  message?: { id?: unknown; result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } };
  /** The body as text, when it held no JSON-RPC response (an HTML 404, a plain-text error). */
  text?: string;
}

export interface PostOptions {
  headers?: Record<string, string>;
  /** Leave the target's own headers (its token) off: what a client that has not signed in sends. */
  anonymous?: boolean;
  origin?: string;
}

const STREAMABLE_ACCEPT = "application/json, text/event-stream";

export async function postRpc(target: CheckTarget, body: Record<string, unknown>, options: PostOptions = {}): Promise<RpcAnswer> {
  const headers: Record<string, string> = { "content-type": "application/json", accept: STREAMABLE_ACCEPT, ...options.headers };
  if (options.origin) headers.origin = options.origin;
  const response = await send(target, target.url, { method: "POST", headers, body: JSON.stringify(body), anonymous: options.anonymous ?? false });
  const type = response.headers.get("content-type") ?? "";
  const text = type.includes("text/event-stream") ? await firstAnswer(response, body.id) : await readCapped(response);
  if (text === undefined) return { status: response.status, headers: response.headers };
  try {
    const parsed = JSON.parse(text) as RpcAnswer["message"];
    if (parsed && typeof parsed === "object" && ("result" in parsed || "error" in parsed)) return { status: response.status, headers: response.headers, message: parsed };
  } catch {
    // Not JSON: kept as text for the finding to quote.
  }
  return { status: response.status, headers: response.headers, text: text.slice(0, 300) };
}

/** The body as text, at most about `MAX_ANSWER_BYTES` of it. */
export async function readCapped(response: Response): Promise<string> {
  let text = "";
  for await (const chunk of lines(response)) {
    text += chunk;
    if (text.length > MAX_ANSWER_BYTES) break;
  }
  return text;
}

/** The `data` of the first event that is the response to `id`; the stream is cancelled after it. */
async function firstAnswer(response: Response, id: unknown): Promise<string | undefined> {
  let data: string[] = [];
  let read = 0;
  for await (const line of lines(response, true)) {
    read += line.length;
    if (read > MAX_ANSWER_BYTES) return undefined;
    if (line.startsWith("data:")) data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
    else if (line === "" && data.length > 0) {
      const event = data.join("\n");
      data = [];
      try {
        const message = JSON.parse(event) as { id?: unknown };
        if (message.id === id) return event;
      } catch {
        // A malformed event is not the answer; keep reading.
      }
    }
  }
  return undefined;
}

/** The body's text, chunk by chunk, or line by line (`split`); the body is cancelled when the caller stops. */
async function* lines(response: Response, split = false): AsyncGenerator<string> {
  if (!response.body) return;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let pending = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!split) {
        yield value;
        continue;
      }
      pending += value;
      let end: number;
      while ((end = pending.search(/\r?\n/)) >= 0) {
        yield pending.slice(0, end);
        pending = pending.slice(pending[end] === "\r" ? end + 2 : end + 1);
      }
    }
    if (pending) yield pending;
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

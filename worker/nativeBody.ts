/**
 * workerd tells a Worker that its client left only through a write that fails: a write into a
 * native stream (`IdentityTransformStream`) that the runtime sends to the client. A JavaScript
 * `ReadableStream` handed back as a response body is not told — in workerd its source is never
 * cancelled after the client goes away, so a stream with a keepalive timer would run
 * for ever and its session would never hear that its client left.
 *
 * So every event stream the Worker answers with is piped into a native stream: when the client
 * leaves, the next write (a message, or a keepalive) fails, and the pipe cancels the source —
 * which is that stream's one teardown (`FrameStream`'s cancel, the relay's socket close).
 *
 * The pipe is also the request's `waitUntil`: when the client leaves, workerd ends the request's
 * context unless something is still waited for, and with it the timers that write keepalives — a
 * stream that held nothing else open (a listen with nothing to watch) would then never hear that
 * its client left, nor free what it holds. Waited for, the pipe lives on to its next write (at
 * most KEEPALIVE_INTERVAL_MS, which stays under the 30 s workerd gives a request's waits).
 */

import { isPlain } from "../shared/http/Answer.ts";

/** `response`, its body piped through a native stream when it is an event stream; anything else as it is. */
export function nativeBody(response: Response, context: { waitUntil(promise: Promise<unknown>): void }): Response {
  if (isPlain(response) || !response.body || !response.headers.get("content-type")?.startsWith("text/event-stream")) return response;
  const { readable, writable } = new IdentityTransformStream();
  // A failed pipe is the client leaving: the source has been cancelled by then.
  context.waitUntil(response.body.pipeTo(writable).catch(() => {}));
  return new Response(readable, response);
}

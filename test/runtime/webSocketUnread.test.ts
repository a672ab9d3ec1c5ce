/**
 * The `/ws` example's bound on unread client messages (`example/webSocketMessages.ts`), on a
 * real socket pair inside workerd: the session stops reading (here: nobody reads the adapter's
 * readable, as when its writes wait on a client that does not read our replies) while the client
 * goes on sending large messages. A bound by count alone would let a few hundred large messages
 * pile up; the unread ones are bounded in bytes by the session's queue budget
 * (`MAX_QUEUE_BYTES`): past it the client is cut off with 1008, and what was held is what the
 * bound allows.
 */
import { expect, it } from "vitest";
import { webSocketMessages } from "../../example/webSocketMessages.ts";

/** The budget the adapter is given (as `readConfig(env)` would give it), and the client's message size. */
const MAX_QUEUE_BYTES = 1_048_576;
const MESSAGE_CHARS = 256 * 1024;
/** What the client offers: 16 MiB, far past the bound in bytes, far under the old bound in count. */
const MESSAGES = 64;
/** How long the client waits for the close; it comes after about five messages. */
const CLOSE_DEADLINE_MS = 10_000;

it("cuts off a client whose unread messages pass MAX_QUEUE_BYTES, with 1008 and a reason, holding no more than the bound", async () => {
  const { 0: client, 1: server } = new WebSocketPair();
  server.accept();
  client.accept();
  const messages = webSocketMessages(server, { maxQueueBytes: MAX_QUEUE_BYTES, maxQueueMessages: 1_000 });
  const closed = new Promise<CloseEvent>((resolve) => client.addEventListener("close", resolve));
  const message = JSON.stringify({ jsonrpc: "2.0", method: "notifications/pad", params: { pad: "x".repeat(MESSAGE_CHARS) } });
  for (let i = 0; i < MESSAGES; i++) client.send(message);

  const close = await Promise.race([closed, new Promise<undefined>((resolve) => setTimeout(resolve, CLOSE_DEADLINE_MS))]);
  expect(close, `no close within ${CLOSE_DEADLINE_MS} ms`).toBeDefined();
  expect(close!.code).toBe(1008);
  expect(close!.reason).toBe(`More than ${MAX_QUEUE_BYTES} bytes of messages unread (MAX_QUEUE_BYTES); read the replies`);

  // What the adapter held is what the session can still read, and then the stream ends.
  const reader = messages.readable.getReader();
  let held = 0;
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) held += (chunk.value as string).length;
  expect(held).toBeGreaterThan(0);
  expect(held).toBeLessThanOrEqual(MAX_QUEUE_BYTES + message.length);
});

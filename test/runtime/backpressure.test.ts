/**
 * The outbound queue bound, with a client that stops reading. The test configuration caps a session at 20 messages and 64 KiB.
 */
import { expect, it } from "vitest";
import { call, eventually, openSession, sessionStub } from "./helpers.ts";

const MAX_MESSAGES = 20;
const MAX_BYTES = 65_536;
const REPLY_CHARS = 16_384;

it("refuses with 429 when a non-reading client's queue is full, and answers every accepted request once it reads", async () => {
  const s = await openSession();
  const stub = sessionStub(s.sessionId);
  const accepted: number[] = [];
  let refused: Response | undefined;
  for (let id = 1; id <= 2_000 && !refused; id++) {
    const response = await s.post(call(id, "blob", { bytes: REPLY_CHARS }));
    if (response.status === 202) accepted.push(id);
    else refused = response;
  }
  expect(refused, "the queue never filled").toBeDefined();
  expect(refused!.status).toBe(429);
  expect(refused!.headers.get("retry-after")).toBe("1");
  const body = await refused!.json<any>();
  expect(body.error.code).toBe(-32000);
  expect(body.error.message).toMatch(/queue is full/);
  // The refusal answers the request it refused (the session admits by the ids the Worker read).
  expect(body.id).toBe(accepted.length + 1);

  // The bound holds: messages plus reservations within the cap; bytes within the cap plus the
  // replies that were already reserved when it was reached.
  await eventually(async () => (await stub.stats())?.running === 0);
  const stats = (await stub.stats())!;
  expect(stats.messages + stats.reserved).toBeLessThanOrEqual(MAX_MESSAGES);
  expect(stats.bytes).toBeLessThanOrEqual(MAX_BYTES + MAX_MESSAGES * (REPLY_CHARS + 200));

  // Still full: a second attempt is refused too, and nothing was silently accepted.
  expect((await s.post(call(99_999, "blob", { bytes: 1 }))).status).toBe(429);

  // The client reads again: every accepted request is answered exactly once.
  const answered = new Map<number, number>();
  while (answered.size < accepted.length) {
    const reply = await s.reader.nextMessage();
    expect(reply.result.content[0].text).toHaveLength(REPLY_CHARS);
    answered.set(reply.id, (answered.get(reply.id) ?? 0) + 1);
  }
  expect([...answered.keys()].sort((a, b) => a - b)).toEqual(accepted);
  expect([...answered.values()].every((n) => n === 1)).toBe(true);

  // Drained: the session takes work again.
  expect((await s.post(call("again", "toUpperCase", { input: "ok" }))).status).toBe(202);
  expect((await s.reader.nextMessage()).id).toBe("again");
  await s.reader.cancel();
});

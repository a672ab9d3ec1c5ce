import { describe, it, expect } from "vitest";
import { OutboundQueue } from "./OutboundQueue.ts";
import { QueueBudget } from "./QueueBudget.ts";

const bytes = (n: number, fill = 0) => new Uint8Array(n).fill(fill);

/** Whether `promise` has settled once pending microtasks and one macrotask have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((resolve) => setTimeout(resolve, 0));
  return done;
}

describe("QueueBudget admission and reservations", () => {
  it("admits while queued messages plus reservations stay within maxMessages", () => {
    const queue = new OutboundQueue({ maxBytes: 1_000, maxMessages: 3 });
    const { budget } = queue;
    expect(budget.canAdmit(3)).toBe(true);
    expect(budget.canAdmit(4)).toBe(false);
    queue.push(bytes(1));
    budget.reserve();
    expect(budget.canAdmit(1)).toBe(true);
    expect(budget.canAdmit(2)).toBe(false);
    budget.reserve();
    expect(budget.canAdmit(1)).toBe(false);
  });

  it("admits only while queued bytes are under maxBytes", () => {
    const queue = new OutboundQueue({ maxBytes: 10, maxMessages: 100 });
    queue.push(bytes(9));
    expect(queue.budget.canAdmit(1)).toBe(true);
    queue.push(bytes(1));
    expect(queue.budget.canAdmit(1)).toBe(false);
    queue.shift();
    expect(queue.budget.canAdmit(1)).toBe(true);
  });

  it("counts the bytes of admitted requests until they are answered, not only their number", () => {
    const budget = new QueueBudget({ maxBytes: 100, maxMessages: 1_000 });
    // An empty budget takes any one body, however large.
    expect(budget.canAdmit(1, 5_000)).toBe(true);
    const big = budget.reserve(60);
    expect(budget.reservedBytes).toBe(60);
    expect(budget.canAdmit(1, 30)).toBe(true);
    expect(budget.canAdmit(1, 40)).toBe(false);
    big.release();
    expect(budget.reservedBytes).toBe(0);
    expect(budget.canAdmit(1, 40)).toBe(true);
    const answered = budget.reserve(60);
    answered.commit();
    answered.release(); // a second end frees nothing twice
    expect(budget.reservedBytes).toBe(0);
  });

  it("ends a reservation once, by commit or release, whichever comes first", () => {
    const budget = new QueueBudget({ maxBytes: 100, maxMessages: 2 });
    const a = budget.reserve();
    const b = budget.reserve();
    expect(budget.reserved).toBe(2);
    expect(budget.canAdmit(1)).toBe(false);
    a.commit();
    a.release();
    a.commit();
    expect(budget.reserved).toBe(1);
    expect(a.held).toBe(false);
    b.release();
    b.release();
    b.commit();
    expect(budget.reserved).toBe(0);
    expect(budget.canAdmit(2)).toBe(true);
  });

  it("wakes a notification waiting for room when a reservation is released, not when it is committed", async () => {
    const queue = new OutboundQueue({ maxBytes: 100, maxMessages: 2 });
    queue.push(bytes(1));
    const reservation = queue.budget.reserve();
    const waiting = queue.pushWhenRoom(bytes(1), new AbortController().signal);
    expect(await settled(waiting)).toBe(false);
    reservation.release();
    expect(await settled(waiting)).toBe(true);
    expect(queue.stats).toEqual({ bytes: 2, messages: 2, reserved: 0 });
  });
});

describe("OutboundQueue of text frames (a message stream)", () => {
  it("queues JSON texts as they are and counts their length", () => {
    const queue = new OutboundQueue<string>({ maxBytes: 100, maxMessages: 10 });
    queue.push('{"a":1}');
    queue.push("é");
    expect(queue.stats).toEqual({ bytes: 8, messages: 2, reserved: 0 });
    expect(queue.shift()).toBe('{"a":1}');
    expect(queue.shift()).toBe("é");
    expect(queue.empty).toBe(true);
  });
});

describe("OutboundQueue push and shift", () => {
  it("is first in, first out, and tracks bytes and messages", () => {
    const queue = new OutboundQueue({ maxBytes: 100, maxMessages: 10 });
    const a = bytes(3, 1);
    const b = bytes(5, 2);
    queue.push(a);
    queue.push(b);
    expect(queue.stats).toEqual({ bytes: 8, messages: 2, reserved: 0 });
    expect(queue.shift()).toBe(a);
    expect(queue.stats).toEqual({ bytes: 5, messages: 1, reserved: 0 });
    expect(queue.shift()).toBe(b);
    expect(queue.shift()).toBeUndefined();
    expect(queue.stats).toEqual({ bytes: 0, messages: 0, reserved: 0 });
  });

  it("push is unconditional: a reserved reply goes in even past the caps", () => {
    const queue = new OutboundQueue({ maxBytes: 4, maxMessages: 1 });
    queue.push(bytes(4));
    queue.push(bytes(4));
    expect(queue.stats).toMatchObject({ bytes: 8, messages: 2 });
  });

  it("keeps order across many push/shift cycles (through compaction)", () => {
    const queue = new OutboundQueue({ maxBytes: 1_000_000, maxMessages: 10_000 });
    const frames = Array.from({ length: 5_000 }, (_, i) => new Uint8Array([i & 0xff, i >> 8]));
    const out: Uint8Array[] = [];
    // Keep a backlog of ~100 frames so the consumed prefix grows past the compaction threshold.
    for (const [i, frame] of frames.entries()) {
      queue.push(frame);
      if (i >= 100) out.push(queue.shift()!);
    }
    for (let frame = queue.shift(); frame; frame = queue.shift()) out.push(frame);
    expect(out).toHaveLength(frames.length);
    expect(out.every((frame, i) => frame === frames[i])).toBe(true);
    expect(queue.stats).toEqual({ bytes: 0, messages: 0, reserved: 0 });
  });

  it("clear drops every frame but keeps reservations", () => {
    const queue = new OutboundQueue({ maxBytes: 100, maxMessages: 10 });
    queue.push(bytes(7));
    queue.push(bytes(7));
    for (let i = 0; i < 3; i++) queue.budget.reserve();
    queue.clear();
    expect(queue.stats).toEqual({ bytes: 0, messages: 0, reserved: 3 });
    expect(queue.shift()).toBeUndefined();
  });
});

describe("OutboundQueue.whenData", () => {
  it("resolves at once when a frame is queued", async () => {
    const queue = new OutboundQueue({ maxBytes: 100, maxMessages: 10 });
    queue.push(bytes(1));
    expect(await settled(queue.whenData())).toBe(true);
  });

  it("waits for the next push", async () => {
    const queue = new OutboundQueue({ maxBytes: 100, maxMessages: 10 });
    const waiting = queue.whenData();
    expect(await settled(waiting)).toBe(false);
    queue.push(bytes(1));
    expect(await settled(waiting)).toBe(true);
  });
});

describe("OutboundQueue.pushWhenRoom", () => {
  it("pushes at once when the frame fits", async () => {
    const queue = new OutboundQueue({ maxBytes: 100, maxMessages: 10 });
    await queue.pushWhenRoom(bytes(10), new AbortController().signal);
    expect(queue.stats.messages).toBe(1);
  });

  it("waits while the message cap is reached and resolves after a shift makes room", async () => {
    const queue = new OutboundQueue({ maxBytes: 100, maxMessages: 1 });
    const first = bytes(1, 1);
    const second = bytes(1, 2);
    queue.push(first);
    const pushed = queue.pushWhenRoom(second, new AbortController().signal);
    expect(await settled(pushed)).toBe(false);
    expect(queue.stats.messages).toBe(1);
    expect(queue.shift()).toBe(first);
    expect(await settled(pushed)).toBe(true);
    expect(queue.shift()).toBe(second);
  });

  it("waits while the byte cap would be passed", async () => {
    const queue = new OutboundQueue({ maxBytes: 10, maxMessages: 10 });
    queue.push(bytes(6));
    queue.push(bytes(2));
    const pushed = queue.pushWhenRoom(bytes(5), new AbortController().signal);
    expect(await settled(pushed)).toBe(false);
    queue.shift(); // 2 bytes left: 2 + 5 fits
    await pushed;
    expect(queue.stats).toMatchObject({ bytes: 7, messages: 2 });
  });

  it("rejects with the signal's reason when aborted while waiting, and pushes nothing", async () => {
    const queue = new OutboundQueue({ maxBytes: 100, maxMessages: 1 });
    queue.push(bytes(1));
    const controller = new AbortController();
    const reason = new Error("client cancelled");
    const pushed = queue.pushWhenRoom(bytes(1), controller.signal);
    controller.abort(reason);
    await expect(pushed).rejects.toBe(reason);
    queue.shift();
    expect(queue.stats.messages).toBe(0);
  });

  it("rejects at once when the signal is already aborted and there is no room", async () => {
    const queue = new OutboundQueue({ maxBytes: 100, maxMessages: 1 });
    queue.push(bytes(1));
    const reason = new Error("gone");
    await expect(queue.pushWhenRoom(bytes(1), AbortSignal.abort(reason))).rejects.toBe(reason);
  });

  it("lets an empty queue take a frame larger than maxBytes", async () => {
    const queue = new OutboundQueue({ maxBytes: 10, maxMessages: 10 });
    await queue.pushWhenRoom(bytes(50), new AbortController().signal);
    expect(queue.stats).toMatchObject({ bytes: 50, messages: 1 });
  });

  it("lets an oversized frame in once the queue drains", async () => {
    const queue = new OutboundQueue({ maxBytes: 10, maxMessages: 10 });
    queue.push(bytes(1));
    const pushed = queue.pushWhenRoom(bytes(50), new AbortController().signal);
    expect(await settled(pushed)).toBe(false);
    queue.shift();
    await pushed;
    expect(queue.stats.bytes).toBe(50);
  });

  it("is woken by clear", async () => {
    const queue = new OutboundQueue({ maxBytes: 100, maxMessages: 1 });
    queue.push(bytes(1));
    const pushed = queue.pushWhenRoom(bytes(1), new AbortController().signal);
    queue.clear();
    await pushed;
    expect(queue.stats.messages).toBe(1);
  });
});

import { describe, expect, it } from "vitest";
import { Logger } from "../log/Logger.ts";
import { MemoryStorage } from "../storage/MemoryStorage.ts";
import { EventStore } from "./EventStore.ts";
import { QueueBudget } from "./QueueBudget.ts";
import { ResumableStream } from "./ResumableStream.ts";

/** Storage whose writes land at once but are confirmed only when the test says so (as a slow disk would). */
class SlowConfirmStorage extends MemoryStorage {
  readonly held: Array<() => void> = [];
  override async put(key: string, value: unknown): Promise<void> {
    await super.put(key, value);
    await new Promise<void>((resolve) => this.held.push(resolve));
  }
  release(): void {
    for (const resolve of this.held.splice(0)) resolve();
  }
}

/** Storage whose writes land only when the test says so: a write still under way when a client resumes. */
class HeldWriteStorage extends MemoryStorage {
  readonly held: Array<() => void> = [];
  override async put(key: string, value: unknown): Promise<void> {
    await new Promise<void>((resolve) => this.held.push(resolve));
    await super.put(key, value);
  }
  release(): void {
    for (const resolve of this.held.splice(0)) resolve();
  }
}

function setup(storage = new MemoryStorage()) {
  const events = new EventStore(storage, { maxEvents: 100, maxBytes: 1_000_000, maxEventBytes: 100_000 });
  const stream = new ResumableStream({ id: "0123456789ab", budget: new QueueBudget({ maxBytes: 1_000_000, maxMessages: 100 }), events, keepaliveIntervalMs: 60_000, log: new Logger("error") });
  return { stream, events };
}

/** Reads `body` until `count` SSE message events arrived (or it ended); their ids in order. */
async function eventIds(body: ReadableStream<Uint8Array>, count: number): Promise<string[]> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const ids = () => [...text.matchAll(/^id: (\S+)$/gm)].map((m) => m[1]!);
  while (ids().length < count) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  await reader.cancel();
  return ids();
}

describe("ResumableStream: resumption against concurrent sends", () => {
  it("delivers a message being stored while a client resumes exactly once (not by replay and live both)", async () => {
    const storage = new SlowConfirmStorage();
    const { stream } = setup(storage);
    // m1 is written, not yet confirmed, when the client resumes: the replay will list it.
    const sent = stream.notify('{"jsonrpc":"2.0","method":"m1"}');
    const response = stream.resume(0);
    await new Promise((r) => setTimeout(r, 5));
    storage.release();
    await sent;
    const next = stream.notify('{"jsonrpc":"2.0","method":"m2"}');
    await new Promise((r) => setTimeout(r, 5));
    storage.release();
    await next;
    // Twice would read [.1, .1]; missed would read [.2] and wait.
    expect(await eventIds(response.body!, 2)).toEqual(["0123456789ab.1", "0123456789ab.2"]);
  });

  it("replays a message whose write had not landed when the client resumed, once it lands: the replay waits for it", async () => {
    const storage = new HeldWriteStorage();
    const { stream } = setup(storage);
    // m1 is numbered (seq 1) and its write is under way, not yet in storage, when the client
    // resumes: it is not live for the new connection (numbered before it), so only the replay
    // can carry it, and the replay must wait for the write rather than list storage at once.
    const sent = stream.notify('{"jsonrpc":"2.0","method":"m1"}');
    expect(storage.held).toHaveLength(1);
    const response = stream.resume(0);
    storage.release();
    await sent;
    stream.finish();
    // Without the wait the connection ends having carried nothing: m1 lost.
    expect(await eventIds(response.body!, 1)).toEqual(["0123456789ab.1"]);
  });

  it("delivers a message sent after the replay was read live, after the replay, in order", async () => {
    const { stream } = setup();
    await stream.notify('{"jsonrpc":"2.0","method":"m1"}');
    await stream.notify('{"jsonrpc":"2.0","method":"m2"}');
    const response = stream.resume(1);
    await stream.notify('{"jsonrpc":"2.0","method":"m3"}');
    expect(await eventIds(response.body!, 2)).toEqual(["0123456789ab.2", "0123456789ab.3"]);
  });

  it("numbers on from the last stored event after a reload", async () => {
    const storage = new MemoryStorage();
    const first = setup(storage);
    await first.stream.notify('{"jsonrpc":"2.0","method":"m1"}');
    const events = new EventStore(storage, first.events.limits);
    await events.load();
    const again = new ResumableStream({ id: "0123456789ab", budget: new QueueBudget({ maxBytes: 1_000_000, maxMessages: 100 }), events, keepaliveIntervalMs: 60_000, log: new Logger("error"), lastSeq: events.lastSeq("0123456789ab") });
    const response = again.resume(0);
    await again.notify('{"jsonrpc":"2.0","method":"m2"}');
    expect(await eventIds(response.body!, 2)).toEqual(["0123456789ab.1", "0123456789ab.2"]);
  });
});

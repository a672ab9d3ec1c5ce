import { describe, expect, it } from "vitest";
import { resourceTopic } from "./Broadcaster.ts";
import { MemoryBroadcaster } from "./MemoryBroadcaster.ts";

const decoder = new TextDecoder();

/** Everything `stream` yields until it closes, as text; rejects if the stream errors. */
async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  let text = "";
  for await (const chunk of stream) text += decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}

/** The JSON messages in NDJSON `text`. */
const lines = (text: string) => text.split("\n").filter(Boolean).map((line) => JSON.parse(line) as unknown);

describe("MemoryBroadcaster", () => {
  it("delivers each message to every subscriber of its topic as one JSON line", async () => {
    const broadcaster = new MemoryBroadcaster(65_536);
    const stop = new AbortController();
    const first = await broadcaster.subscribe("tools", stop.signal);
    const second = await broadcaster.subscribe("tools", stop.signal);
    const message = { jsonrpc: "2.0", method: "notifications/tools/list_changed" };
    await broadcaster.publish("tools", message);
    await broadcaster.publish("tools", { n: 2, text: "line\nbreak" });
    stop.abort();
    const [a, b] = await Promise.all([readAll(first), readAll(second)]);
    expect(a).toBe(`${JSON.stringify(message)}\n{"n":2,"text":"line\\nbreak"}\n`);
    expect(b).toBe(a);
  });

  it("delivers only to subscribers of the published topic", async () => {
    const broadcaster = new MemoryBroadcaster(65_536);
    const stop = new AbortController();
    const tools = await broadcaster.subscribe("tools", stop.signal);
    const readme = await broadcaster.subscribe(resourceTopic("file:///readme"), stop.signal);
    const other = await broadcaster.subscribe(resourceTopic("file:///readme2"), stop.signal);
    await broadcaster.publish(resourceTopic("file:///readme"), { uri: "file:///readme" });
    await broadcaster.publish("tools", { kind: "tools" });
    await broadcaster.publish("prompts", { kind: "prompts" });
    stop.abort();
    expect(lines(await readAll(tools))).toEqual([{ kind: "tools" }]);
    expect(lines(await readAll(readme))).toEqual([{ uri: "file:///readme" }]);
    expect(lines(await readAll(other))).toEqual([]);
  });

  it("publishes to a topic nobody listens to without error", async () => {
    await expect(new MemoryBroadcaster(1_024).publish("nobody", { x: 1 })).resolves.toBeUndefined();
  });

  it("does not deliver what was published before subscribing", async () => {
    const broadcaster = new MemoryBroadcaster(65_536);
    const stop = new AbortController();
    await broadcaster.publish("tools", { early: true });
    const late = await broadcaster.subscribe("tools", stop.signal);
    await broadcaster.publish("tools", { early: false });
    stop.abort();
    expect(lines(await readAll(late))).toEqual([{ early: false }]);
  });

  it("counts subscribers per topic", async () => {
    const broadcaster = new MemoryBroadcaster(1_024);
    expect(broadcaster.count("tools")).toBe(0);
    const one = new AbortController();
    const two = new AbortController();
    await broadcaster.subscribe("tools", one.signal);
    await broadcaster.subscribe("tools", two.signal);
    await broadcaster.subscribe("prompts", one.signal);
    expect(broadcaster.count("tools")).toBe(2);
    expect(broadcaster.count("prompts")).toBe(1);
    expect(broadcaster.count("resources")).toBe(0);
    two.abort();
    expect(broadcaster.count("tools")).toBe(1);
    one.abort();
    expect(broadcaster.count("tools")).toBe(0);
    expect(broadcaster.count("prompts")).toBe(0);
  });

  it("closes the stream and removes the subscriber when its signal aborts", async () => {
    const broadcaster = new MemoryBroadcaster(1_024);
    const stop = new AbortController();
    const keep = new AbortController();
    const stream = await broadcaster.subscribe("tools", stop.signal);
    const kept = await broadcaster.subscribe("tools", keep.signal);
    const reader = stream.getReader();
    const pending = reader.read();
    stop.abort();
    expect(await pending).toEqual({ done: true, value: undefined });
    expect(broadcaster.count("tools")).toBe(1);
    await broadcaster.publish("tools", { after: true });
    keep.abort();
    expect(lines(await readAll(kept))).toEqual([{ after: true }]);
  });

  it("hands out an already closed stream for an aborted signal", async () => {
    const broadcaster = new MemoryBroadcaster(1_024);
    const stream = await broadcaster.subscribe("tools", AbortSignal.abort());
    expect(broadcaster.count("tools")).toBe(0);
    await broadcaster.publish("tools", { x: 1 });
    expect(await readAll(stream)).toBe("");
  });

  it("removes a subscriber whose stream is cancelled, and aborting later is harmless", async () => {
    const broadcaster = new MemoryBroadcaster(1_024);
    const stop = new AbortController();
    const stream = await broadcaster.subscribe("tools", stop.signal);
    await stream.cancel("gone");
    expect(broadcaster.count("tools")).toBe(0);
    await expect(broadcaster.publish("tools", { x: 1 })).resolves.toBeUndefined();
    expect(() => stop.abort()).not.toThrow();
    expect(broadcaster.count("tools")).toBe(0);
  });

  it("ends a subscriber that falls more than maxBytes behind while others keep receiving", async () => {
    const line = (i: number) => `${JSON.stringify({ pad: "x".repeat(90), i })}\n`;
    const broadcaster = new MemoryBroadcaster(line(0).length * 3);
    const stop = new AbortController();
    const slow = await broadcaster.subscribe("tools", stop.signal);
    const fast = await broadcaster.subscribe("tools", stop.signal);
    const fastReader = fast.getReader();
    for (let i = 0; i < 5; i++) {
      await broadcaster.publish("tools", { pad: "x".repeat(90), i });
      const { value } = await fastReader.read();
      expect(decoder.decode(value)).toBe(line(i));
    }
    expect(broadcaster.count("tools")).toBe(1);
    // A close, not an error: the slow reader gets what fitted, then an ordinary end.
    expect(await readAll(slow)).toBe(line(0) + line(1) + line(2));
    // Aborting afterwards closes the survivor and does not trip over the ended one.
    stop.abort();
    expect((await fastReader.read()).done).toBe(true);
    expect(broadcaster.count("tools")).toBe(0);
  });

  it("keeps a subscriber whose backlog fits in maxBytes exactly, and ends it at the next byte", async () => {
    const line = `${JSON.stringify({ a: 1 })}\n`;
    const broadcaster = new MemoryBroadcaster(line.length * 2);
    const stop = new AbortController();
    const stream = await broadcaster.subscribe("t", stop.signal);
    await broadcaster.publish("t", { a: 1 });
    await broadcaster.publish("t", { a: 1 });
    expect(broadcaster.count("t")).toBe(1);
    await broadcaster.publish("t", { a: 2 });
    expect(broadcaster.count("t")).toBe(0);
    await broadcaster.publish("t", { a: 3 });
    expect(await readAll(stream)).toBe(line + line);
  });

  it("lets a subscriber that keeps reading receive far more than maxBytes", async () => {
    const broadcaster = new MemoryBroadcaster(64);
    const stop = new AbortController();
    const reader = (await broadcaster.subscribe("t", stop.signal)).getReader();
    let text = "";
    for (let i = 0; i < 100; i++) {
      await broadcaster.publish("t", { i, pad: "y".repeat(30) });
      text += decoder.decode((await reader.read()).value);
    }
    expect(broadcaster.count("t")).toBe(1);
    expect(lines(text)).toHaveLength(100);
    stop.abort();
  });

  it("still delivers one message larger than the bound to a subscriber with nothing unread", async () => {
    const broadcaster = new MemoryBroadcaster(64);
    const stop = new AbortController();
    const stream = await broadcaster.subscribe("tools", stop.signal);
    const reader = stream.getReader();
    const big = { pad: "x".repeat(200) };
    await broadcaster.publish("tools", big);
    expect(broadcaster.count("tools")).toBe(1);
    expect(JSON.parse(decoder.decode((await reader.read()).value))).toEqual(big);
    // With that one unread, the next publish finds it behind and ends it.
    await broadcaster.publish("tools", big);
    await broadcaster.publish("tools", big);
    expect(broadcaster.count("tools")).toBe(0);
  });
});

import { describe, expect, it } from "vitest";
import { resourceTopic, taskTopic } from "../../shared/broadcast/Broadcaster.ts";
import { FanOut } from "./FanOut.ts";

const decoder = new TextDecoder();

/** Everything `stream` yields until it closes, as JSON messages. */
async function readAll(stream: ReadableStream<Uint8Array>): Promise<unknown[]> {
  let text = "";
  for await (const chunk of stream) text += decoder.decode(chunk, { stream: true });
  return text.split("\n").filter(Boolean).map((line) => JSON.parse(line) as unknown);
}

/** A feed that counts its starts and stops. */
function feed(fail?: Error) {
  const calls = { starts: 0, stops: 0 };
  const start = async () => {
    calls.starts++;
    if (fail) throw fail;
    return async () => {
      calls.stops++;
    };
  };
  return { calls, start };
}

describe("FanOut", () => {
  it("starts the feed for the first subscriber and stops it when the last leaves", async () => {
    const { calls, start } = feed();
    const fanOut = new FanOut(1_024, start);
    expect(fanOut.hearing).toBe(false);
    const one = new AbortController();
    const two = new AbortController();
    await Promise.all([fanOut.subscribe("tools", one.signal), fanOut.subscribe("prompts", two.signal)]);
    expect(fanOut.hearing).toBe(true);
    expect(calls).toEqual({ starts: 1, stops: 0 });
    one.abort();
    expect(fanOut.hearing).toBe(true);
    two.abort();
    expect(fanOut.hearing).toBe(false);
    await fanOut.subscribe("tools", new AbortController().signal);
    expect(calls).toEqual({ starts: 2, stops: 1 });
    await fanOut.close();
    expect(calls).toEqual({ starts: 2, stops: 2 });
  });

  it("delivers to the topic's subscribers only, and says which topics are wanted", async () => {
    const fanOut = new FanOut(1_024, feed().start);
    const stop = new AbortController();
    const tools = await fanOut.subscribe("tools", stop.signal);
    const prompts = await fanOut.subscribe("prompts", stop.signal);
    expect([fanOut.wants("tools"), fanOut.wants("resources")]).toEqual([true, false]);
    fanOut.deliver("tools", { n: 1 });
    fanOut.deliver("resources", { n: 2 });
    stop.abort();
    expect(await readAll(tools)).toEqual([{ n: 1 }]);
    expect(await readAll(prompts)).toEqual([]);
  });

  it("tells lists and resources to read again after lost changes, and ends a task's subscribers", async () => {
    const fanOut = new FanOut(1_024, feed().start);
    const stop = new AbortController();
    const tools = await fanOut.subscribe("tools", stop.signal);
    const readme = await fanOut.subscribe(resourceTopic("file:///readme"), stop.signal);
    const task = await fanOut.subscribe(taskTopic("t1"), stop.signal);
    const odd = await fanOut.subscribe("constructor", stop.signal);
    fanOut.deliver(taskTopic("t1"), { queued: true });
    fanOut.missed();
    // Ended after what it had queued: an ordinary end, and the client listens again.
    expect(await readAll(task)).toEqual([{ queued: true }]);
    expect(await readAll(odd)).toEqual([]);
    expect([fanOut.count(taskTopic("t1")), fanOut.wants(taskTopic("t1")), fanOut.count("tools")]).toEqual([0, false, 1]);
    fanOut.missed("tools");
    stop.abort();
    const listChanged = { jsonrpc: "2.0", method: "notifications/tools/list_changed" };
    expect(await readAll(tools)).toEqual([listChanged, listChanged]);
    expect(await readAll(readme)).toEqual([{ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: "file:///readme" } }]);
  });

  it("rejects a subscriber whose feed fails to start, holding nothing, and tries again for the next", async () => {
    const failing = feed(new Error("no database"));
    const fanOut = new FanOut(1_024, failing.start);
    await expect(fanOut.subscribe("tools", new AbortController().signal)).rejects.toThrow("no database");
    expect(fanOut.count("tools")).toBe(0);
    expect(fanOut.hearing).toBe(false);
    await expect(fanOut.subscribe("tools", new AbortController().signal)).rejects.toThrow("no database");
    expect(failing.calls.starts).toBe(2);
  });

  it("hands an aborted signal a closed stream without starting the feed", async () => {
    const { calls, start } = feed();
    const fanOut = new FanOut(1_024, start);
    expect(await readAll(await fanOut.subscribe("tools", AbortSignal.abort()))).toEqual([]);
    expect(calls.starts).toBe(0);
  });

  it("ends a subscriber that falls more than maxBytes behind while another of its topic keeps receiving", async () => {
    const message = (i: number) => ({ i, pad: "x".repeat(90) });
    const fanOut = new FanOut(JSON.stringify(message(0)).length * 3 + 3, feed().start);
    const stop = new AbortController();
    const slow = await fanOut.subscribe("tools", stop.signal);
    const fast = (await fanOut.subscribe("tools", stop.signal)).getReader();
    for (let i = 0; i < 5; i++) {
      fanOut.deliver("tools", message(i));
      expect(JSON.parse(decoder.decode((await fast.read()).value))).toEqual(message(i));
    }
    expect(fanOut.count("tools")).toBe(1);
    expect(await readAll(slow)).toEqual([message(0), message(1), message(2)]);
    stop.abort();
    expect(fanOut.hearing).toBe(false);
  });
});

import { describe, expect, it } from "vitest";
import { EventStore, eventKey } from "./EventStore.ts";
import { MemoryStorage } from "../storage/MemoryStorage.ts";

const enc = (text: string) => new TextEncoder().encode(text);
const texts = (frames: Uint8Array[]) => frames.map((f) => new TextDecoder().decode(f));

const limits = { maxEvents: 5, maxBytes: 1_000, maxEventBytes: 300 };

describe("EventStore", () => {
  it("stores frames under zero-padded keys and replays strictly after a sequence number, in order", async () => {
    const storage = new MemoryStorage();
    const store = new EventStore(storage, limits);
    for (let seq = 1; seq <= 3; seq++) expect(await store.append("s1", seq, enc(`frame ${seq}`))).toBe(true);
    await store.append("s2", 1, enc("other stream"));
    expect(texts([(await storage.get<Uint8Array>(eventKey("s1", 2)))!])).toEqual(["frame 2"]);
    expect(eventKey("s1", 2)).toBe("ev:s1:0000000002");
    expect(texts(await store.after("s1", 1))).toEqual(["frame 2", "frame 3"]);
    expect(texts(await store.after("s1", 0))).toEqual(["frame 1", "frame 2", "frame 3"]);
    expect(texts(await store.after("s1", 3))).toEqual([]);
    // Never another stream's events, even when one stream id prefixes another.
    await store.append("s10", 1, enc("s10's"));
    expect(texts(await store.after("s1", 0))).not.toContain("s10's");
  });

  it("orders by sequence number numerically, not as text", async () => {
    const store = new EventStore(new MemoryStorage(), { ...limits, maxEvents: 100 });
    for (const seq of [9, 10, 11]) await store.append("s", seq, enc(`f${seq}`));
    expect(texts(await store.after("s", 9))).toEqual(["f10", "f11"]);
  });

  it("refuses an event over maxEventBytes and stores nothing", async () => {
    const storage = new MemoryStorage();
    const store = new EventStore(storage, limits);
    expect(await store.append("s", 1, enc("x".repeat(301)))).toBe(false);
    expect(await storage.list("ev:")).toEqual(new Map());
    expect(store.has("s")).toBe(false);
  });

  it("evicts the oldest events past maxEvents", async () => {
    const storage = new MemoryStorage();
    const store = new EventStore(storage, limits);
    for (let seq = 1; seq <= 7; seq++) await store.append("s", seq, enc(`f${seq}`));
    expect(store.stats.events).toBe(5);
    expect(texts(await store.after("s", 0))).toEqual(["f3", "f4", "f5", "f6", "f7"]);
    expect((await storage.list("ev:")).size).toBe(5);
  });

  it("evicts the oldest events past maxBytes, and forgets streams left with none", async () => {
    const store = new EventStore(new MemoryStorage(), { maxEvents: 100, maxBytes: 500, maxEventBytes: 300 });
    await store.append("old", 1, enc("a".repeat(250)));
    await store.append("new", 1, enc("b".repeat(250)));
    expect(store.has("old")).toBe(true);
    await store.append("new", 2, enc("c".repeat(100)));
    expect(store.stats.bytes).toBe(350);
    expect(store.has("old")).toBe(false);
    expect(texts(await store.after("new", 0))).toHaveLength(2);
  });

  it("rebuilds its index from storage", async () => {
    const storage = new MemoryStorage();
    const first = new EventStore(storage, limits);
    await first.append("s", 1, enc("é")); // 2 bytes in UTF-8
    await first.append("t", 1, enc("abc"));
    const second = new EventStore(storage, limits);
    expect(second.has("s")).toBe(false);
    await second.load();
    expect(second.has("s")).toBe(true);
    expect(second.stats).toEqual({ events: 2, bytes: 5 });
    expect(texts(await second.after("t", 0))).toEqual(["abc"]);
  });
});

describe("EventStore: what a reloaded stream needs", () => {
  it("knows each stream's last sequence number, also after a reload", async () => {
    const storage = new MemoryStorage();
    const first = new EventStore(storage, limits);
    for (const seq of [1, 2, 12]) await first.append("s", seq, enc(`f${seq}`));
    expect(first.lastSeq("s")).toBe(12);
    expect(first.lastSeq("unknown")).toBe(0);
    const second = new EventStore(storage, limits);
    await second.load();
    expect(second.lastSeq("s")).toBe(12);
  });

  it("replays a range: after one sequence number, up to another", async () => {
    const store = new EventStore(new MemoryStorage(), { ...limits, maxEvents: 100 });
    for (let seq = 1; seq <= 5; seq++) await store.append("s", seq, enc(`f${seq}`));
    expect(texts(await store.after("s", 1, 3))).toEqual(["f2", "f3"]);
    expect(texts(await store.after("s", 0, 0))).toEqual([]);
  });
});

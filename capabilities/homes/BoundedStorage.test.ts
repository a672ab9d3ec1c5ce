import { describe, expect, it } from "vitest";
import { storedSize } from "../../shared/bytes/storedSize.ts";
import { MemoryStorage } from "../../shared/storage/MemoryStorage.ts";
import { BoundedStorage, MAX_HOME_KEY_CHARS, MAX_HOME_VALUE_BYTES } from "./BoundedStorage.ts";
import { type HomeRecord, RECORD_KEY } from "./HomeRecord.ts";

function home(limits = { maxBytes: 10_000, maxKeys: 5 }, store = new MemoryStorage()) {
  const commits: { record: HomeRecord; created: boolean }[] = [];
  const fresh = (): HomeRecord => ({ kind: "user", owner: "alice", createdAt: 1, usedAt: 1, keys: 0, bytes: 0 });
  const storage = new BoundedStorage(store, limits, fresh, (record, created) => void commits.push({ record, created }));
  return { store, storage, commits };
}

describe("BoundedStorage", () => {
  it("makes the home with its first write, and keeps the record's counts those of what is stored", async () => {
    const { store, storage, commits } = home();
    expect(await storage.get("notes")).toBeUndefined();
    expect(await store.get(RECORD_KEY)).toBeUndefined();
    await storage.put("notes", ["a"]);
    await storage.put("notes", ["a", "b"]);
    await storage.put("n", 1);
    const record = (await store.get<HomeRecord>(RECORD_KEY))!;
    expect(record).toMatchObject({ kind: "user", owner: "alice", keys: 2, bytes: storedSize("notes") + storedSize(["a", "b"]) + storedSize("n") + storedSize(1) });
    expect(record.usedAt).toBeGreaterThan(1);
    expect(commits.map((c) => c.created)).toEqual([true, false, false]);
    expect(await storage.delete("n")).toBe(true);
    expect(await storage.delete("n")).toBe(false);
    expect((await store.get<HomeRecord>(RECORD_KEY))!).toMatchObject({ keys: 1, bytes: storedSize("notes") + storedSize(["a", "b"]) });
    // The handler's keys live apart from the record: none of them can overwrite it.
    await storage.put(RECORD_KEY, "mine");
    expect([...(await storage.list(""))].map(([key]) => key)).toEqual(["home", "notes"]);
    expect((await store.get<HomeRecord>(RECORD_KEY))!.kind).toBe("user");
  });

  it("refuses a new key past MAX_HOME_KEYS, saying so, and still lets existing keys change", async () => {
    const { storage } = home({ maxBytes: 1_000_000, maxKeys: 2 });
    await storage.put("a", 1);
    await storage.put("b", 2);
    await expect(storage.put("c", 3)).rejects.toThrow(/This storage is full: it holds 2 keys, the most it may \(MAX_HOME_KEYS\)/);
    await storage.put("a", 10);
    expect(await storage.get("a")).toBe(10);
    expect(await storage.get("c")).toBeUndefined();
  });

  it("refuses a write that would pass MAX_HOME_BYTES, and takes one that shrinks", async () => {
    const { storage, store } = home({ maxBytes: 1_000, maxKeys: 100 });
    await storage.put("big", "x".repeat(900));
    await expect(storage.put("more", "y".repeat(200))).rejects.toThrow(/past the 1000 it may hold \(MAX_HOME_BYTES\)/);
    await expect(storage.put("big", "x".repeat(1_000))).rejects.toThrow(/MAX_HOME_BYTES/);
    await storage.put("big", "small");
    expect((await store.get<HomeRecord>(RECORD_KEY))!.bytes).toBe(storedSize("big") + storedSize("small"));
  });

  it("refuses a value larger than one key holds, and keys that are empty or too long", async () => {
    const { storage } = home({ maxBytes: 10 * MAX_HOME_VALUE_BYTES, maxKeys: 10 });
    await expect(storage.put("huge", new Uint8Array(MAX_HOME_VALUE_BYTES + 1))).rejects.toThrow(`takes more than ${MAX_HOME_VALUE_BYTES} bytes`);
    await expect(storage.put("", 1)).rejects.toThrow(RangeError);
    await expect(storage.put("k".repeat(MAX_HOME_KEY_CHARS + 1), 1)).rejects.toThrow(`1 to ${MAX_HOME_KEY_CHARS} characters`);
    await expect(storage.get("k".repeat(MAX_HOME_KEY_CHARS + 1))).rejects.toThrow(RangeError);
  });

  it("takes a backend's own smaller value limit (Deno KV's)", async () => {
    const store = Object.assign(new MemoryStorage(), { maxValueBytes: 100 });
    const { storage } = home({ maxBytes: 10_000, maxKeys: 10 }, store);
    await expect(storage.put("v", "z".repeat(200))).rejects.toThrow("takes more than 100 bytes");
  });

  it("applies a transaction whole or not at all, counts included", async () => {
    const { storage, store } = home();
    await storage.put("a", 1);
    await expect(
      storage.transaction(async (txn) => {
        await txn.put("b", 2);
        await txn.delete("a");
        throw new Error("no");
      }),
    ).rejects.toThrow("no");
    expect(await storage.get("a")).toBe(1);
    expect((await store.get<HomeRecord>(RECORD_KEY))!.keys).toBe(1);
    const total = await storage.transaction(async (txn) => {
      const n = (await txn.get<number>("a"))!;
      await txn.put("a", n + 1);
      return n + 1;
    });
    expect(total).toBe(2);
  });

  it("loses no update when many read-modify-writes race", async () => {
    const { storage } = home({ maxBytes: 100_000, maxKeys: 10 });
    await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        storage.transaction(async (txn) => {
          const notes = (await txn.get<number[]>("notes")) ?? [];
          await txn.put("notes", [...notes, i]);
        }),
      ),
    );
    expect(((await storage.get<number[]>("notes")) ?? []).sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, i) => i));
  });
});

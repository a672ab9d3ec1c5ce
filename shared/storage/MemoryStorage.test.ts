import { describe, expect, it } from "vitest";
import { MemoryStorage } from "./MemoryStorage.ts";

describe("MemoryStorage.atomically", () => {
  it("applies a transaction's writes together once it resolves, and none when it rejects", async () => {
    const store = new MemoryStorage();
    await store.put("a", 1);
    await expect(
      store.atomically(async (txn) => {
        txn.put("a", 2);
        txn.put("b", 3);
        expect(await txn.get("a")).toBe(2);
        throw new Error("changed my mind");
      }),
    ).rejects.toThrow("changed my mind");
    expect(await store.get("a")).toBe(1);
    expect(await store.get("b")).toBeUndefined();
    await store.atomically(async (txn) => {
      txn.put("b", 3);
      txn.delete("a");
      expect([...(await txn.list(""))]).toEqual([["b", 3]]);
    });
    expect([...(await store.list(""))]).toEqual([["b", 3]]);
  });

  it("runs one transaction at a time, so read-modify-writes lose nothing", async () => {
    const store = new MemoryStorage();
    const add = () =>
      store.atomically(async (txn) => {
        const n = (await txn.get<number>("n")) ?? 0;
        await new Promise((resolve) => setTimeout(resolve, 1));
        txn.put("n", n + 1);
      });
    await Promise.all(Array.from({ length: 20 }, add));
    expect(await store.get("n")).toBe(20);
  });
});

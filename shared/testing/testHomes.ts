/**
 * `testHomes()`: homes that outlive one `testClient`, for a test of state kept across clients —
 * a handle one client opened and a second uses (as after a reconnect), a user's home read back by
 * their next client. It holds only the homes' stores, in memory; each client given it hosts them
 * as a Durable Object would, over the same storage, and stops its own timers when it closes.
 * Made once per test, so one test's homes never show in another's.
 *
 * Not here: retention alarms that outlive a client (each client arms its own, and clears them
 * when it closes), or homes shared by several processes (Deno KV does that).
 *
 * @example
 * const homes = testHomes();
 * const first = await testClient(server, { homes });
 * const opened = await first.callTool("notebook", { action: "add", text: "milk" });
 * await first.close();
 * const second = await testClient(server, { homes }); // finds the notebook `opened` names
 */
import type { AtomicStore } from "../storage/AtomicStore.ts";
import { MemoryStorage } from "../storage/MemoryStorage.ts";

/** The stores of homes kept across `testClient`s, by home name. */
export interface TestHomes {
  /** One home's store, made on first use. */
  storeFor(name: string): AtomicStore;
  /** How many homes have a store here. */
  readonly size: number;
}

/** @example const homes = testHomes(); await testClient(server, { homes }); */
export function testHomes(): TestHomes {
  const stores = new Map<string, MemoryStorage>();
  return {
    storeFor(name) {
      let store = stores.get(name);
      if (!store) stores.set(name, (store = new MemoryStorage()));
      return store;
    },
    get size() {
      return stores.size;
    },
  };
}

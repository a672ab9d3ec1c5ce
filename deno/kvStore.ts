/**
 * A Deno KV file as a process's `Store`: sessions' storage under `["session", <id>]` (`KvStorage`,
 * loaded again at start), homes in the same file (`kvHomes`), and tasks there too (`KvTasks`), so
 * every process on one file shares them and picks up the tasks of a process that died; the fair
 * shares of sessions and tasks counted across the processes (`KvShares`, lapsed ones swept every
 * SWEEP_INTERVAL_MS); change notifications cross to every process on the file (`KvBroadcaster`);
 * the processes on the file are a fleet (`KvFleet`), each session held by one.
 *
 * `close()` closes the file: the caller opened it, and gives it up with the store.
 */
import { kvHomes } from "../capabilities/homes/deno/kvHomes.ts";
import { KvTasks } from "../capabilities/tasks/deno/KvTasks.ts";
import { KvBroadcaster } from "../capabilities/watch/deno/KvBroadcaster.ts";
import type { Store } from "../shared/runtime/Store.ts";
import { KvFleet } from "./kv/KvFleet.ts";
import { KvStorage } from "./kv/KvStorage.ts";
import { KvShares, SWEEP_INTERVAL_MS } from "./KvShares.ts";

/** @example const store = kvStore(await Deno.openKv("data.kv"), "data.kv"); */
export function kvStore(kv: Deno.Kv, path: string): Store {
  let broadcaster: KvBroadcaster | undefined;
  let fleet: KvFleet | undefined;
  let sweeping: Promise<unknown> = Promise.resolve();
  const sweep = () => {
    sweeping = KvShares.sweep(kv).catch((error) => console.error(`Sweeping lapsed fair shares in Deno KV at ${path} failed: ${error instanceof Error ? error.message : String(error)}`));
  };
  const sweeper = setInterval(sweep, SWEEP_INTERVAL_MS);
  sweep();
  return {
    description: `Deno KV at ${path}`,
    durable: true,
    storageFor: (id) => new KvStorage(kv, id),
    sessionIds: () => KvStorage.sessionIds(kv),
    homes: (options) => kvHomes(kv, options),
    tasks: (runtime) => new KvTasks(kv, runtime),
    shares: (config) => new KvShares(kv, config),
    broadcaster: (broadcast) => (broadcaster ??= new KvBroadcaster(kv, broadcast)),
    fleet: () => (fleet ??= new KvFleet(kv)),
    async close() {
      clearInterval(sweeper);
      // First: leaving deletes this process's keys, which needs the file open.
      await fleet?.leave();
      await broadcaster?.close();
      // A sweep under way finishes before the file it reads is closed.
      await sweeping;
      kv.close();
    },
  };
}

/**
 * Homes hosted in this process — the Deno server, stdio, tests — by the same `HomeHost` a Durable
 * Object hosts on Workers, with what the platform gives an object done by hand: one store per
 * home (memory, or Deno KV through `storeFor`, where several processes may share them) and one
 * alarm per home for its retention (`LocalAlarms`, which reaches deadlines past a timer's 24.8
 * days). `restore()` re-arms the alarms of stored homes after a restart; a process that stops
 * simply misses alarms until then, and a home past its retention is erased at the next restore
 * or run.
 *
 * In memory, a home is forgotten when it is erased.
 */
import type { Config } from "../config/readConfig.ts";
import type { Result } from "../definition/Method.ts";
import type { RequestContext } from "../definition/RequestContext.ts";
import type { Logger } from "../log/Logger.ts";
import type { ServerDefinition } from "../server/ServerDefinition.ts";
import type { AtomicStore } from "../storage/AtomicStore.ts";
import { MemoryStorage } from "../storage/MemoryStorage.ts";
import { LocalAlarms } from "../timers/LocalAlarms.ts";
import { HomeHost } from "./HomeHost.ts";
import { type HomeAddress, type HomeCall, homeName, type Homes } from "./Homes.ts";

export interface LocalHomesOptions {
  server: ServerDefinition;
  config: Config;
  logger: Logger;
  /** One home's store, by its name; each name must get its own keyspace. Default: in memory. */
  storeFor?(name: string): AtomicStore;
}

export class LocalHomes implements Homes {
  readonly #options: LocalHomesOptions;
  readonly #alarms = new LocalAlarms();
  readonly #memory = new Map<string, MemoryStorage>();

  constructor(options: LocalHomesOptions) {
    this.#options = options;
  }

  /** Homes held in memory now (none when they live in Deno KV). */
  get size(): number {
    return this.#memory.size;
  }

  run(address: HomeAddress, call: HomeCall, ctx: RequestContext): Promise<Result> {
    return this.#host(homeName(address)).run(address, call, ctx);
  }

  erase(owner: string): Promise<void> {
    const name = homeName({ kind: "user", owner });
    return this.#host(name)
      .erase("erased on request")
      .then(() => this.#forget(name));
  }

  /** Wakes these stored homes (after a restart): erases those past their retention, re-arms the others. */
  async restore(names: Iterable<string>): Promise<void> {
    for (const name of names) await this.#wake(name);
  }

  /** Stops every timer: for a clean exit or the end of a test. Homes stay in their stores. */
  close(): void {
    this.#alarms.clearAll();
  }

  #host(name: string): HomeHost {
    const { server, config, logger, storeFor } = this.#options;
    return new HomeHost({
      server,
      config,
      logger,
      store: storeFor?.(name) ?? this.#memoryFor(name),
      schedule: async (at) => (at === undefined ? this.#alarms.clear(name) : this.#alarms.set(name, at, () => void this.#wake(name))),
    });
  }

  async #wake(name: string): Promise<void> {
    try {
      if ((await this.#host(name).wake()) === "erased") this.#forget(name);
    } catch (error) {
      this.#options.logger.error("home.wake-failed", { message: String(error) });
    }
  }

  #memoryFor(name: string): MemoryStorage {
    let store = this.#memory.get(name);
    if (!store) this.#memory.set(name, (store = new MemoryStorage()));
    return store;
  }

  #forget(name: string): void {
    this.#alarms.clear(name);
    this.#memory.delete(name);
  }
}

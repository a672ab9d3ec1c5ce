/**
 * Where a process keeps what outlives it: its sessions' storage (and which sessions to load again
 * at start), its homes, and whatever else a store brings (tasks, fair shares and a broadcaster
 * across processes).
 * A runtime asks for one store, once (`localRuntime`'s `store`), instead of wiring each host to a
 * backend of its own. Memory is the default (`memoryStore`): everything ends with the process.
 * Deno KV (`kvStore`) and PostgreSQL (`postgresStore`) keep it across restarts, shared by every
 * process on the same file or database.
 *
 * A member left out means "in memory, in this process": a store need not bring every kind of state.
 *
 * Not here: opening a backend (the runtime edges do, before they bind their port) or its limits
 * (the hosts above bound what they write).
 */
import type { Broadcaster } from "../broadcast/Broadcaster.ts";
import type { Config } from "../config/readConfig.ts";
import type { Fleet } from "./Fleet.ts";
import type { Logger } from "../log/Logger.ts";
import type { LocalHomeHost, LocalHomesOptions } from "../home/LocalHomesPart.ts";
import type { Shares } from "../shares/Shares.ts";
import type { KeyValueStore } from "../storage/KeyValueStore.ts";
import type { Tasks } from "../tasks/Tasks.ts";
import type { Runtime } from "./Runtime.ts";

/** A host of tasks in a process: it lives as long as its runtime, `start()` (if any) picks up what it keeps, and `close()` stops it. */
export type LocalTaskHost = Tasks & { eraseOwnedBy(owner: string): Promise<number>; start?(): void | Promise<void>; close(): void };

/** A host of homes over a store: `start()` wakes what fell due while no process ran, before the port is bound. */
export type StoredHomeHost = LocalHomeHost & { start(): Promise<void> };

/** What a store's task host is made from: the runtime it serves, with its fair shares. */
export interface StoreRuntime extends Runtime {
  readonly shares: Shares;
}

export interface Store {
  /** Where state is kept, in a few words for the start line ("in memory", "Deno KV at data.kv"); never a password. */
  readonly description: string;
  /** Whether what it keeps outlives the process. */
  readonly durable: boolean;
  /** One session's storage; each id its own keyspace. Absent: in memory. */
  storageFor?(sessionId: string): KeyValueStore;
  /** The sessions kept, to load again at start (those past their deadline are wiped then). */
  sessionIds?(): Promise<Iterable<string>>;
  /** The host of the server's homes over this store. Absent: the host `homes()` brings, in memory. */
  homes?(options: LocalHomesOptions): StoredHomeHost;
  /** The host of tasks over this store. Absent: the host `tasks()` brings, in this process. */
  tasks?(runtime: StoreRuntime): LocalTaskHost;
  /**
   * The fair shares (`Shares`) counted across the processes on this store, so a client holds its
   * share once in the fleet, not once per process; the totals are the fleet's too. Absent: counted
   * in this process (`LocalShares`).
   */
  shares?(config: Config): Shares;
  /**
   * Where change notifications fan out, across the processes on this store; made once, and closed
   * by `close()`. `maxBytes` bounds each subscriber's unread bytes and the largest message. Absent:
   * in memory, this process only.
   */
  broadcaster?(options: { maxBytes: number; logger: Logger }): Broadcaster;
  /**
   * The processes on this store, as a fleet whose 2025 sessions each have one holder that the
   * others carry requests to; made once, joined by the runtime's sessions. Absent: a client must
   * come back to the process that holds its session.
   */
  fleet?(): Fleet;
  /** Stops what the store runs (its timers) and lets go of its backend: after the hosts over it are closed. */
  close(): Promise<void>;
}

/** Nothing outside the process: the default. */
export function memoryStore(): Store {
  return { description: "in memory", durable: false, async close() {} };
}

/**
 * Sessions hosted in this process — the Deno server, tests — by the same `SessionHost` and
 * `Session` a Durable Object hosts on Workers. What the platform gives a Durable Object is done
 * here by hand: one host per session id, loaded from storage before its first use (so a
 * restarted process with persistent storage continues its sessions), and an alarm per session
 * for its wakeups (`LocalAlarms`, which reaches deadlines past a timer's 24.8 days).
 * `restore()` reloads stored sessions at startup: those past their stored deadline are wiped
 * then (a restart resurrects nothing), the others expire on time.
 *
 * Memory is bounded by live sessions: a host whose session ended, or that never had one (a
 * forged or expired id answered 404), is dropped after the operation. Storage comes from
 * `storageFor(id)`, memory by default; see `deno/KvStorage.ts` for Deno KV.
 */
import type { Broadcaster } from "../broadcast/Broadcaster.ts";
import type { Homes } from "../home/Homes.ts";
import type { Config } from "../config/readConfig.ts";
import { toResponse } from "../http/Answer.ts";
import type { Logger } from "../log/Logger.ts";
import { logId } from "../log/logId.ts";
import type { ServerEnv } from "../definition/RequestContext.ts";
import type { ServerDefinition } from "../server/ServerDefinition.ts";
import type { KeyValueStore } from "../storage/KeyValueStore.ts";
import { MemoryStorage } from "../storage/MemoryStorage.ts";
import { LocalAlarms } from "../timers/LocalAlarms.ts";
import { SessionHost } from "./SessionHost.ts";
import type { SessionOperation, Sessions } from "./SessionOperation.ts";

export interface LocalSessionsOptions {
  server: ServerDefinition;
  config: Config;
  logger: Logger;
  env: ServerEnv;
  broadcast: Broadcaster;
  /** Where definitions with a home of their own run; undefined where none are hosted. */
  homes?: Homes;
  /** One session's storage; each id must get its own keyspace. Default: in memory. */
  storageFor?(sessionId: string): KeyValueStore;
}

export class LocalSessions implements Sessions {
  readonly #options: LocalSessionsOptions;
  readonly #hosts = new Map<string, SessionHost>();
  readonly #alarms = new LocalAlarms();
  readonly #memory = new Map<string, MemoryStorage>();

  constructor(options: LocalSessionsOptions) {
    this.#options = options;
  }

  /** Sessions in memory now (live ones, and any being loaded). */
  get size(): number {
    return this.#hosts.size;
  }

  async apply(operation: SessionOperation): Promise<Response> {
    const id = operation.sessionId;
    const host = this.#host(id);
    try {
      return toResponse(await host.apply(operation));
    } finally {
      this.#forgetIfEnded(id, host);
    }
  }

  /** Loads these stored sessions and arms their idle expiry (after a restart with persistent storage). */
  async restore(ids: Iterable<string>): Promise<void> {
    for (const id of ids) {
      const host = this.#host(id);
      await host.wakeup();
      this.#forgetIfEnded(id, host);
    }
  }

  /** Stops every timer: for a clean process exit or the end of a test. Sessions stay in storage. */
  close(): void {
    this.#alarms.clearAll();
  }

  #host(id: string): SessionHost {
    let host = this.#hosts.get(id);
    if (host) return host;
    const { server, config, logger, env, broadcast, homes, storageFor } = this.#options;
    host = new SessionHost({
      server,
      config,
      logger,
      env,
      broadcast,
      homes,
      storage: storageFor?.(id) ?? this.#memoryFor(id),
      // A Durable Object alarm: one per session, a new one replaces the old.
      scheduleWakeup: async (atMs) =>
        this.#alarms.set(id, atMs, () => {
          host!
            .wakeup()
            .catch((error) => this.#options.logger.error("session.wakeup-failed", { session: logId(id), message: String(error) }))
            .then(() => this.#forgetIfEnded(id, host!));
        }),
    });
    this.#hosts.set(id, host);
    return host;
  }

  #memoryFor(id: string): MemoryStorage {
    let storage = this.#memory.get(id);
    if (!storage) this.#memory.set(id, (storage = new MemoryStorage()));
    return storage;
  }

  #forgetIfEnded(id: string, host: SessionHost): void {
    if (host.live || this.#hosts.get(id) !== host) return;
    this.#hosts.delete(id);
    this.#memory.delete(id);
    this.#alarms.clear(id);
  }
}

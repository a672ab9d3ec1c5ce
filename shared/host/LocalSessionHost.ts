/**
 * Sessions hosted in this process — the Deno server, tests — by the same `SessionEndpoint` and
 * `Session` a Durable Object hosts on Workers. What the platform gives a Durable Object is done
 * here by hand: one endpoint per session id, loaded from storage before its first use (so a
 * restarted process with persistent storage continues its sessions), and a timer per session
 * for its wakeups (the alarm). `restore()` reloads stored sessions at startup so that those no
 * client returns to still expire on time.
 *
 * Memory is bounded by live sessions: an endpoint whose session ended, or that never had one (a
 * forged or expired id answered 404), is dropped after the call. Storage comes from
 * `storageFor(id)`, memory by default; see `deno/KvStorage.ts` for Deno KV.
 */
import type { Broadcaster } from "../broadcast/Broadcaster.ts";
import type { Config } from "../config/readConfig.ts";
import type { Logger } from "../log/Logger.ts";
import type { McpServer } from "../server/McpServer.ts";
import { MemoryStorage } from "../session/MemoryStorage.ts";
import { type SessionApi, SessionEndpoint } from "../session/SessionEndpoint.ts";
import type { SessionStorage } from "../session/SessionStorage.ts";
import type { SessionHost } from "./Runtime.ts";

export interface LocalHostOptions {
  server: McpServer;
  config: Config;
  logger: Logger;
  env: Readonly<Record<string, unknown>>;
  broadcast: Broadcaster;
  /** One session's storage; each id must get its own keyspace. Default: in memory. */
  storageFor?(sessionId: string): SessionStorage;
}

export class LocalSessionHost implements SessionHost {
  readonly #options: LocalHostOptions;
  readonly #endpoints = new Map<string, Promise<SessionEndpoint>>();
  readonly #timers = new Map<string, ReturnType<typeof setTimeout>>();
  readonly #memory = new Map<string, MemoryStorage>();

  constructor(options: LocalHostOptions) {
    this.#options = options;
  }

  /** Sessions in memory now (live ones, and any being loaded). */
  get size(): number {
    return this.#endpoints.size;
  }

  session(id: string): SessionApi {
    const call =
      <A extends unknown[], R>(method: (endpoint: SessionEndpoint, ...args: A) => Promise<R>) =>
      async (...args: A): Promise<R> => {
        const endpoint = await this.#endpoint(id);
        try {
          return await method(endpoint, ...args);
        } finally {
          this.#forgetIfEnded(id, endpoint);
        }
      };
    return {
      open: call((e, sessionId, options) => e.open(sessionId, options)),
      receive: call((e, sessionId, messages) => e.receive(sessionId, messages)),
      post: call((e, sessionId, messages, create) => e.post(sessionId, messages, create)),
      listen: call((e, sessionId, lastEventId) => e.listen(sessionId, lastEventId)),
      terminate: call((e, sessionId) => e.terminate(sessionId)),
    };
  }

  /** Loads these stored sessions and arms their idle expiry (after a restart with persistent storage). */
  async restore(ids: Iterable<string>): Promise<void> {
    for (const id of ids) {
      const endpoint = await this.#endpoint(id);
      await endpoint.wakeup();
      this.#forgetIfEnded(id, endpoint);
    }
  }

  /** Stops every timer: for a clean process exit or the end of a test. Sessions stay in storage. */
  close(): void {
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
  }

  #endpoint(id: string): Promise<SessionEndpoint> {
    let endpoint = this.#endpoints.get(id);
    if (!endpoint) {
      endpoint = this.#create(id);
      this.#endpoints.set(id, endpoint);
    }
    return endpoint;
  }

  async #create(id: string): Promise<SessionEndpoint> {
    const { server, config, logger, env, broadcast, storageFor } = this.#options;
    const storage = storageFor?.(id) ?? this.#memoryFor(id);
    const endpoint: SessionEndpoint = new SessionEndpoint({
      server,
      config,
      logger,
      env,
      broadcast,
      storage,
      // A Durable Object alarm: one per session, a new one replaces the old.
      scheduleWakeup: async (atMs) => {
        clearTimeout(this.#timers.get(id));
        const timer = setTimeout(() => {
          this.#timers.delete(id);
          void endpoint.wakeup().then(() => this.#forgetIfEnded(id, endpoint));
        }, Math.max(0, atMs - Date.now()));
        this.#timers.set(id, timer);
      },
    });
    await endpoint.load();
    return endpoint;
  }

  #memoryFor(id: string): MemoryStorage {
    let storage = this.#memory.get(id);
    if (!storage) this.#memory.set(id, (storage = new MemoryStorage()));
    return storage;
  }

  #forgetIfEnded(id: string, endpoint: SessionEndpoint): void {
    if (endpoint.live) return;
    void this.#endpoints.get(id)?.then((current) => {
      if (current !== endpoint || endpoint.live) return;
      this.#endpoints.delete(id);
      this.#memory.delete(id);
      clearTimeout(this.#timers.get(id));
      this.#timers.delete(id);
    });
  }
}

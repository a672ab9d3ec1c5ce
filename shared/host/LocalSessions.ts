/**
 * Sessions hosted in this process — the Deno server, tests — by the same `SessionHost` and
 * `Session` a Durable Object hosts on Workers. What the platform gives a Durable Object is done
 * here by hand: one host per session id, loaded from storage before its first use (so a
 * restarted process with persistent storage continues its sessions), and an alarm per session
 * for its wakeups (`LocalAlarms`, which reaches deadlines past a timer's 24.8 days).
 * `restore()` reloads stored sessions at startup: those past their stored deadline are wiped
 * then (a restart resurrects nothing), the others expire on time.
 *
 * Memory is bounded by live sessions, which fair shares bound (at most MAX_SESSIONS, and
 * MAX_SESSIONS_PER_CLIENT per client, less past half the total: a creation past either is 429): a host whose session ended,
 * or that never had one (a forged or expired id answered 404), is dropped after the operation. Its runtime (`localRuntime`) gives
 * the definition, config, homes and shares; storage comes from `storageFor(id)`, else the runtime's store (`Store`), else memory.
 */
import { type Answer, toResponse } from "../http/Answer.ts";
import { logId } from "../log/logId.ts";
import type { LocalRuntime } from "../runtime/localRuntime.ts";
import type { KeyValueStore } from "../storage/KeyValueStore.ts";
import { MemoryStorage } from "../storage/MemoryStorage.ts";
import { LocalAlarms } from "../timers/LocalAlarms.ts";
import { ResourceFollows } from "../session/ResourceFollows.ts";
import { SessionHost } from "./SessionHost.ts";
import type { SessionOperation, Sessions } from "./SessionOperation.ts";

/** What is a process's sessions' own, besides their runtime. */
export interface LocalSessionsOptions {
  /** One session's storage; each id must get its own keyspace. Default: the runtime's store's, else in memory. */
  storageFor?(sessionId: string): KeyValueStore;
  /** Called once a session is no longer in memory here: it ended, or never existed (an unknown id answered 404). */
  forgotten?(sessionId: string): void;
}

export class LocalSessions implements Sessions {
  readonly #runtime: LocalRuntime;
  readonly #options: LocalSessionsOptions;
  readonly #hosts = new Map<string, SessionHost>();
  readonly #alarms = new LocalAlarms();
  readonly #memory = new Map<string, MemoryStorage>();

  constructor(runtime: LocalRuntime, options: LocalSessionsOptions = {}) {
    this.#runtime = runtime;
    this.#options = options;
  }

  /** Sessions in memory now (live ones, and any being loaded). */
  get size(): number {
    return this.#hosts.size;
  }

  async apply(operation: SessionOperation): Promise<Response> {
    return toResponse(await this.answer(operation), this.#runtime.bodylessAnswers);
  }

  /** What `apply` answers, as the host made it: plain data where it is not a stream (which another process then gets by value). */
  async answer(operation: SessionOperation): Promise<Answer> {
    const id = operation.sessionId;
    const host = this.#host(id);
    try {
      return await host.apply(operation);
    } finally {
      this.#forgetIfEnded(id, host);
    }
  }

  /** Whether the session `id` is live in this process now. */
  has(id: string): boolean {
    return this.#hosts.get(id)?.live === true;
  }

  /** Loads these stored sessions, arms their idle expiry and counts their shares again (after a restart with persistent storage). */
  async restore(ids: Iterable<string>): Promise<void> {
    for (const id of ids) {
      const host = this.#host(id);
      await host.wakeup();
      const record = host.record;
      if (record?.shareKey !== undefined) await this.#runtime.shares.acquire("session", record.shareKey, id, { until: record.expiresAt, held: true });
      this.#forgetIfEnded(id, host);
    }
  }

  /** Loads the sessions the runtime's store kept (none in memory): at start, before serving. */
  async restoreStored(): Promise<void> {
    await this.restore(await this.storedIds());
  }

  /** The sessions the runtime's store kept: none in memory. */
  async storedIds(): Promise<Iterable<string>> {
    return (await this.#runtime.store?.sessionIds?.()) ?? [];
  }

  /** Ends every live session of the principal with this digest (a user's data erased on request); resolves with how many. */
  async endOwnedBy(owner: string): Promise<number> {
    const ids = [...this.#hosts].filter(([, host]) => host.record?.owner === owner).map(([id]) => id);
    for (const sessionId of ids) await this.apply({ kind: "end", sessionId, owner });
    return ids.length;
  }

  /** Stops every timer: for a clean process exit or the end of a test. Sessions stay in storage. */
  close(): void {
    this.#alarms.clearAll();
  }

  #host(id: string): SessionHost {
    let host = this.#hosts.get(id);
    if (host) return host;
    const { server, config, logger, env, broadcast, homes, shares, telemetry } = this.#runtime;
    host = new SessionHost({
      server,
      telemetry,
      config,
      logger,
      env,
      broadcast,
      homes,
      shares,
      storage: this.#storageFor(id),
      follows: ResourceFollows,
      // A Durable Object alarm: one per session, a new one replaces the old.
      scheduleWakeup: async (atMs) =>
        this.#alarms.set(id, atMs, () => {
          host!
            .wakeup()
            .catch((error) => logger.error("session.wakeup-failed", { session: logId(id), message: String(error) }))
            .then(() => this.#forgetIfEnded(id, host!));
        }),
    });
    this.#hosts.set(id, host);
    return host;
  }

  #storageFor(id: string): KeyValueStore {
    const storageFor = this.#options.storageFor ?? this.#runtime.store?.storageFor;
    return storageFor?.(id) ?? this.#memoryFor(id);
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
    this.#options.forgotten?.(id);
  }
}

/**
 * Homes hosted in this process — the Deno server, Node, stdio, tests — by the same `HomeHost` a
 * Durable Object hosts on Workers, with what the platform gives an object done by hand: one store
 * per home (memory, or Deno KV through `storeFor`, where several processes may share them), fair
 * shares of handles counted in each client's home as on Workers, and one index of when each home
 * is due to wake (`HomeExpiries`: in memory, or in KV with `expiries`) scanned by one timer.
 * `start()` wakes what fell due while no process ran; a process that stops simply misses wakeups
 * until then.
 *
 * In memory, a home is held from its first write until it is erased, and a store in use by a run
 * in between (so two calls on one new name share it); a call that only reads leaves nothing.
 * At most MAX_HANDLES handles' homes are held in memory (the handles' share in total); with KV,
 * no home is held in memory, and the total is not counted (as on Workers).
 */
import { delayFor } from "../../shared/config/timerLimits.ts";
import type { Result } from "../../shared/definition/Method.ts";
import type { RequestContext } from "../../shared/definition/RequestContext.ts";
import { type Checked, PASSED, refused } from "../../shared/errors/Checked.ts";
import { checkShare, type ShareLimit, shareLimits } from "../../shared/shares/ShareLimits.ts";
import type { ShareClaim, ShareResource, Shares } from "../../shared/shares/Shares.ts";
import { MemoryStorage } from "../../shared/storage/MemoryStorage.ts";
import { type HomeExpiries, MemoryHomeExpiries } from "./HomeExpiries.ts";
import { HomeHost } from "./HomeHost.ts";
import { clientHomeName, handleHomeName, type HomeAddress, type HomeCall, homeName } from "../../shared/home/Homes.ts";
import type { LocalHomeHost, LocalHomesOptions } from "../../shared/home/LocalHomesPart.ts";

/** How many due homes one sweep wakes before it looks again: a long backlog is worked through in batches. */
const SWEEP_BATCH = 100;
/** With homes shared by processes (KV), how often at least the index is read again: another process may have set an earlier time and stopped. */
const SHARED_SWEEP_INTERVAL_MS = 60 * 60 * 1000;
const HANDLE_PREFIX = handleHomeName("");

export interface LocalHomesHostOptions extends LocalHomesOptions {
  /** The index of when homes are due, where `storeFor` keeps them (Deno KV, PostgreSQL); default in memory. */
  expiries?: HomeExpiries;
}

export class LocalHomes implements LocalHomeHost {
  readonly #options: LocalHomesHostOptions;
  readonly #expiries: HomeExpiries;
  /** Homes in memory (none with `storeFor`): each held while it has a key, or a run uses it. */
  readonly #memory = new Map<string, MemoryStorage>();
  /** Runs using each in-memory store now. */
  readonly #users = new Map<string, number>();
  readonly #handleLimit: ShareLimit;
  /** Handle shares, counted in each client's home here as a home object counts them on Workers. */
  readonly #shares: Shares;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #armedAt = Number.POSITIVE_INFINITY;
  #closed = false;

  constructor(options: LocalHomesHostOptions) {
    this.#options = options;
    this.#expiries = options.expiries ?? new MemoryHomeExpiries();
    this.#handleLimit = shareLimits(options.config).handle;
    this.#shares = {
      acquire: (resource, client, id, claim) => this.#acquire(resource, client, id, claim),
      release: (resource, client, id) => this.#using(clientHomeName(client), (host) => host.releaseShare(resource, id)),
    };
  }

  /** Homes held in memory now (none when they live in Deno KV). */
  get size(): number {
    return this.#memory.size;
  }

  run(address: HomeAddress, call: HomeCall, ctx: RequestContext): Promise<Result> {
    return this.#using(homeName(address), (host) => host.run(address, call, ctx));
  }

  /** Erases the user's home and then the homes of the handles minted for them (their index is the user's holdings). */
  async erase(owner: string): Promise<void> {
    const held = await this.#using(homeName({ kind: "user", owner }), async (host) => {
      const holdings = await host.holdings();
      await host.erase("erased on request");
      return holdings;
    });
    for (const id of held.handle) await this.#using(handleHomeName(id), (host) => host.erase("erased on request"));
  }

  /** Wakes the homes that fell due while no process ran (erasing those past their retention), then arms the one timer. */
  async start(): Promise<void> {
    await this.#expiries.prepare?.(Date.now());
    await this.#sweep();
  }

  /** Stops the timer: for a clean exit or the end of a test. Homes stay in their stores. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#armedAt = Number.POSITIVE_INFINITY;
  }

  /** Runs `use` on the home named `name`, holding its in-memory store while it runs, and dropping it after if it holds nothing. */
  async #using<T>(name: string, use: (host: HomeHost) => Promise<T>): Promise<T> {
    const { server, config, logger, storeFor } = this.#options;
    const store = storeFor?.(name) ?? this.#memoryFor(name);
    const host = new HomeHost({ server, config, logger, store, shares: this.#shares, schedule: (at) => this.#schedule(name, at), scheduled: async () => (await this.#expiries.at(name)) ?? null });
    if (storeFor) return use(host);
    this.#users.set(name, (this.#users.get(name) ?? 0) + 1);
    try {
      return await use(host);
    } finally {
      const users = this.#users.get(name)! - 1;
      if (users > 0) this.#users.set(name, users);
      else {
        this.#users.delete(name);
        // Nothing stored, nothing to wake for: the name is forgotten, its time too.
        if (this.#memory.get(name)?.size === 0) {
          this.#memory.delete(name);
          await this.#expiries.clear(name);
        }
      }
    }
  }

  #memoryFor(name: string): MemoryStorage {
    let store = this.#memory.get(name);
    if (!store) this.#memory.set(name, (store = new MemoryStorage()));
    return store;
  }

  /** A client's share, in its home; in memory, the handles' total too: the homes held. */
  async #acquire(resource: ShareResource, client: string, id: string, claim: ShareClaim = {}): Promise<Checked<void>> {
    if (resource === "handle" && !this.#options.storeFor) {
      const over = checkShare({ ...this.#handleLimit, perClient: Number.POSITIVE_INFINITY }, { count: 0, bytes: 0 }, { count: this.#handlesHeld(id), bytes: 0 }, 0);
      if (over) return refused(over);
    }
    const limit = shareLimits(this.#options.config)[resource];
    const taken = await this.#using(clientHomeName(client), (host) => host.acquireShare(resource, id, claim, limit));
    return taken.ok ? PASSED : taken;
  }

  /** Handles' homes holding something in memory, besides `except`'s (the one asking). */
  #handlesHeld(except: string): number {
    let held = 0;
    const asking = handleHomeName(except);
    for (const [name, store] of this.#memory) if (name.startsWith(HANDLE_PREFIX) && store.size > 0 && name !== asking) held++;
    return held;
  }

  async #schedule(name: string, atMs: number | undefined): Promise<void> {
    if (atMs === undefined) return this.#expiries.clear(name);
    await this.#expiries.set(name, atMs);
    this.#arm(atMs);
  }

  /** Arms the one timer for `atMs` if that is sooner than it is armed for; a shared index is read again at least hourly. */
  #arm(atMs: number): void {
    if (this.#closed) return;
    const at = this.#options.expiries ? Math.min(atMs, Date.now() + SHARED_SWEEP_INTERVAL_MS) : atMs;
    if (at >= this.#armedAt) return;
    clearTimeout(this.#timer);
    this.#armedAt = at;
    // A time beyond one timer's reach fires early: the sweep then finds nothing due and arms again.
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#armedAt = Number.POSITIVE_INFINITY;
      void this.#sweep();
    }, delayFor(at));
  }

  /** Wakes every home due now, in batches, then arms the timer for the next. */
  async #sweep(): Promise<void> {
    try {
      for (;;) {
        const due = await this.#expiries.due(Date.now(), SWEEP_BATCH);
        for (const name of due) await this.#wake(name);
        if (due.length < SWEEP_BATCH) break;
      }
      const next = await this.#expiries.next();
      if (next !== undefined) this.#arm(next);
    } catch (error) {
      this.#options.logger.error("home.wake-failed", { message: String(error) });
      this.#arm(Date.now() + SHARED_SWEEP_INTERVAL_MS);
    }
  }

  async #wake(name: string): Promise<void> {
    try {
      // A home that is erased clears its own time; one found with nothing to keep is erased too.
      if ((await this.#using(name, (host) => host.wake())) === "erased") await this.#expiries.clear(name);
    } catch (error) {
      this.#options.logger.error("home.wake-failed", { message: String(error) });
      // Not woken: tried again at the next sweep, not in a loop.
      await this.#expiries.set(name, Date.now() + SHARED_SWEEP_INTERVAL_MS).catch(() => {});
    }
  }
}

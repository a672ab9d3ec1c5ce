/**
 * Fair shares counted in Deno KV, for what several processes sharing one KV file hold together —
 * their sessions and tasks (`kvStore`). Each client's holdings are one value,
 * `["share", <resource>, <client>]` → `{ [id]: { until, bytes } }` (at most its per-client bound
 * of entries: MAX_SESSIONS_PER_CLIENT, MAX_TASKS_PER_CLIENT), changed with an atomic check of what
 * was read, so two processes taking a client's last slot at once cannot both have it. The total
 * across clients, and what the client's network holds (`networkOf`, for the room kept for
 * newcomers), are summed from every client's value as it stands: two processes may pass them
 * together by a holding or two.
 * Holdings lapse at their `until`, and are dropped whenever their client's value is next changed,
 * or by the sweep (`KvShares.sweep`, which `kvStore` runs every SWEEP_INTERVAL_MS): a client that
 * never comes back leaves no value once its last holding lapsed.
 */
import type { Config } from "../shared/config/readConfig.ts";
import { type Checked, PASSED, refused } from "../shared/errors/Checked.ts";
import { networkOf } from "../shared/shares/clientKey.ts";
import { checkShare, type ShareLimit, shareLimits, tally } from "../shared/shares/ShareLimits.ts";
import type { Holding, ShareClaim, ShareResource, Shares } from "../shared/shares/Shares.ts";
import { pauseAfterConflict } from "./kv/pauseAfterConflict.ts";

const ROOT = "share";
/** Attempts of one change before it gives up: each failed one means another process changed the same client's holdings. */
const MAX_ATTEMPTS = 16;
/** How often each process sweeps lapsed holdings. */
export const SWEEP_INTERVAL_MS = 60_000;

type Holdings = Record<string, Holding>;

export class KvShares implements Shares {
  readonly #kv: Deno.Kv;
  readonly #limits: Record<ShareResource, ShareLimit>;

  constructor(kv: Deno.Kv, config: Config) {
    this.#kv = kv;
    this.#limits = shareLimits(config);
  }

  async acquire(resource: ShareResource, client: string, id: string, claim: ShareClaim = {}): Promise<Checked<void>> {
    const holding: Holding = { until: claim.until ?? Number.MAX_SAFE_INTEGER, bytes: claim.bytes ?? 0 };
    const refusal = await this.#change(resource, client, async (holdings, now) => {
      if (!(id in holdings) && !claim.held) {
        const mine = tally(Object.values(holdings));
        const others = await this.#others(resource, client, now);
        const network = networkOf(client) === client ? undefined : { count: others.network.count + mine.count, bytes: others.network.bytes + mine.bytes };
        const over = checkShare(this.#limits[resource], mine, { count: others.all.count + mine.count, bytes: others.all.bytes + mine.bytes }, holding.bytes, network);
        if (over) return over;
      }
      holdings[id] = holding;
      return undefined;
    });
    return refusal ? refused(refusal) : PASSED;
  }

  async release(resource: ShareResource, client: string, id: string): Promise<void> {
    await this.#change(resource, client, async (holdings) => {
      delete holdings[id];
      return undefined;
    });
  }

  /**
   * Drops the holdings past their `until` from every client's value, and deletes the values left
   * empty; resolves with how many values it changed. A value its client changed meanwhile is left
   * to that change (which drops lapsed holdings too) or to the next sweep.
   */
  static async sweep(kv: Deno.Kv, now = Date.now()): Promise<number> {
    let changed = 0;
    for await (const entry of kv.list<Holdings>({ prefix: [ROOT] })) {
      const holdings = live(entry.value, now);
      const left = Object.keys(holdings).length;
      if (left === Object.keys(entry.value).length) continue;
      const operation = kv.atomic().check(entry);
      if (left === 0) operation.delete(entry.key);
      else operation.set(entry.key, holdings);
      if ((await operation.commit()).ok) changed++;
    }
    return changed;
  }

  /** Applies `change` to the client's holdings (lapsed ones dropped first), checked against other processes; its refusal, if it refuses. */
  async #change<R>(resource: ShareResource, client: string, change: (holdings: Holdings, now: number) => Promise<R | undefined>): Promise<R | undefined> {
    const key = [ROOT, resource, client];
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      await pauseAfterConflict(attempt);
      const entry = await this.#kv.get<Holdings>(key);
      const now = Date.now();
      const holdings = live(entry.value ?? {}, now);
      const refusal = await change(holdings, now);
      if (refusal !== undefined) return refusal;
      const operation = this.#kv.atomic().check(entry);
      if (Object.keys(holdings).length === 0) operation.delete(key);
      else operation.set(key, holdings);
      if ((await operation.commit()).ok) return undefined;
    }
    throw new Error(`Fair shares are busy: another process kept changing this client's holdings, ${MAX_ATTEMPTS} times in a row`);
  }

  /** What every other client holds of `resource` now, and those of `client`'s network. */
  async #others(resource: ShareResource, client: string, now: number): Promise<{ all: { count: number; bytes: number }; network: { count: number; bytes: number } }> {
    const network = networkOf(client);
    const all: Holding[] = [];
    const neighbours: Holding[] = [];
    for await (const entry of this.#kv.list<Holdings>({ prefix: [ROOT, resource] })) {
      const other = entry.key[2];
      if (other === client) continue;
      const held = Object.values(live(entry.value, now));
      all.push(...held);
      if (typeof other === "string" && networkOf(other) === network) neighbours.push(...held);
    }
    return { all: tally(all), network: tally(neighbours) };
  }
}

function live(holdings: Holdings, now: number): Holdings {
  return Object.fromEntries(Object.entries(holdings).filter(([, holding]) => holding.until > now));
}

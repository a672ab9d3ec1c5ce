/**
 * Fair shares counted in this process (Deno, Node, stdio, tests): per client, per network and in
 * total, one table per resource (see `ShareLimits.ts` for the room kept for newcomers). Holdings
 * with an `until` lapse by themselves; the rest last until released. Memory is bounded by what it
 * counts: a holding exists only while its session or task does.
 */
import type { Config } from "../config/readConfig.ts";
import { type Checked, PASSED, refused } from "../errors/Checked.ts";
import { networkOf } from "./clientKey.ts";
import { checkShare, type ShareLimit, shareLimits, tally } from "./ShareLimits.ts";
import type { Holding, ShareClaim, ShareResource, Shares } from "./Shares.ts";

export class LocalShares implements Shares {
  readonly #limits: Record<ShareResource, ShareLimit>;
  /** resource → client → id → holding. */
  readonly #held = new Map<ShareResource, Map<string, Map<string, Holding>>>();

  constructor(config: Config) {
    this.#limits = shareLimits(config);
  }

  async acquire(resource: ShareResource, client: string, id: string, claim: ShareClaim = {}, now = Date.now()): Promise<Checked<void>> {
    const clients = this.#clients(resource);
    this.#lapse(clients, now);
    const holdings = clients.get(client) ?? new Map<string, Holding>();
    const holding = { until: claim.until ?? Number.POSITIVE_INFINITY, bytes: claim.bytes ?? 0 };
    if (!holdings.has(id) && !claim.held) {
      const network = networkOf(client);
      const held = this.#tally(clients, network);
      const refusal = checkShare(this.#limits[resource], tally(holdings.values()), held.all, holding.bytes, network === client ? undefined : held.network);
      if (refusal) return refused(refusal);
    }
    holdings.set(id, holding);
    clients.set(client, holdings);
    return PASSED;
  }

  async release(resource: ShareResource, client: string, id: string): Promise<void> {
    const clients = this.#clients(resource);
    const holdings = clients.get(client);
    holdings?.delete(id);
    if (holdings?.size === 0) clients.delete(client);
  }

  /** What `client` holds of `resource` now (for tests and the operator). */
  held(resource: ShareResource, client: string): { count: number; bytes: number } {
    return tally(this.#clients(resource).get(client)?.values() ?? []);
  }

  #clients(resource: ShareResource): Map<string, Map<string, Holding>> {
    let clients = this.#held.get(resource);
    if (!clients) this.#held.set(resource, (clients = new Map()));
    return clients;
  }

  /** What every client holds, and what the clients of `network` hold, in one pass. */
  #tally(clients: Map<string, Map<string, Holding>>, network: string): { all: { count: number; bytes: number }; network: { count: number; bytes: number } } {
    const all = { count: 0, bytes: 0 };
    const mine = { count: 0, bytes: 0 };
    for (const [client, holdings] of clients) {
      const { count, bytes } = tally(holdings.values());
      all.count += count;
      all.bytes += bytes;
      if (networkOf(client) !== network) continue;
      mine.count += count;
      mine.bytes += bytes;
    }
    return { all, network: mine };
  }

  /** Drops holdings past their `until`. */
  #lapse(clients: Map<string, Map<string, Holding>>, now: number): void {
    for (const [client, holdings] of clients) {
      for (const [id, holding] of holdings) if (holding.until <= now) holdings.delete(id);
      if (holdings.size === 0) clients.delete(client);
    }
  }
}

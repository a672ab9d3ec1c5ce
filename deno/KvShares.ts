/**
 * Fair shares counted in Deno KV, for what several processes sharing one KV file hold together —
 * their sessions and tasks (`kvStore`). One key per holding,
 * `["share", <resource>, <client>, <id>]` → `{ until, bytes }`, so a client's share may be as
 * large as its bound with every value small. Every change of a client's holdings also writes its
 * turn, `["shareTurn", <resource>, <client>]`, and commits only if the turn is as it read it: two
 * processes taking a client's last slot at once cannot both have it. The total across clients,
 * and what the client's network holds (`networkOf`, for the room kept for newcomers), are summed
 * from every holding as it stands: two processes may pass them together by a holding or two.
 *
 * Holdings lapse at their `until`, and are deleted by their client's next change (up to
 * MAX_DROPS_PER_CHANGE at a time) or by the sweep (`KvShares.sweep`, which `kvStore` runs every
 * SWEEP_INTERVAL_MS); a client's turn goes with its last holding. A client that never comes back
 * leaves no key once its last holding lapsed and was swept.
 */
import type { Config } from "../shared/config/readConfig.ts";
import { type Checked, PASSED, refused } from "../shared/errors/Checked.ts";
import { networkOf } from "../shared/shares/clientKey.ts";
import { checkShare, type ShareLimit, shareLimits, tally } from "../shared/shares/ShareLimits.ts";
import type { Holding, ShareClaim, ShareResource, Shares } from "../shared/shares/Shares.ts";
import { pauseAfterConflict } from "./kv/pauseAfterConflict.ts";

const ROOT = "share";
const TURN = "shareTurn";
/** Attempts of one change before it gives up: each failed one means another process changed the same client's holdings. */
const MAX_ATTEMPTS = 16;
/** Lapsed holdings one change deletes at most, keeping each atomic operation small: the rest go with the next changes, or the sweep. */
const MAX_DROPS_PER_CHANGE = 100;
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
   * Deletes every holding past its `until`, and the turns of clients left holding nothing;
   * resolves with how many holdings it deleted. A holding its client took again meanwhile, or a
   * turn its client changed, is left as it is.
   */
  static async sweep(kv: Deno.Kv, now = Date.now()): Promise<number> {
    let swept = 0;
    for await (const entry of kv.list<Holding>({ prefix: [ROOT] })) {
      // A key of another shape under the root holds no holding of this layout: it goes too.
      const holding = entry.key.length === 4 ? entry.value : undefined;
      if (holding && holding.until > now) continue;
      if ((await kv.atomic().check(entry).delete(entry.key).commit()).ok) swept++;
    }
    for await (const turn of kv.list({ prefix: [TURN] })) {
      const [, resource, client] = turn.key;
      if (resource === undefined || client === undefined) continue;
      let holdsSome = false;
      for await (const _holding of kv.list({ prefix: [ROOT, resource, client] }, { limit: 1 })) holdsSome = true;
      if (!holdsSome) await kv.atomic().check(turn).delete(turn.key).commit();
    }
    return swept;
  }

  /** Applies `change` to the client's live holdings, checked against other processes by its turn; its refusal, if it refuses. */
  async #change<R>(resource: ShareResource, client: string, change: (holdings: Holdings, now: number) => Promise<R | undefined>): Promise<R | undefined> {
    const prefix = [ROOT, resource, client];
    const turnKey = [TURN, resource, client];
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      await pauseAfterConflict(attempt);
      const turn = await this.#kv.get<number>(turnKey);
      const now = Date.now();
      const stored: Holdings = {};
      const lapsed: string[] = [];
      for await (const entry of this.#kv.list<Holding>({ prefix })) {
        const id = entry.key[3];
        if (typeof id !== "string" || entry.key.length !== 4) continue;
        if (entry.value.until > now) stored[id] = entry.value;
        else lapsed.push(id);
      }
      const holdings = { ...stored };
      const refusal = await change(holdings, now);
      if (refusal !== undefined) return refusal;
      const operation = this.#kv.atomic().check(turn);
      const dropped = lapsed.filter((id) => !(id in holdings)).slice(0, MAX_DROPS_PER_CHANGE);
      for (const id of dropped) operation.delete([...prefix, id]);
      for (const id of Object.keys(stored)) if (!(id in holdings)) operation.delete([...prefix, id]);
      for (const [id, holding] of Object.entries(holdings)) if (stored[id] !== holding) operation.set([...prefix, id], holding);
      const holdsNothing = Object.keys(holdings).length === 0 && dropped.length === lapsed.filter((id) => !(id in holdings)).length;
      if (holdsNothing) operation.delete(turnKey);
      else operation.set(turnKey, (turn.value ?? 0) + 1);
      if ((await operation.commit()).ok) return undefined;
    }
    throw new Error(`Fair shares are busy: another process kept changing this client's holdings, ${MAX_ATTEMPTS} times in a row`);
  }

  /** What every other client holds of `resource` now, and those of `client`'s network. */
  async #others(resource: ShareResource, client: string, now: number): Promise<{ all: { count: number; bytes: number }; network: { count: number; bytes: number } }> {
    const network = networkOf(client);
    const all: Holding[] = [];
    const neighbours: Holding[] = [];
    for await (const entry of this.#kv.list<Holding>({ prefix: [ROOT, resource] })) {
      const other = entry.key[2];
      if (entry.key.length !== 4 || other === client || typeof other !== "string" || !(entry.value.until > now)) continue;
      all.push(entry.value);
      if (networkOf(other) === network) neighbours.push(entry.value);
    }
    return { all: tally(all), network: tally(neighbours) };
  }
}

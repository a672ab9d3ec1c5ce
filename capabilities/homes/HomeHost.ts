/**
 * One home, whoever hosts it (a Durable Object on Workers, `LocalHomes` in a process): runs the
 * requests sent to it with `ctx.storage` its bounded storage, and ends it when it has gone unused
 * for HOME_RETENTION_MS. Its storage layout and lifetime are in `HomeRecord.ts`.
 *
 * - Ownership: a handle's record names the principal it was minted for and the definition that
 *   minted it; a call from anyone else, through another definition, or with a handle never stored
 *   (or expired, or revoked) is answered as for an unknown handle — a tool error the model can
 *   recover from by opening a new one (2026-07-28 "Stateful Tools"), -32602 for a prompt or a
 *   read. A user's home is named by its owner's digest, so only its owner reaches it.
 * - A handle's fair share: its first write first takes a share of its client's handles (`shares`,
 *   held in the client's home until the handle's retention; renewed when the alarm re-arms,
 *   given back when the home is erased); past the client's share the write is refused with the
 *   sentence naming the limit, and nothing is kept. `ctx.revokeHandle()` erases the home at once.
 * - Retention: the alarm is armed when the home is made, at its creation plus the retention; when
 *   it rings, a home used since is re-armed at its last use plus the retention, and one unused
 *   that long is erased — every key, the alarm too. Reads push `usedAt` at most once per
 *   `TOUCH_INTERVAL_MS`, so a read-mostly home costs a write a day, not one per call; waking twice
 *   is harmless.
 *
 * - Holdings (Workers): a client's fair shares — its sessions and tasks — are counted in its home
 *   (`acquireShare`), each lapsing at its deadline; the alarm sweeps lapsed ones, and a home that
 *   holds nothing else is deleted when the last lapses.
 *
 * Not here: where the request came from (the caller's era runs it through `runInHome`), how the
 * handler's context reaches a remote home (`durable/homePeer.ts`).
 */
import { McpError } from "../../shared/errors/McpError.ts";
import type { Result } from "../../shared/definition/Method.ts";
import type { RequestContext, SqlDatabase } from "../../shared/definition/RequestContext.ts";
import { logId } from "../../shared/log/logId.ts";
import type { AtomicStore } from "../../shared/storage/AtomicStore.ts";
import type { Runtime } from "../../shared/runtime/Runtime.ts";
import { BoundedStorage } from "./BoundedStorage.ts";
import { type HomeRecord, RECORD_KEY, SHARE_PREFIX } from "./HomeRecord.ts";
import { type Checked, PASSED, refused } from "../../shared/errors/Checked.ts";
import { checkShare, type ShareLimit, tally } from "../../shared/shares/ShareLimits.ts";
import type { Holding, ShareClaim, ShareResource, Shares } from "../../shared/shares/Shares.ts";
import type { HomeAddress, HomeCall } from "../../shared/home/Homes.ts";
import { unknownHandle } from "../../shared/home/unknownHandle.ts";
import { toolError } from "../../shared/methods/callTool.ts";
import { ANONYMOUS } from "../../shared/shares/clientKey.ts";

/** How often reads alone push a home's `usedAt`: a day, or a tenth of the retention if that is shorter. */
const TOUCH_INTERVAL_MS = 24 * 60 * 60 * 1000;

/** The runtime's members a home uses, and its host's own: the home's store, its alarm, its SQL. */
export interface HomeHostDeps extends Pick<Runtime, "server" | "config" | "logger"> {
  store: AtomicStore;
  /** Sets (or, with undefined, clears) the home's one alarm, at an epoch-millisecond time. */
  schedule(atMs: number | undefined): Promise<void>;
  /** Workers: the home's SQL database for this run; `wrote` is called when a statement changes rows. */
  sql?(wrote: () => void): SqlDatabase;
  /** The alarm now set, if any (epoch ms): a holding arms one only where none is. */
  scheduled?(): Promise<number | null>;
  /** Where a handle's home takes its client's share of handles (in the client's home); none: handles are not counted. */
  shares?: Shares;
}

/** How long a holding without a deadline of its own lasts, if never released: a day. */
const DEFAULT_HOLDING_MS = 24 * 60 * 60 * 1000;
/** How long a handle's share outlasts its home's due time, so that it has not lapsed when the home's alarm renews it. */
const HANDLE_SHARE_GRACE_MS = 24 * 60 * 60 * 1000;

export class HomeHost {
  readonly #deps: HomeHostDeps;

  constructor(deps: HomeHostDeps) {
    this.#deps = deps;
  }

  /** Runs `call` here with `ctx` (the request's own), `ctx.storage` this home's. Rejects as the method would. */
  async run(address: HomeAddress, call: HomeCall, ctx: RequestContext): Promise<Result> {
    const { server, config, store } = this.#deps;
    const record = await store.get<HomeRecord>(RECORD_KEY);
    const owner = address.owner ?? null;
    // A fresh handle may already have a record: the same call run again (a task's next run).
    if (address.kind === "handle" && (record === undefined ? !address.fresh : record.owner !== owner || !mintedBy(record, address.definition))) return unknownHandle(call, address.id);
    if (record && record.owner !== owner) throw new Error(`Home ${logId(address.kind === "user" ? address.owner : address.id)} belongs to another principal than its name says`);
    const method = server.method(call.method);
    if (!method) throw McpError.methodNotFound(call.method);
    const now = Date.now();
    if (record && now - record.usedAt >= Math.min(TOUCH_INTERVAL_MS, config.homeRetentionMs / 10)) await this.#touch(address);
    let sqlWrote = false;
    // A new handle takes its client's share at its first write, once per run; one this run took and did not keep is given back.
    let admitted = false;
    let refusal: McpError | undefined;
    const admit =
      address.kind === "handle" && !record && this.#deps.shares
        ? async () => {
            refusal = await this.#admit(address);
            if (refusal) throw refusal;
            admitted = true;
          }
        : undefined;
    const storage = new BoundedStorage(
      store,
      { maxBytes: config.maxHomeBytes, maxKeys: config.maxHomeKeys },
      () => freshRecord(address),
      (stored, created) => (created ? this.#created(address, stored) : undefined),
      this.#deps.sql?.(() => (sqlWrote = true)),
      admit,
    );
    let revoked = false;
    const handleOf = address.kind === "handle" ? { handle: address.id, revokeHandle: async () => void (await this.erase("revoked"), (revoked = true)) } : {};
    try {
      return await method(call.params, { ...ctx, storage, ...handleOf } as RequestContext);
    } catch (error) {
      // Past the client's share of handles: for a tool, a tool error the model can read.
      if (error === refusal && call.method === "tools/call") return { ...toolError(refusal!.message) };
      throw error;
    } finally {
      // SQL writes bypass the record: a home written only through SQL is made here, so that it too expires.
      if (sqlWrote && !(await store.get(RECORD_KEY))) await this.#sqlOnly(address, admit);
      // What the handler wrote after revoking goes too; a share taken for nothing kept is given back.
      if (revoked && (await store.get(RECORD_KEY))) await this.erase("revoked");
      else if (admitted && address.kind === "handle" && !(await store.get(RECORD_KEY))) await this.#deps.shares!.release("handle", clientOf(address), address.id);
    }
  }

  /** Takes a new handle's share of its client's handles: the refusal past it, else undefined. */
  async #admit(address: HomeAddress & { kind: "handle" }): Promise<McpError | undefined> {
    const until = Date.now() + this.#deps.config.homeRetentionMs + HANDLE_SHARE_GRACE_MS;
    const taken = await this.#deps.shares!.acquire("handle", clientOf(address), address.id, { until });
    return taken.ok ? undefined : taken.error;
  }

  /** A home made by SQL alone: a new handle's share is taken now, and without one the home is not kept. */
  async #sqlOnly(address: HomeAddress, admit: (() => Promise<void>) | undefined): Promise<void> {
    try {
      await admit?.();
    } catch (refusal) {
      await this.#deps.store.deleteAll();
      throw refusal;
    }
    await this.#touch(address);
  }

  /**
   * The alarm: drops lapsed holdings; erases the home if it has gone unused for the retention and
   * holds nothing live (retention waits for live holdings), or if it has neither data nor
   * holdings; else re-arms at the next of those. Harmless to call at any time, or twice.
   */
  async wake(now = Date.now()): Promise<"alive" | "erased"> {
    const { store } = this.#deps;
    const record = await store.get<HomeRecord>(RECORD_KEY);
    let liveUntil: number | undefined;
    for (const [key, holding] of await store.list<Holding>(SHARE_PREFIX)) {
      if (holding.until <= now) await store.delete(key);
      else liveUntil = Math.max(liveUntil ?? 0, holding.until);
    }
    const due = record ? record.usedAt + this.#deps.config.homeRetentionMs : undefined;
    const next = due !== undefined && now < due ? Math.min(due, liveUntil ?? due) : liveUntil;
    if (next === undefined) {
      await this.erase("retention");
      return "erased";
    }
    await this.#deps.schedule(next);
    // A handle used since keeps its share until its new end (renewing the holding it has).
    if (record?.handle && due !== undefined && now < due) await this.#deps.shares?.acquire("handle", record.handle.client, record.handle.id, { until: due + HANDLE_SHARE_GRACE_MS });
    return "alive";
  }

  /**
   * Takes one fair share of `resource` for this home's client (Workers: the per-client counters
   * live in the client's home); taking one it holds renews it. The refusal past the client's share.
   */
  async acquireShare(resource: ShareResource, id: string, claim: ShareClaim, limit: ShareLimit, now = Date.now()): Promise<Checked<void>> {
    const key = `${SHARE_PREFIX}${resource}:${id}`;
    const holding: Holding = { until: claim.until ?? now + DEFAULT_HOLDING_MS, bytes: claim.bytes ?? 0 };
    const refusal = await this.#deps.store.atomically(async (txn) => {
      const others: Holding[] = [];
      let renewal = false;
      for (const [held, other] of await txn.list<Holding>(`${SHARE_PREFIX}${resource}:`)) {
        if (other.until <= now) txn.delete(held);
        else if (held === key) renewal = true;
        else others.push(other);
      }
      const over = renewal ? undefined : checkShare(limit, tally(others), undefined, holding.bytes);
      if (!over) txn.put(key, holding);
      return over;
    });
    if (refusal) return refused(refusal);
    // Its lapse must leave no key: an alarm is armed if none is (a later one sweeps it as well).
    if ((await this.#deps.scheduled?.()) == null) await this.#deps.schedule(holding.until);
    return PASSED;
  }

  /**
   * Gives a holding back; harmless for one already gone. A home kept only for its shares (a
   * client's, with no data of its own) wakes at once, so that it goes with its last holding rather
   * than at that holding's old deadline.
   */
  async releaseShare(resource: ShareResource, id: string, now = Date.now()): Promise<void> {
    const { store } = this.#deps;
    if (!(await store.delete(`${SHARE_PREFIX}${resource}:${id}`))) return;
    if (!(await store.get(RECORD_KEY))) await this.#deps.schedule(now);
  }

  /** The ids of what this home's client holds now, by resource: what erasing a user's data must end too. */
  async holdings(now = Date.now()): Promise<Record<ShareResource, string[]>> {
    const held: Record<ShareResource, string[]> = { session: [], task: [], handle: [] };
    for (const [key, { until }] of await this.#deps.store.list<Holding>(SHARE_PREFIX)) {
      const [resource, id] = splitHolding(key);
      if (until > now && resource in held) held[resource as ShareResource].push(id);
    }
    return held;
  }

  /** Deletes every key of this home and its alarm; a handle's gives its client's share back. Idempotent. */
  async erase(reason: string): Promise<void> {
    const record = await this.#deps.store.get<HomeRecord>(RECORD_KEY);
    await this.#deps.store.deleteAll();
    await this.#deps.schedule(undefined);
    if (record?.handle) await this.#deps.shares?.release("handle", record.handle.client, record.handle.id);
    if (record) this.#deps.logger.info("home.erased", { kind: record.kind, reason, erasedKeys: record.keys, erasedBytes: record.bytes });
  }

  /** Marks the home used now, making it if it has no record yet (a home written only through SQL). */
  async #touch(address: HomeAddress): Promise<void> {
    const made = await this.#deps.store.atomically(async (txn) => {
      const stored = await txn.get<HomeRecord>(RECORD_KEY);
      const record = stored ? { ...stored, usedAt: Date.now() } : freshRecord(address);
      txn.put(RECORD_KEY, record);
      return stored ? undefined : record;
    });
    if (made) await this.#created(address, made);
  }

  async #created(address: HomeAddress, record: HomeRecord): Promise<void> {
    await this.#deps.schedule(record.createdAt + this.#deps.config.homeRetentionMs);
    this.#deps.logger.info("home.created", { kind: address.kind });
  }
}

/** `share:<resource>:<id>` → resource and id. */
function splitHolding(key: string): [string, string] {
  const rest = key.slice(SHARE_PREFIX.length);
  const colon = rest.indexOf(":");
  return [rest.slice(0, colon), rest.slice(colon + 1)];
}

function freshRecord(address: HomeAddress): HomeRecord {
  const now = Date.now();
  const record: HomeRecord = { kind: address.kind, owner: address.owner ?? null, createdAt: now, usedAt: now, keys: 0, bytes: 0 };
  if (address.kind === "handle") record.handle = { id: address.id, definition: address.definition, client: clientOf(address) };
  return record;
}

/** Whose share of handles a new handle takes: the client the call came from, else its principal, else the anonymous client. */
function clientOf(address: HomeAddress & { kind: "handle" }): string {
  return address.client ?? address.owner ?? ANONYMOUS;
}

/** Whether a handle's home may be used by the definition of this name: the one that minted it (a record from before handles were bound: any). */
function mintedBy(record: HomeRecord, definition: string): boolean {
  return record.handle === undefined || record.handle.definition === definition;
}

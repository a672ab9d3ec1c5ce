/**
 * The `Fleet` of Deno processes on one KV database: Deno Deploy's instances, or `deno` processes
 * sharing a KV file. Deno Deploy has no KV queues, so everything is atomic checks on keys, with
 * `kv.watch` to wake a receiver and a poll every `pollMs` besides (a local file's watch does not
 * hear other processes' writes).
 *
 * Keys, under `["fleet"]`:
 * - `["fleet", "process", <id>]` → `{ aliveUntil }`: a process's lease, renewed every `heartbeatMs`,
 *   checked against the versionstamp of its last renewal, so a renewal that finds it gone or
 *   rewritten knows it was swept.
 * - `["fleet", "holder", <session>]` → the holder's id, taken with a check of what was read (the
 *   holder's key, and the dead holder's lease), so two processes asking at once get one answer;
 *   beside it `["fleet", "held", <id>, <session>]`, written in the same commit, so whatever a dead
 *   process held can be found without reading every session's holder.
 * - `["fleet", "inbox", <to>, <from>, <seq>]` → the message's UTF-8 bytes (bytes, not a string: a
 *   string is stored two bytes per unit once any character is above U+00FF), and
 *   `["fleet", "bell", <to>]`, set in the same commit so a watching receiver wakes. A sender commits
 *   each receiver's messages one batch at a time, so they land in the order they were sent.
 *
 * A process told `expelled` (its lease lapsed, or was swept) forgets what it claimed and carries on
 * under the same id with a new lease: a session whose holder's key still names it is its own again,
 * to load from the store, and one another process took is that one's.
 *
 * What a process leaves behind goes: `leave()` deletes its keys; a killed process's lease, inbox and
 * bell expire (`expireIn`, which a local file honours only lazily), and every live process sweeps,
 * every `ttlMs`, the keys of processes whose lease lapsed.
 */
import { MAX_FLEET_MESSAGE_BYTES, type Fleet, type FleetMember, HEARTBEAT_MS, PROCESS_TTL_MS } from "../../shared/runtime/Fleet.ts";
import { pauseAfterConflict } from "./pauseAfterConflict.ts";

const ROOT = "fleet";
const PROCESS = "process";
const HOLDER = "holder";
const HELD = "held";
const INBOX = "inbox";
const BELL = "bell";

/** How often a joined process reads its inbox, in milliseconds, besides what `kv.watch` tells it. */
export const POLL_MS = 250;
/** How long an unread message lives, as a multiple of the process TTL: a receiver that died never reads it. */
const MESSAGE_TTL_TTLS = 2;
/** Attempts of one claim: each failed one means another process changed the holder meanwhile. */
const MAX_CLAIM_ATTEMPTS = 16;
/** Messages one receiver may have waiting for a commit in this process; past it `send` refuses. */
export const MAX_QUEUED_SENDS = 1_024;
/** Messages in one commit to a receiver, and their bytes: under Deno KV's limits on an atomic operation. */
const MAX_BATCH_MESSAGES = 64;
const MAX_BATCH_BYTES = 512 * 1_024;
/** Inbox entries read at a time, and keys deleted in one commit. */
const READ_BATCH = 64;
const DELETE_BATCH = 64;
/** Distinct processes one sweep looks at, per kind of key: it carries on at the next sweep. */
const MAX_SWEPT_PROCESSES = 256;
/** Sessions of one dead process one sweep gives up: the rest at the next. */
const MAX_SWEPT_SESSIONS = 1_024;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

interface Lease {
  aliveUntil: number;
}

interface Outgoing {
  seq: number;
  bytes: Uint8Array;
  resolve(): void;
  reject(error: unknown): void;
}

export interface KvFleetOptions {
  /** Default HEARTBEAT_MS. */
  heartbeatMs?: number;
  /** Default PROCESS_TTL_MS. */
  ttlMs?: number;
  /** Default POLL_MS. */
  pollMs?: number;
  /** Told of what failed in the background (a renewal, a read, a sweep); each is tried again later. Default: `console.warn`. */
  onError?(error: unknown): void;
}

/**
 * @example
 * const fleet = new KvFleet(kv);
 * await fleet.join({ receive: (message) => …, expelled: () => … });
 * if ((await fleet.holder(sessionId)) !== fleet.self) await fleet.send(holder, request);
 * // at shutdown, before kv.close():
 * await fleet.leave();
 */
export class KvFleet implements Fleet {
  readonly self: string = crypto.randomUUID();
  readonly #kv: Deno.Kv;
  readonly #heartbeatMs: number;
  readonly #ttlMs: number;
  readonly #pollMs: number;
  readonly #onError: (error: unknown) => void;
  /** Sessions this process claimed, for `leave()` (the `held` keys find them too). */
  readonly #claimed = new Set<string>();
  /** Per receiver: what waits to be committed. */
  readonly #outboxes = new Map<string, { queue: Outgoing[]; draining: Promise<void> | undefined }>();
  /** The last message's number: one count for every receiver, so none is ever reused while a receiver may still hold it. */
  #seq = 0;
  /** Per sender: the last seq delivered, for the senders whose messages are still in the inbox. */
  readonly #delivered = new Map<string, number>();
  #member: FleetMember | undefined;
  #state: "new" | "joined" | "left" = "new";
  /** The lease as this process last wrote it. */
  #lease: { versionstamp: string | null; aliveUntil: number } = { versionstamp: null, aliveUntil: 0 };
  /** Set once `expelled` was told of a lapse, until a renewal succeeds again. */
  #lapsed = false;
  #timers: ReturnType<typeof setInterval>[] = [];
  #watch: ReadableStreamDefaultReader<unknown> | undefined;
  #watching: Promise<void> | undefined;
  #reading: Promise<void> | undefined;
  #readAgain = false;
  #renewing: Promise<void> | undefined;
  #sweeping: Promise<void> | undefined;

  constructor(kv: Deno.Kv, options: KvFleetOptions = {}) {
    this.#kv = kv;
    this.#heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
    this.#ttlMs = options.ttlMs ?? PROCESS_TTL_MS;
    this.#pollMs = options.pollMs ?? POLL_MS;
    this.#onError = options.onError ?? ((error) => console.warn(`The fleet on Deno KV: ${error instanceof Error ? error.message : String(error)}`));
  }

  async join(member: FleetMember): Promise<void> {
    if (this.#state !== "new") throw new Error(`This process has already ${this.#state === "joined" ? "joined" : "left"} the fleet: make a new KvFleet to join again`);
    this.#member = member;
    await this.#takeLease();
    this.#state = "joined";
    const bell = this.#kv.watch([[ROOT, BELL, this.self]]).getReader();
    this.#watch = bell;
    this.#watching = (async () => {
      for (;;) {
        const next = await bell.read();
        if (next.done || this.#state !== "joined") return;
        this.#read();
      }
    })().catch((error) => {
      if (this.#state === "joined") this.#onError(error);
    });
    this.#timers = [
      setInterval(() => this.#renew(), this.#heartbeatMs),
      setInterval(() => this.#read(), this.#pollMs),
      setInterval(() => this.#sweep(), this.#ttlMs),
    ];
    this.#read();
    this.#sweep();
  }

  async holder(sessionId: string): Promise<string> {
    this.#mustBeJoined();
    const key = [ROOT, HOLDER, sessionId];
    for (let attempt = 1; attempt <= MAX_CLAIM_ATTEMPTS; attempt++) {
      await pauseAfterConflict(attempt);
      const entry = await this.#kv.get<string>(key);
      const held = entry.value;
      if (held === this.self) {
        this.#claimed.add(sessionId);
        return held;
      }
      const claim = this.#kv.atomic().check(entry);
      if (held !== null) {
        const lease = await this.#kv.get<Lease>(processKey(held));
        if (isAlive(lease.value)) return held;
        // Checked too: a holder that renews meanwhile keeps what it holds.
        claim.check(lease).delete([ROOT, HELD, held, sessionId]);
      }
      const taken = await claim.set(key, this.self).set([ROOT, HELD, this.self, sessionId], true).commit();
      if (taken.ok) {
        this.#claimed.add(sessionId);
        return this.self;
      }
    }
    throw new Error(`The holder of a session was not settled: ${MAX_CLAIM_ATTEMPTS} attempts each found another process changing it`);
  }

  async release(sessionId: string): Promise<void> {
    this.#claimed.delete(sessionId);
    await this.#giveUp(this.self, sessionId);
  }

  async alive(id: string): Promise<boolean> {
    return isAlive((await this.#kv.get<Lease>(processKey(id))).value);
  }

  send(to: string, message: string): Promise<void> {
    // Not async, so that messages sent in one turn are queued in that turn, in order; every refusal is a rejection still.
    if (this.#state !== "joined") return Promise.reject(this.#notJoined());
    const bytes = encoder.encode(message);
    if (bytes.length > MAX_FLEET_MESSAGE_BYTES) {
      return Promise.reject(new RangeError(`A message of ${bytes.length} bytes is more than the ${MAX_FLEET_MESSAGE_BYTES} Deno KV carries between processes: send it in smaller parts`));
    }
    let outbox = this.#outboxes.get(to);
    if (!outbox) this.#outboxes.set(to, (outbox = { queue: [], draining: undefined }));
    if (outbox.queue.length >= MAX_QUEUED_SENDS) {
      return Promise.reject(new Error(`${MAX_QUEUED_SENDS} messages to one process already wait to be written: send once some are`));
    }
    const seq = ++this.#seq;
    const sent = new Promise<void>((resolve, reject) => outbox.queue.push({ seq, bytes, resolve, reject }));
    outbox.draining ??= this.#drain(to, outbox);
    return sent;
  }

  async leave(): Promise<void> {
    if (this.#state === "left") return;
    this.#state = "left";
    for (const timer of this.#timers) clearInterval(timer);
    await this.#watch?.cancel().catch(() => {});
    await Promise.all([this.#watching, this.#reading, this.#renewing, this.#sweeping, ...[...this.#outboxes.values()].map((outbox) => outbox.draining)]);
    const held = new Set(this.#claimed);
    for await (const entry of this.#kv.list({ prefix: [ROOT, HELD, this.self] })) held.add(entry.key[3] as string);
    for (const sessionId of held) await this.#giveUp(this.self, sessionId);
    this.#claimed.clear();
    await this.#deleteAll({ prefix: [ROOT, INBOX, this.self] });
    await this.#kv.atomic().delete(processKey(this.self)).delete([ROOT, BELL, this.self]).commit();
  }

  #mustBeJoined(): void {
    if (this.#state !== "joined") throw this.#notJoined();
  }

  #notJoined(): Error {
    return new Error(this.#state === "new" ? "This process has not joined the fleet: join() first" : "This process has left the fleet");
  }

  /** Writes a lease for this process, where none is (a new one, or after it was swept). */
  async #takeLease(): Promise<void> {
    const aliveUntil = Date.now() + this.#ttlMs;
    const key = processKey(this.self);
    const written = await this.#kv.atomic().check({ key, versionstamp: null }).set(key, { aliveUntil } satisfies Lease, { expireIn: this.#ttlMs }).commit();
    if (!written.ok) throw new Error("This process's lease was already written: a fleet's id must be new");
    this.#lease = { versionstamp: written.versionstamp, aliveUntil };
  }

  /** Renews the lease, once at a time; tells `expelled` when it lapsed or was swept, and takes a new one. */
  #renew(): void {
    if (this.#renewing || this.#state !== "joined") return;
    this.#renewing = (async () => {
      try {
        const key = processKey(this.self);
        const aliveUntil = Date.now() + this.#ttlMs;
        const renewed = await this.#kv
          .atomic()
          .check({ key, versionstamp: this.#lease.versionstamp })
          .set(key, { aliveUntil } satisfies Lease, { expireIn: this.#ttlMs })
          .commit();
        // Renewed after the lease ran out: another process may have taken what this one held meanwhile.
        const late = Date.now() > this.#lease.aliveUntil;
        if (renewed.ok && !late) {
          this.#lease = { versionstamp: renewed.versionstamp, aliveUntil };
          this.#lapsed = false;
          return;
        }
        this.#expel();
        if (renewed.ok) this.#lease = { versionstamp: renewed.versionstamp, aliveUntil };
        else await this.#takeLease();
        this.#lapsed = false;
      } catch (error) {
        this.#onError(error);
        if (Date.now() > this.#lease.aliveUntil) this.#expel();
      }
    })().finally(() => (this.#renewing = undefined));
  }

  #expel(): void {
    if (this.#lapsed || this.#state !== "joined") return;
    this.#lapsed = true;
    this.#claimed.clear();
    try {
      this.#member?.expelled();
    } catch (error) {
      this.#onError(error);
    }
  }

  /** Deletes `id`'s hold on the session, the holder's key only where `id` is still the holder. */
  async #giveUp(id: string, sessionId: string, checks: Array<{ key: Deno.KvKey; versionstamp: string | null }> = []): Promise<boolean> {
    const key = [ROOT, HOLDER, sessionId];
    const entry = await this.#kv.get<string>(key);
    const operation = this.#kv.atomic().check(...checks).delete([ROOT, HELD, id, sessionId]);
    if (entry.value === id) operation.check(entry).delete(key);
    return (await operation.commit()).ok;
  }

  /** Commits the receiver's queued messages a batch at a time, each batch after the one before. */
  async #drain(to: string, outbox: { queue: Outgoing[]; draining: Promise<void> | undefined }): Promise<void> {
    // After the caller's turn, so that messages sent together go in one commit.
    await Promise.resolve();
    while (outbox.queue.length > 0) {
      const batch: Outgoing[] = [];
      let bytes = 0;
      while (outbox.queue.length > 0 && batch.length < MAX_BATCH_MESSAGES && (batch.length === 0 || bytes + outbox.queue[0]!.bytes.length <= MAX_BATCH_BYTES)) {
        const next = outbox.queue.shift()!;
        bytes += next.bytes.length;
        batch.push(next);
      }
      const expireIn = this.#ttlMs * MESSAGE_TTL_TTLS;
      const operation = this.#kv.atomic();
      for (const message of batch) operation.set([ROOT, INBOX, to, this.self, message.seq], message.bytes, { expireIn });
      operation.set([ROOT, BELL, to], batch.at(-1)!.seq, { expireIn });
      try {
        const written = await operation.commit();
        if (!written.ok) throw new Error("A message was not written: Deno KV refused the commit");
        for (const message of batch) message.resolve();
      } catch (error) {
        for (const message of batch) message.reject(error);
      }
    }
    outbox.draining = undefined;
    this.#outboxes.delete(to);
  }

  /** Reads the inbox, once at a time: a read asked for meanwhile runs after. */
  #read(): void {
    if (this.#reading) {
      this.#readAgain = true;
      return;
    }
    this.#reading = (async () => {
      do {
        this.#readAgain = false;
        await this.#readOnce().catch((error) => this.#onError(error));
      } while (this.#readAgain && this.#state === "joined");
      this.#reading = undefined;
    })();
  }

  async #readOnce(): Promise<void> {
    for (;;) {
      if (this.#state !== "joined") return;
      const entries: Array<{ key: Deno.KvKey; value: Uint8Array }> = [];
      for await (const entry of this.#kv.list<Uint8Array>({ prefix: [ROOT, INBOX, this.self] }, { limit: READ_BATCH })) entries.push(entry);
      const senders = new Set<string>();
      for (const { key, value } of entries) {
        const from = key[3] as string;
        const seq = key[4] as number;
        senders.add(from);
        // Delivered before, and its delete failed: at most once.
        if (seq <= (this.#delivered.get(from) ?? 0)) continue;
        this.#delivered.set(from, seq);
        try {
          this.#member?.receive(decoder.decode(value));
        } catch (error) {
          this.#onError(error);
        }
      }
      for (let i = 0; i < entries.length; i += DELETE_BATCH) {
        const operation = this.#kv.atomic();
        for (const { key } of entries.slice(i, i + DELETE_BATCH)) operation.delete(key);
        await operation.commit();
      }
      if (entries.length < READ_BATCH) {
        // Every message read is deleted: only a sender still in the inbox needs its place kept.
        for (const from of this.#delivered.keys()) if (!senders.has(from)) this.#delivered.delete(from);
        return;
      }
    }
  }

  /** Deletes the keys of processes whose lease lapsed, once at a time. */
  #sweep(): void {
    if (this.#sweeping || this.#state !== "joined") return;
    this.#sweeping = this.#sweepOnce()
      .catch((error) => this.#onError(error))
      .finally(() => (this.#sweeping = undefined));
  }

  async #sweepOnce(): Promise<void> {
    for await (const entry of this.#kv.list<Lease>({ prefix: [ROOT, PROCESS] }, { limit: MAX_SWEPT_PROCESSES })) {
      if (!isAlive(entry.value) && entry.key[2] !== this.self) await this.#kv.atomic().check(entry).delete(entry.key).commit();
    }
    for (const id of await this.#processesUnder(HELD)) {
      const lease = await this.#deadLease(id);
      if (!lease) continue;
      const held: string[] = [];
      for await (const entry of this.#kv.list({ prefix: [ROOT, HELD, id] }, { limit: MAX_SWEPT_SESSIONS })) held.push(entry.key[3] as string);
      // Checked against the dead lease: a process that comes back keeps what it claims again.
      for (const sessionId of held) if (!(await this.#giveUp(id, sessionId, [lease]))) break;
    }
    for (const id of await this.#processesUnder(INBOX)) {
      if (await this.#deadLease(id)) await this.#deleteAll({ prefix: [ROOT, INBOX, id] });
    }
    for await (const entry of this.#kv.list({ prefix: [ROOT, BELL] }, { limit: MAX_SWEPT_PROCESSES })) {
      const lease = await this.#deadLease(entry.key[2] as string);
      if (lease) await this.#kv.atomic().check(lease, entry).delete(entry.key).commit();
    }
  }

  /** The lease of `id` as read now, when it is dead (and not this process); else undefined. */
  async #deadLease(id: string): Promise<Deno.KvEntryMaybe<Lease> | undefined> {
    if (id === this.self) return undefined;
    const lease = await this.#kv.get<Lease>(processKey(id));
    return isAlive(lease.value) ? undefined : lease;
  }

  /** The distinct process ids that have keys under `[ROOT, kind]`: one short read per process, skipping its keys. */
  async #processesUnder(kind: string): Promise<string[]> {
    const ids: string[] = [];
    while (ids.length < MAX_SWEPT_PROCESSES) {
      const last = ids.at(-1);
      // Past every key under the last id: the smallest id after it.
      const selector = last === undefined ? { prefix: [ROOT, kind] } : { prefix: [ROOT, kind], start: [ROOT, kind, `${last}\0`] };
      let found: string | undefined;
      for await (const entry of this.#kv.list(selector, { limit: 1 })) found = entry.key[2] as string;
      if (found === undefined) break;
      ids.push(found);
    }
    return ids;
  }

  /** Deletes every key of `selector`, a batch at a time. */
  async #deleteAll(selector: { prefix: Deno.KvKey }): Promise<void> {
    for (;;) {
      const keys: Deno.KvKey[] = [];
      for await (const entry of this.#kv.list(selector, { limit: DELETE_BATCH })) keys.push(entry.key);
      if (keys.length === 0) return;
      const operation = this.#kv.atomic();
      for (const key of keys) operation.delete(key);
      await operation.commit();
    }
  }
}

function processKey(id: string): Deno.KvKey {
  return [ROOT, PROCESS, id];
}

function isAlive(lease: Lease | null): boolean {
  return lease !== null && lease.aliveUntil > Date.now();
}

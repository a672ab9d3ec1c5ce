/**
 * When each home in Deno KV is due to wake (`HomeExpiries`), as an index in the same KV file:
 * `["home-due", <epoch ms>, <name>]` → null, ordered by time, and `["home-due-of", <name>]` → its
 * time, to replace or clear it. A restarted process reads the index up to now — only what is due —
 * never every key under `["home"]`. Several processes may share the index; each change is one
 * atomic operation checked against the home's entry, so two processes setting one home's time
 * leave one entry. A file written before the index existed is indexed once (`prepare`, at start): every
 * home in it made due, so that its next wakeup puts it at its own time.
 */
import { pauseAfterConflict } from "../../../deno/kv/pauseAfterConflict.ts";
import type { HomeExpiries } from "../HomeExpiries.ts";

const DUE = "home-due";
const DUE_OF = "home-due-of";
/** Set once every home of the file is in the index. */
const INDEXED = ["home-due-indexed"];
const HOMES = "home";
/** Attempts of one change before it gives up: each failed one means another process changed the same home's time. */
const MAX_ATTEMPTS = 16;

export class KvHomeExpiries implements HomeExpiries {
  readonly #kv: Deno.Kv;

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  set(name: string, atMs: number): Promise<void> {
    return this.#change(name, atMs);
  }

  clear(name: string): Promise<void> {
    return this.#change(name, undefined);
  }

  async due(nowMs: number, limit: number): Promise<string[]> {
    const names: string[] = [];
    for await (const entry of this.#kv.list({ prefix: [DUE], end: [DUE, nowMs + 1] }, { limit })) names.push(String(entry.key[2]));
    return names;
  }

  async at(name: string): Promise<number | undefined> {
    return (await this.#kv.get<number>([DUE_OF, name])).value ?? undefined;
  }

  async next(): Promise<number | undefined> {
    for await (const entry of this.#kv.list({ prefix: [DUE] }, { limit: 1 })) return Number(entry.key[1]);
    return undefined;
  }

  /** Puts every home of a file written before the index into it, once per file: the one time a start lists all of `["home"]`. */
  async prepare(nowMs: number): Promise<void> {
    if ((await this.#kv.get(INDEXED)).value !== null) return;
    let last: string | undefined;
    for await (const entry of this.#kv.list({ prefix: [HOMES] })) {
      const name = String(entry.key[1]);
      if (name === last) continue;
      last = name;
      if ((await this.#kv.get([DUE_OF, name])).value === null) await this.set(name, nowMs);
    }
    await this.#kv.set(INDEXED, true);
  }

  async #change(name: string, atMs: number | undefined): Promise<void> {
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      await pauseAfterConflict(attempt);
      const current = await this.#kv.get<number>([DUE_OF, name]);
      if (current.value === (atMs ?? null)) return;
      const operation = this.#kv.atomic().check(current);
      if (current.value !== null) operation.delete([DUE, current.value, name]);
      if (atMs === undefined) operation.delete([DUE_OF, name]);
      else operation.set([DUE, atMs, name], null).set([DUE_OF, name], atMs);
      if ((await operation.commit()).ok) return;
    }
    throw new Error(`Home wakeups are busy: another process kept changing this home's time, ${MAX_ATTEMPTS} times in a row`);
  }
}

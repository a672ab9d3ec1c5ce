/**
 * `KeyValueStore` in Deno KV: what lets a restarted Deno server continue its sessions. Each
 * session's keys live under `["session", <id>, <key>]`, so `deleteAll` is one prefix sweep and
 * sessions never see each other's data. Deno KV refuses values over 64 KiB, so this storage
 * declares a lower `maxValueBytes`: a larger SSE event is delivered live but not stored for
 * resumption (and logged as such), as an event over 1 MiB is on Workers.
 */
import type { KeyValueStore } from "../shared/storage/KeyValueStore.ts";

const ROOT = "session";

export class KvStorage implements KeyValueStore {
  /** Deno KV's 65,536-byte value limit, less room for its own encoding of a string. */
  readonly maxValueBytes = 60_000;

  constructor(
    private readonly kv: Deno.Kv,
    private readonly sessionId: string,
  ) {}

  /** Every session id with something stored: what a restarted server may continue. */
  static async sessionIds(kv: Deno.Kv): Promise<string[]> {
    const ids = new Set<string>();
    for await (const entry of kv.list({ prefix: [ROOT] })) ids.add(String(entry.key[1]));
    return [...ids];
  }

  async get<T>(key: string): Promise<T | undefined> {
    const entry = await this.kv.get<T>([ROOT, this.sessionId, key]);
    return entry.value ?? undefined;
  }

  async put(key: string, value: unknown): Promise<void> {
    await this.kv.set([ROOT, this.sessionId, key], value);
  }

  async delete(key: string): Promise<boolean> {
    const existed = (await this.kv.get([ROOT, this.sessionId, key])).value !== null;
    await this.kv.delete([ROOT, this.sessionId, key]);
    return existed;
  }

  async list<T>(prefix: string, limit = Infinity): Promise<Map<string, T>> {
    // KV orders string key parts lexicographically, as the other storages do; filter the prefix here.
    const out = new Map<string, T>();
    for await (const entry of this.kv.list<T>({ prefix: [ROOT, this.sessionId], start: [ROOT, this.sessionId, prefix] })) {
      const key = String(entry.key[2]);
      if (!key.startsWith(prefix)) break;
      out.set(key, entry.value);
      if (out.size >= limit) break;
    }
    return out;
  }

  async deleteAll(): Promise<void> {
    for await (const entry of this.kv.list({ prefix: [ROOT, this.sessionId] })) await this.kv.delete(entry.key);
  }
}

/**
 * A Workers KV namespace over Deno KV, for an authorization server written against Workers KV
 * (`@cloudflare/workers-oauth-provider` keeps its clients, grants and tokens in one) to run on
 * Deno. It has the part of Workers KV's interface that such code uses: `get` as text or JSON,
 * `put` of a string with `expirationTtl` or `expiration` and `metadata`, `delete`, and `list` by
 * name prefix, `limit` and `cursor`, whose keys carry their `expiration` and `metadata`.
 *
 * Layout: one Deno KV key per name, `[...prefix, name]`; its value the UTF-8 JSON of
 * `{ value, expiration?, metadata? }` (bytes, so its size is what Deno KV counts). A name's
 * entries share the name's prefix in Deno KV's order, so a prefix listing is one range read from
 * `[...prefix, namePrefix]`, stopped at the first name without it.
 *
 * Lifetime: an entry with an expiration is written with Deno KV's `expireIn`, which deletes it
 * later (Deno sweeps expired keys when a database is opened, and now and then): until then this
 * adapter reads it as absent, in `get` and `list` alike, so nothing expired is ever returned.
 *
 * Limits: names of at most MAX_NAME_BYTES (Workers KV's), values of at most MAX_VALUE_BYTES
 * stored (Deno KV's), pages of at most MAX_LIST_LIMIT keys (Workers KV's); past them the call
 * throws a sentence that names the key. Not here: `getWithMetadata`, binary or streamed values,
 * `cacheTtl` (a read is always fresh), bulk operations.
 *
 * Why in the OAuth capability: an authorization server built on that provider is the one thing a
 * durable-mcp server on Deno keeps in a Workers KV namespace.
 *
 * @example
 * const kv = await Deno.openKv("oauth.kv");
 * const env = { OAUTH_KV: kvNamespace(kv, ["oauth"]) };
 * await env.OAUTH_KV.put("client:abc", JSON.stringify(client), { expirationTtl: 3600 });
 */

/** Workers KV's longest name, in UTF-8 bytes. */
export const MAX_NAME_BYTES = 512;
/** Deno KV's largest value, in bytes: an entry's value, expiration and metadata, as stored. */
export const MAX_VALUE_BYTES = 65_536;
/** Workers KV's largest (and default) page of `list`. */
export const MAX_LIST_LIMIT = 1000;

const MS_PER_SECOND = 1000;

export interface KvPutOptions {
  /** Seconds from now until the entry expires. */
  expirationTtl?: number;
  /** When the entry expires, in seconds since the epoch. Wins over `expirationTtl`. */
  expiration?: number;
  /** A small JSON value `list` returns with the name. */
  metadata?: unknown;
}

export interface KvListOptions {
  /** Only names that start with it. Default: every name. */
  prefix?: string;
  /** At most this many keys, 1 to MAX_LIST_LIMIT. Default: MAX_LIST_LIMIT. */
  limit?: number;
  /** Where the previous page of the same listing ended (its `cursor`). */
  cursor?: string;
}

export interface KvListKey<Metadata = unknown> {
  name: string;
  /** Seconds since the epoch. */
  expiration?: number;
  metadata?: Metadata;
}

export type KvListResult<Metadata = unknown> =
  | { keys: KvListKey<Metadata>[]; list_complete: false; cursor: string; cacheStatus: null }
  | { keys: KvListKey<Metadata>[]; list_complete: true; cacheStatus: null };

type ValueType = "text" | "json";

/** The part of a Workers `KVNamespace` that `kvNamespace` gives. */
export interface KvNamespace {
  get(name: string, type?: "text" | { type?: "text" }): Promise<string | null>;
  get<T = unknown>(name: string, type: "json" | { type: "json" }): Promise<T | null>;
  put(name: string, value: string, options?: KvPutOptions): Promise<void>;
  delete(name: string): Promise<void>;
  list<Metadata = unknown>(options?: KvListOptions): Promise<KvListResult<Metadata>>;
}

/** What one Deno KV value holds. */
interface Stored {
  value: string;
  /** Seconds since the epoch. */
  expiration?: number;
  metadata?: unknown;
}

/**
 * A Workers KV namespace whose entries live in `kv` under `prefix` (one namespace per prefix).
 * Several processes may share the database: `get`, `put` and `delete` are one Deno KV operation
 * each, and `list` reads one range (the last writer of a name wins, as on Workers KV).
 */
export function kvNamespace(kv: Deno.Kv, prefix: Deno.KvKey = ["kv-namespace"]): KvNamespace {
  const keyOf = (name: string): Deno.KvKey => [...prefix, checkedName(name)];
  const read = async (name: string): Promise<Stored | undefined> => {
    const entry = await kv.get<Uint8Array>(keyOf(name));
    return entry.value === null ? undefined : live(decoded(entry.value));
  };
  return {
    async get(name: string, type?: ValueType | { type?: ValueType }): Promise<any> {
      const as = (typeof type === "string" ? type : type?.type) ?? "text";
      if (as !== "text" && as !== "json") throw new TypeError(`KV get of ${JSON.stringify(name)}: type "${String(as)}" is not offered on Deno; read "text" or "json"`);
      const stored = await read(name);
      if (!stored) return null;
      return as === "json" ? JSON.parse(stored.value) : stored.value;
    },

    async put(name, value, options = {}) {
      if (typeof value !== "string") throw new TypeError(`KV put of ${JSON.stringify(name)}: the value must be a string on Deno`);
      const key = keyOf(name);
      const expiration = expirationOf(name, options);
      const stored: Stored = { value, ...(expiration !== undefined && { expiration }), ...(options.metadata !== undefined && { metadata: options.metadata }) };
      const bytes = new TextEncoder().encode(JSON.stringify(stored));
      if (bytes.length > MAX_VALUE_BYTES) throw new RangeError(`KV put of ${JSON.stringify(name)}: ${bytes.length} bytes with its expiration and metadata, more than the ${MAX_VALUE_BYTES} a Deno KV value holds`);
      await kv.set(key, bytes, expiration === undefined ? undefined : { expireIn: Math.max(1, expiration * MS_PER_SECOND - Date.now()) });
    },

    async delete(name) {
      await kv.delete(keyOf(name));
    },

    async list<Metadata>(options: KvListOptions = {}): Promise<KvListResult<Metadata>> {
      const namePrefix = options.prefix ?? "";
      const limit = options.limit ?? MAX_LIST_LIMIT;
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) throw new RangeError(`KV list: limit must be a whole number from 1 to ${MAX_LIST_LIMIT}, not ${limit}`);
      // A cursor is the last name of the page before; the next page starts just past it (the
      // least key after `[...prefix, name]` is `[...prefix, name + "\0"]`). One of another listing
      // would start outside this prefix's range.
      const { cursor } = options;
      if (cursor !== undefined && !cursor.startsWith(namePrefix)) throw new TypeError(`KV list: the cursor ${JSON.stringify(cursor)} is not from a listing of the prefix ${JSON.stringify(namePrefix)}`);
      const start: Deno.KvKey = [...prefix, cursor === undefined ? namePrefix : `${cursor}\0`];
      const keys: KvListKey<Metadata>[] = [];
      for await (const entry of kv.list<Uint8Array>({ prefix, start })) {
        const name = entry.key[prefix.length];
        if (typeof name !== "string" || !name.startsWith(namePrefix)) break;
        const stored = live(decoded(entry.value));
        if (!stored) continue;
        // One live key past the page says there is another page.
        if (keys.length === limit) return { keys, list_complete: false, cursor: keys[limit - 1]!.name, cacheStatus: null };
        keys.push({ name, ...(stored.expiration !== undefined && { expiration: stored.expiration }), ...(stored.metadata !== undefined && { metadata: stored.metadata as Metadata }) });
      }
      return { keys, list_complete: true, cacheStatus: null };
    },
  } as KvNamespace;
}

function checkedName(name: string): string {
  if (typeof name !== "string" || name === "") throw new TypeError("A KV key name must be a non-empty string");
  const bytes = new TextEncoder().encode(name).length;
  if (bytes > MAX_NAME_BYTES) throw new RangeError(`The KV key name ${JSON.stringify(name.slice(0, 64))}… is ${bytes} bytes, more than the ${MAX_NAME_BYTES} a name may have`);
  return name;
}

/** The expiration `options` ask for, in seconds since the epoch; undefined for none. */
function expirationOf(name: string, { expiration, expirationTtl }: KvPutOptions): number | undefined {
  const at = expiration ?? (expirationTtl === undefined ? undefined : Date.now() / MS_PER_SECOND + expirationTtl);
  if (at === undefined) return undefined;
  if (!Number.isFinite(at) || at * MS_PER_SECOND <= Date.now()) throw new RangeError(`KV put of ${JSON.stringify(name)}: the expiration must be in the future (expiration ${expiration}, expirationTtl ${expirationTtl})`);
  return at;
}

function decoded(bytes: Uint8Array): Stored {
  return JSON.parse(new TextDecoder().decode(bytes)) as Stored;
}

/** `stored`, or undefined once it has expired (Deno KV deletes it later). */
function live(stored: Stored): Stored | undefined {
  return stored.expiration !== undefined && stored.expiration * MS_PER_SECOND <= Date.now() ? undefined : stored;
}

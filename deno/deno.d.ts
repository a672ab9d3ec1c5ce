/**
 * The few Deno APIs the Deno entries use, declared for `tsc` (which checks the whole repository
 * with Workers and Node types, not Deno's). Deno itself type-checks these files against its own
 * complete declarations (`deno check`, `deno task check`).
 */
declare namespace Deno {
  const args: string[];
  const env: { get(name: string): string | undefined; toObject(): Record<string, string> };
  const stdin: { readable: ReadableStream<Uint8Array> };
  const stdout: { writable: WritableStream<Uint8Array> };
  function exit(code?: number): never;
  function cwd(): string;
  function readTextFile(path: string): Promise<string>;
  function addSignalListener(signal: "SIGINT" | "SIGTERM", handler: () => void): void;

  interface ServeHandlerInfo {
    remoteAddr: { hostname: string; port: number };
  }
  interface HttpServer {
    finished: Promise<void>;
    shutdown(): Promise<void>;
  }
  function serve(
    options: { hostname?: string; port?: number; onListen?(address: { hostname: string; port: number }): void; signal?: AbortSignal },
    handler: (request: Request, info: ServeHandlerInfo) => Response | Promise<Response>,
  ): HttpServer;

  function upgradeWebSocket(request: Request, options?: { protocol?: string }): { socket: WebSocket; response: Response };

  type KvKey = readonly (string | number)[];
  interface KvEntryMaybe<T> {
    key: KvKey;
    value: T | null;
    versionstamp: string | null;
  }
  interface AtomicOperation {
    check(...checks: { key: KvKey; versionstamp: string | null }[]): AtomicOperation;
    set(key: KvKey, value: unknown, options?: { expireIn?: number }): AtomicOperation;
    delete(key: KvKey): AtomicOperation;
    sum(key: KvKey, n: bigint): AtomicOperation;
    commit(): Promise<{ ok: true; versionstamp: string } | { ok: false }>;
  }
  interface Kv {
    get<T = unknown>(key: KvKey): Promise<KvEntryMaybe<T>>;
    getMany<T extends readonly unknown[]>(keys: readonly KvKey[]): Promise<{ [K in keyof T]: KvEntryMaybe<T[K]> }>;
    set(key: KvKey, value: unknown, options?: { expireIn?: number }): Promise<unknown>;
    delete(key: KvKey): Promise<void>;
    list<T = unknown>(selector: { prefix: KvKey; start?: KvKey; end?: KvKey } | { start: KvKey; end: KvKey }, options?: { limit?: number; reverse?: boolean }): AsyncIterable<{ key: KvKey; value: T; versionstamp: string }>;
    atomic(): AtomicOperation;
    watch<T extends readonly unknown[]>(keys: readonly KvKey[]): ReadableStream<{ [K in keyof T]: KvEntryMaybe<T[K]> }>;
    close(): void;
  }
  function openKv(path?: string): Promise<Kv>;
}

/** Deno's: whether this module is the one the process was started with. */
interface ImportMeta {
  readonly main: boolean;
}

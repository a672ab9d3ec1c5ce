/**
 * Runtime configuration from environment variables (Worker `[vars]`, or the Deno host's env),
 * with the defaults every limit has. A value that is set but malformed fails loudly with the
 * variable's name, rather than silently falling back to a default the operator did not choose.
 *
 * Durations are capped at startup: one armed with `setTimeout` must fit its 32-bit delay
 * (`MAX_TIMER_MS`, about 24.8 days), or it would fire at once instead of never. The session idle
 * TTL may be longer, because its expiry is a Durable Object alarm (an epoch time) or, on the
 * local host, a timer re-armed in `delayFor` steps.
 */
import { isLogLevel, LOG_LEVELS, type LogLevel } from "../protocol/logLevels.ts";
import { MAX_TIMER_MS } from "./timerLimits.ts";

/**
 * Upper bound, in ms, of `SESSION_IDLE_TTL_MS`: 365 days. Beyond `MAX_TIMER_MS` on purpose, since
 * operators may keep idle sessions for a month or more; a year still keeps `lastActivity + ttl`
 * a sane epoch time and catches a value typed in the wrong unit.
 */
export const MAX_SESSION_IDLE_TTL_MS = 365 * 24 * 60 * 60 * 1000;

/** Upper bound, in ms, of `HOME_RETENTION_MS`: ten years. A home's retention is an alarm at an epoch time, or a chain of timers locally. */
export const MAX_HOME_RETENTION_MS = 3_650 * 24 * 60 * 60 * 1000;

/** Upper bound of `TASK_LEASE_MS`: 5 minutes, so a lost run is not left waiting long. */
export const MAX_TASK_LEASE_MS = 5 * 60_000;

/** Upper bound of `TASK_TIMEOUT_MS`: 14 minutes, inside the 15 a Durable Object's alarm handler may run. */
export const MAX_TASK_TIMEOUT_MS = 14 * 60_000;

/** The headers `TRUST_PROXY` may name: where a reverse proxy in front puts the client's address. */
export const TRUST_PROXY_HEADERS = ["x-forwarded-for", "x-real-ip", "cf-connecting-ip"] as const;
export type TrustProxy = (typeof TRUST_PROXY_HEADERS)[number];

export interface Config {
  /** Operator log threshold (`LOG_LEVEL`). */
  logLevel: LogLevel;
  /** A `:` comment on every idle open stream this often (`KEEPALIVE_INTERVAL_MS`, at most `MAX_TIMER_MS`). */
  keepaliveIntervalMs: number;
  /** Largest accepted request body (`MAX_BODY_BYTES`). */
  maxBodyBytes: number;
  /**
   * Node: a request whose headers and body have not all arrived this long after its first byte
   * is answered 408 and its connection closed (`REQUEST_TIMEOUT_MS`, at most `MAX_TIMER_MS`).
   * Receiving only: an answer streamed for hours (a GET stream, a listen) is not cut.
   */
  requestTimeoutMs: number;
  /**
   * Node: connections one address (an IPv6 /64) holds open at once (`MAX_CONNECTIONS_PER_ADDRESS`);
   * a further one has its requests answered 429. Not counted behind `TRUST_PROXY`, where every
   * connection is the proxy's.
   */
  maxConnectionsPerAddress: number;
  /**
   * A tool's or prompt's arguments, as compact UTF-8 JSON, checked before validation
   * (`MAX_ARGUMENT_BYTES`); a tool's own `limits.maxBytes` wins. See `ArgumentLimits.ts`.
   */
  maxArgumentBytes: number;
  /** Nesting of the arguments, the arguments object being level 1 (`MAX_ARGUMENT_DEPTH`); a tool's `limits.maxDepth` wins. */
  maxArgumentDepth: number;
  /** Values in the arguments: array items and object members, at every level (`MAX_ARGUMENT_VALUES`); a tool's `limits.maxValues` wins. */
  maxArgumentValues: number;
  /** Outbound queue cap per session, in bytes of encoded events (`MAX_QUEUE_BYTES`). */
  maxQueueBytes: number;
  /** Outbound queue cap per session, in messages, counting accepted requests not yet answered (`MAX_QUEUE_MESSAGES`). */
  maxQueueMessages: number;
  /** Handlers running at once per session; further accepted requests wait their turn (`MAX_CONCURRENT_HANDLERS`). */
  maxConcurrentHandlers: number;
  /** A handler still running after this long is aborted and its request answered with -32001 (`HANDLER_TIMEOUT_MS`, at most `MAX_TIMER_MS`). */
  handlerTimeoutMs: number;
  /**
   * A session with no open stream and no traffic for this long is deleted (`SESSION_IDLE_TTL_MS`).
   * At most `MAX_SESSION_IDLE_TTL_MS` (365 days), beyond one timer's reach: Durable Objects arm
   * expiry as an alarm at an epoch time; the local host chains timers of at most `MAX_TIMER_MS`.
   */
  sessionIdleTtlMs: number;
  /** Stored SSE events kept per session for `Last-Event-ID` resumption (`MAX_STORED_EVENTS`). */
  maxStoredEvents: number;
  /** Bytes of stored SSE events kept per session (`MAX_STORED_BYTES`). */
  maxStoredBytes: number;
  /** How long a 2026-07-28 `requestState` stays valid for the client's retry (`REQUEST_STATE_TTL_MS`, at most `MAX_TIMER_MS`). */
  requestStateTtlMs: number;
  /**
   * The `retry` hint, in ms, that 2025-11-25 clients get in the priming event of each stream
   * (`SSE_RETRY_MS`, at most `MAX_TIMER_MS`: clients wait it out with a timer).
   */
  sseRetryMs: number;
  /** How long a task (tasks extension) and its result are kept from its creation (`TASK_TTL_MS`, at most `MAX_TIMER_MS`); then every key of it is deleted. */
  taskTtlMs: number;
  /**
   * A task's handler still running after this long is aborted, and the task fails with -32603
   * (`TASK_TIMEOUT_MS`, at most `MAX_TASK_TIMEOUT_MS`: on Workers a task runs in its object's
   * alarm handler, which the platform stops after 15 minutes).
   */
  taskTimeoutMs: number;
  /** The `pollIntervalMs` tasks suggest to their clients (`TASK_POLL_INTERVAL_MS`). */
  taskPollIntervalMs: number;
  /**
   * How far ahead a task's run holds its wakeup (`TASK_LEASE_MS`, renewed every third of it): a run
   * lost with its host (a deploy, a crash, a Deno process killed) starts again within about this
   * long. At most 5 minutes.
   */
  taskLeaseMs: number;
  /** Tasks held at once by one process, or by the processes on a store (Deno KV, PostgreSQL) (`MAX_TASKS`); on Workers each task is an object of its own. */
  maxTasks: number;
  /** Tasks one client holds at once, from creation to cancellation or TTL (`MAX_TASKS_PER_CLIENT`). */
  maxTasksPerClient: number;
  /** Bytes of task arguments held at once by one process, or by the processes on a store (`MAX_TASK_BYTES`). */
  maxTaskBytes: number;
  /** Bytes of task arguments one client holds at once (`MAX_TASK_BYTES_PER_CLIENT`). */
  maxTaskBytesPerClient: number;
  /** Sessions held at once by one process, or by the processes on a store (Deno KV, PostgreSQL) (`MAX_SESSIONS`); on Workers each session is an object of its own. */
  maxSessions: number;
  /** Sessions one client holds at once (`MAX_SESSIONS_PER_CLIENT`). */
  maxSessionsPerClient: number;
  /** `subscriptions/listen` requests one client holds open at once, per isolate or process (`MAX_LISTENS_PER_CLIENT`). */
  maxListensPerClient: number;
  /**
   * A user's or a handle's home unused for this long is deleted, every key of it (`HOME_RETENTION_MS`,
   * at most `MAX_HOME_RETENTION_MS`). "Used" means a handler ran there, or a write.
   */
  homeRetentionMs: number;
  /** Bytes one home may store, values and keys as their storage counts them (`MAX_HOME_BYTES`); a write past it is refused. */
  maxHomeBytes: number;
  /** Keys one home may store (`MAX_HOME_KEYS`); a write of a new key past it is refused. */
  maxHomeKeys: number;
  /** Handles one client holds at once, from a handle's first write to its erasure (`MAX_HANDLES_PER_CLIENT`). */
  maxHandlesPerClient: number;
  /** Handles one process holds at once where homes are in its memory (Deno without `--kv`, Node, stdio) (`MAX_HANDLES`). */
  maxHandles: number;
  /** Browser origins allowed besides loopback ones in local development (`ALLOWED_ORIGINS`, comma-separated, or `*`). */
  allowedOrigins: readonly string[] | "*";
  /**
   * Host names the server answers to (`ALLOWED_HOSTS`, comma-separated, e.g. `localhost,127.0.0.1`);
   * empty for any. `npm start` sets the loopback names, so a DNS-rebinding request (whose `Host` is
   * the attacker's name) is refused even when it carries no `Origin`.
   */
  allowedHosts: readonly string[];
  /**
   * The header a reverse proxy in front puts the client's address in (`TRUST_PROXY`:
   * `x-forwarded-for`, its right-most entry; `x-real-ip`; `cf-connecting-ip`), read for rate limits
   * and fair shares. Unset: the runtime's own — the socket's peer on Deno and Node, `CF-Connecting-IP` on
   * Cloudflare, the socket's peer on self-hosted workerd. Set it only where a proxy really writes that header, or clients choose their address.
   */
  trustProxy?: TrustProxy;
}

export const DEFAULT_CONFIG: Config = {
  logLevel: "info",
  keepaliveIntervalMs: 25_000,
  maxBodyBytes: 4 * 1024 * 1024,
  requestTimeoutMs: 30_000,
  maxConnectionsPerAddress: 64,
  maxArgumentBytes: 1024 * 1024,
  maxArgumentDepth: 32,
  maxArgumentValues: 10_000,
  maxQueueBytes: 4 * 1024 * 1024,
  maxQueueMessages: 1_000,
  maxConcurrentHandlers: 8,
  handlerTimeoutMs: 60_000,
  sessionIdleTtlMs: 30 * 60_000,
  maxStoredEvents: 1_000,
  maxStoredBytes: 8 * 1024 * 1024,
  sseRetryMs: 1_000,
  requestStateTtlMs: 10 * 60_000,
  taskTtlMs: 60 * 60_000,
  taskTimeoutMs: 10 * 60_000,
  taskPollIntervalMs: 2_000,
  taskLeaseMs: 60_000,
  maxTasks: 1_000,
  maxTasksPerClient: 100,
  maxTaskBytes: 256 * 1024 * 1024,
  maxTaskBytesPerClient: 32 * 1024 * 1024,
  maxSessions: 10_000,
  maxSessionsPerClient: 1_000,
  maxListensPerClient: 10,
  homeRetentionMs: 90 * 24 * 60 * 60 * 1000,
  maxHomeBytes: 16 * 1024 * 1024,
  maxHomeKeys: 10_000,
  maxHandlesPerClient: 100,
  maxHandles: 10_000,
  allowedOrigins: [],
  allowedHosts: [],
};

const NUMERIC: Record<Exclude<keyof Config, "logLevel" | "allowedOrigins" | "allowedHosts" | "trustProxy">, string> = {
  keepaliveIntervalMs: "KEEPALIVE_INTERVAL_MS",
  maxBodyBytes: "MAX_BODY_BYTES",
  requestTimeoutMs: "REQUEST_TIMEOUT_MS",
  maxConnectionsPerAddress: "MAX_CONNECTIONS_PER_ADDRESS",
  maxArgumentBytes: "MAX_ARGUMENT_BYTES",
  maxArgumentDepth: "MAX_ARGUMENT_DEPTH",
  maxArgumentValues: "MAX_ARGUMENT_VALUES",
  maxQueueBytes: "MAX_QUEUE_BYTES",
  maxQueueMessages: "MAX_QUEUE_MESSAGES",
  maxConcurrentHandlers: "MAX_CONCURRENT_HANDLERS",
  handlerTimeoutMs: "HANDLER_TIMEOUT_MS",
  sessionIdleTtlMs: "SESSION_IDLE_TTL_MS",
  maxStoredEvents: "MAX_STORED_EVENTS",
  maxStoredBytes: "MAX_STORED_BYTES",
  sseRetryMs: "SSE_RETRY_MS",
  requestStateTtlMs: "REQUEST_STATE_TTL_MS",
  taskTtlMs: "TASK_TTL_MS",
  taskTimeoutMs: "TASK_TIMEOUT_MS",
  taskPollIntervalMs: "TASK_POLL_INTERVAL_MS",
  taskLeaseMs: "TASK_LEASE_MS",
  maxTasks: "MAX_TASKS",
  maxTasksPerClient: "MAX_TASKS_PER_CLIENT",
  maxTaskBytes: "MAX_TASK_BYTES",
  maxTaskBytesPerClient: "MAX_TASK_BYTES_PER_CLIENT",
  maxSessions: "MAX_SESSIONS",
  maxSessionsPerClient: "MAX_SESSIONS_PER_CLIENT",
  maxListensPerClient: "MAX_LISTENS_PER_CLIENT",
  homeRetentionMs: "HOME_RETENTION_MS",
  maxHomeBytes: "MAX_HOME_BYTES",
  maxHomeKeys: "MAX_HOME_KEYS",
  maxHandlesPerClient: "MAX_HANDLES_PER_CLIENT",
  maxHandles: "MAX_HANDLES",
};

/**
 * The largest value each duration may take, and why. Anything armed with `setTimeout` must fit
 * `MAX_TIMER_MS`; see `MAX_SESSION_IDLE_TTL_MS` for why the idle TTL may exceed it.
 */
const TIMER_BOUND = { ms: MAX_TIMER_MS, why: "the longest delay setTimeout can hold, about 24.8 days" };
const MAX_DURATION: Partial<Record<keyof typeof NUMERIC, { ms: number; why: string }>> = {
  keepaliveIntervalMs: TIMER_BOUND,
  requestTimeoutMs: TIMER_BOUND,
  handlerTimeoutMs: TIMER_BOUND,
  sessionIdleTtlMs: { ms: MAX_SESSION_IDLE_TTL_MS, why: "365 days" },
  requestStateTtlMs: TIMER_BOUND,
  sseRetryMs: TIMER_BOUND,
  taskTtlMs: TIMER_BOUND,
  taskTimeoutMs: { ms: MAX_TASK_TIMEOUT_MS, why: "14 minutes: a Durable Object's alarm handler runs at most 15" },
  taskPollIntervalMs: TIMER_BOUND,
  taskLeaseMs: { ms: MAX_TASK_LEASE_MS, why: "5 minutes" },
  homeRetentionMs: { ms: MAX_HOME_RETENTION_MS, why: "ten years" },
};

const cache = new WeakMap<object, Config>();

/** @example readConfig({ MAX_QUEUE_MESSAGES: "50" }).maxQueueMessages // 50 */
export function readConfig(env: Readonly<Record<string, unknown>>): Config {
  const cached = cache.get(env);
  if (cached) return cached;
  const config: Config = { ...DEFAULT_CONFIG };
  for (const [key, name] of Object.entries(NUMERIC) as [keyof typeof NUMERIC, string][]) {
    const raw = env[name];
    if (raw === undefined || raw === "") continue;
    // Digits only: Number() would also take " 5 ", "1e3" and "0x10", which no operator means.
    const value = typeof raw === "string" && /^\d+$/.test(raw) ? Number(raw) : typeof raw === "number" ? raw : Number.NaN;
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new RangeError(`${name} must be a positive integer, got ${JSON.stringify(raw)}`);
    }
    const max = MAX_DURATION[key];
    if (max !== undefined && value > max.ms) throw new RangeError(`${name} must be at most ${max.ms} ms (${max.why}), got ${JSON.stringify(raw)}`);
    config[key] = value;
  }
  if (env.LOG_LEVEL !== undefined && env.LOG_LEVEL !== "") {
    if (!isLogLevel(env.LOG_LEVEL)) throw new RangeError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}; got ${JSON.stringify(env.LOG_LEVEL)}`);
    config.logLevel = env.LOG_LEVEL;
  }
  if (typeof env.ALLOWED_ORIGINS === "string" && env.ALLOWED_ORIGINS.trim() !== "") {
    config.allowedOrigins = env.ALLOWED_ORIGINS.trim() === "*" ? "*" : env.ALLOWED_ORIGINS.split(",").map(originOf);
  }
  if (typeof env.ALLOWED_HOSTS === "string" && env.ALLOWED_HOSTS.trim() !== "") {
    config.allowedHosts = env.ALLOWED_HOSTS.split(",").map(hostOf);
  }
  if (typeof env.TRUST_PROXY === "string" && env.TRUST_PROXY.trim() !== "") config.trustProxy = trustProxyOf(env.TRUST_PROXY);
  cache.set(env, config);
  return config;
}

/** One of `TRUST_PROXY_HEADERS`, in any case; anything else refused with the choices. */
function trustProxyOf(raw: string): TrustProxy {
  const header = raw.trim().toLowerCase();
  const known = TRUST_PROXY_HEADERS.find((name) => name === header);
  if (known) return known;
  throw new RangeError(`TRUST_PROXY must name the header your reverse proxy puts the client's address in: x-forwarded-for, x-real-ip or cf-connecting-ip; got ${JSON.stringify(raw)}`);
}

/** Normalises one ALLOWED_ORIGINS entry to `scheme://host[:port]`, refusing anything else. */
function originOf(entry: string): string {
  const trimmed = entry.trim();
  let url: URL | undefined;
  try {
    url = new URL(trimmed);
  } catch {
    // reported below
  }
  if (!url || url.origin === "null" || url.origin !== trimmed.replace(/\/$/, "")) {
    throw new RangeError(`ALLOWED_ORIGINS entries must be origins like https://app.example.com, got ${JSON.stringify(trimmed)}`);
  }
  return url.origin;
}

/** Normalises one ALLOWED_HOSTS entry to a URL host name (lower case, IPv6 in brackets), refusing ports and paths. */
function hostOf(entry: string): string {
  const trimmed = entry.trim().toLowerCase();
  let hostname: string | undefined;
  try {
    hostname = new URL(`http://${trimmed}`).hostname;
  } catch {
    // reported below
  }
  if (!hostname || hostname !== trimmed) {
    throw new RangeError(`ALLOWED_HOSTS entries must be host names like mcp.example.com or [::1], without port or scheme; got ${JSON.stringify(entry.trim())}`);
  }
  return hostname;
}

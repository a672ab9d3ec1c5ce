/**
 * The bounds of each fair share, read from the configuration, and the refusal each one answers
 * with (see `Shares.ts`). One place words them, whichever host counts.
 *
 * Where a host counts a total, room is kept for newcomers. Until `CROWDED_SHARE` of the total is
 * held, each client has its own bounds only; past it, a client takes more only while `FREE_PER_HELD`
 * times what its network holds stays free after it (`networkOf`: an address's IPv4 /24 or IPv6 /48,
 * counted as one; a principal is its own). What one client or network may hold shrinks as the
 * server fills, and only a client whose network holds nothing takes the last one.
 */
import type { Config } from "../config/readConfig.ts";
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";
import type { Holding, ShareResource } from "./Shares.ts";

/** The share of a total from which the server is crowded, and a client's network must leave room for newcomers. */
export const CROWDED_SHARE = 0.5;
/** Past `CROWDED_SHARE`, how many times what a client's network holds must stay free for it to take more. */
export const FREE_PER_HELD = 4;

export interface ShareLimit {
  /** Holdings one client may have at once. */
  perClient: number;
  /** Bytes one client's holdings may claim together; none: not counted. */
  perClientBytes?: number;
  /** Holdings of everyone at once, where the host is one process; none on Workers. */
  total?: number;
  totalBytes?: number;
  /** What a refused client is told to wait: about how soon a holding of this kind frees itself. */
  retryAfterSeconds: number;
  /** How the sentence names one holding, and the variables it names. */
  noun: string;
  variables: { perClient: string; perClientBytes?: string; total?: string; totalBytes?: string };
}

export function shareLimits(config: Config): Record<ShareResource, ShareLimit> {
  return {
    session: {
      perClient: config.maxSessionsPerClient,
      total: config.maxSessions,
      // A session's slot frees when it ends: at the latest, its idle TTL after its last use.
      retryAfterSeconds: 60,
      noun: "sessions",
      variables: { perClient: "MAX_SESSIONS_PER_CLIENT", total: "MAX_SESSIONS" },
    },
    task: {
      perClient: config.maxTasksPerClient,
      perClientBytes: config.maxTaskBytesPerClient,
      total: config.maxTasks,
      totalBytes: config.maxTaskBytes,
      retryAfterSeconds: 60,
      noun: "tasks",
      variables: { perClient: "MAX_TASKS_PER_CLIENT", perClientBytes: "MAX_TASK_BYTES_PER_CLIENT", total: "MAX_TASKS", totalBytes: "MAX_TASK_BYTES" },
    },
    handle: {
      perClient: config.maxHandlesPerClient,
      total: config.maxHandles,
      // A handle's slot frees when its home is erased: its retention, or its revocation by a tool.
      retryAfterSeconds: 60,
      noun: "handles",
      variables: { perClient: "MAX_HANDLES_PER_CLIENT", total: "MAX_HANDLES" },
    },
  };
}

/** How many holdings, and how many bytes they claim together: what `checkShare` compares with the bounds. */
export function tally(holdings: Iterable<Holding>): { count: number; bytes: number } {
  let count = 0;
  let bytes = 0;
  for (const holding of holdings) {
    count++;
    bytes += holding.bytes;
  }
  return { count, bytes };
}

/**
 * Which bound a claim would pass: the refusal, or undefined when it fits. `total`: what everyone
 * holds, where the host counts it; `network`: what the client's network holds, the client's own
 * included, where the client is an address (`networkOf`).
 */
export function checkShare(
  limit: ShareLimit,
  held: { count: number; bytes: number },
  total: { count: number; bytes: number } | undefined,
  bytes: number,
  network?: { count: number; bytes: number },
): McpError | undefined {
  const { noun, variables } = limit;
  if (held.count + 1 > limit.perClient) return refusal(limit, `This client holds ${held.count} ${noun}, the most one client may hold at once (${variables.perClient})`);
  if (limit.perClientBytes !== undefined && held.bytes + bytes > limit.perClientBytes) {
    return refusal(limit, `This client's ${noun} would hold ${held.bytes + bytes} bytes of arguments, past the ${limit.perClientBytes} one client may (${variables.perClientBytes})`);
  }
  if (!total) return undefined;
  if (limit.total !== undefined && total.count + 1 > limit.total) return refusal(limit, `This server holds ${total.count} ${noun}, the most it holds at once (${variables.total})`);
  if (limit.totalBytes !== undefined && total.bytes + bytes > limit.totalBytes) {
    return refusal(limit, `This server's ${noun} would hold ${total.bytes + bytes} bytes of arguments, past the ${limit.totalBytes} it holds at once (${variables.totalBytes})`);
  }
  // Room for newcomers once crowded, judged by the client's network (which holds at least what the client does).
  const whose = network ?? held;
  const who = (theirs: number, mine: number) => (theirs > mine ? "this client's network (its IPv4 /24 or IPv6 /48)" : "this client");
  if (limit.total !== undefined && total.count + 1 > limit.total * CROWDED_SHARE && limit.total - total.count - 1 < FREE_PER_HELD * whose.count) {
    return refusal(
      limit,
      `This server has ${limit.total - total.count} of its ${limit.total} ${noun} free (${variables.total}), too few to give one more to ${who(whose.count, held.count)}, holding ${whose.count}: past ${CROWDED_SHARE * 100}% full, one more is given only while ${FREE_PER_HELD} times what is held stays free`,
    );
  }
  if (limit.totalBytes !== undefined && total.bytes + bytes > limit.totalBytes * CROWDED_SHARE && limit.totalBytes - total.bytes - bytes < FREE_PER_HELD * whose.bytes) {
    return refusal(
      limit,
      `This server has ${limit.totalBytes - total.bytes} of its ${limit.totalBytes} bytes of ${noun}' arguments free (${variables.totalBytes}), too few to store ${bytes} more for ${who(whose.bytes, held.bytes)}, holding ${whose.bytes}: past ${CROWDED_SHARE * 100}% full, more is stored only while ${FREE_PER_HELD} times what is held stays free`,
    );
  }
  return undefined;
}

function refusal(limit: ShareLimit, sentence: string): McpError {
  // The wait travels in `data` too: a refusal answered as a JSON-RPC reply (a 2026-07-28 call's) gets its Retry-After from there.
  return new McpError(429, ErrorCode.ServerBusy, `${sentence}; retry after ${limit.retryAfterSeconds}s`, { retryAfterSeconds: limit.retryAfterSeconds }, { "retry-after": String(limit.retryAfterSeconds) });
}

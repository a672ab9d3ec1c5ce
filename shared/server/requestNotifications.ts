/**
 * A handler's `ctx.progress` and `ctx.log`, one rule for every era: progress only when the
 * request carried a `progressToken`, logs only at or above the level the client chose (a session's
 * `logging/setLevel`, or a 2026-07-28 request's `_meta` logLevel). Where the notifications go
 * is the caller's: `send` queues one on the request's stream.
 */
import { atLeast, type LogLevel } from "../protocol/logLevels.ts";
import type { RequestContext } from "./types.ts";

type Notification = { jsonrpc: "2.0"; method: string; params: Record<string, unknown> };

/** @param threshold read when a log is sent: a session may change its level while a handler runs. */
export function requestNotifications(
  send: (notification: Notification) => Promise<void>,
  progressToken: unknown,
  threshold: () => LogLevel | undefined,
): Pick<RequestContext, "progress" | "log"> {
  return {
    progress: async (progress, total, message) => {
      if (typeof progressToken !== "string" && typeof progressToken !== "number") return;
      const params: Record<string, unknown> = { progressToken, progress };
      if (total !== undefined) params.total = total;
      if (message !== undefined) params.message = message;
      await send({ jsonrpc: "2.0", method: "notifications/progress", params });
    },
    log: async (level, data, logger) => {
      const min = threshold();
      if (!min || !atLeast(level, min)) return;
      await send({ jsonrpc: "2.0", method: "notifications/message", params: logger === undefined ? { level, data } : { level, data, logger } });
    },
  };
}

/**
 * The one stream a stateless request (or a `subscriptions/listen`) is answered on: JSON or SSE,
 * no event ids, bounded like every stream by MAX_QUEUE_BYTES / MAX_QUEUE_MESSAGES. It owes one
 * reply, and finishes once that reply is sent or dropped (`settled()`).
 */
import { QueueBudget } from "../session/QueueBudget.ts";
import { Channel } from "../transport/Channel.ts";
import type { CloseReason } from "../transport/SseStream.ts";
import type { StatelessDeps } from "./handleStateless.ts";

export function requestChannel(id: string, deps: StatelessDeps, onDisconnect: (reason: CloseReason) => void): Channel {
  const { config, logger } = deps;
  return new Channel({ id, budget: QueueBudget.fromConfig(config), keepaliveIntervalMs: config.keepaliveIntervalMs, log: logger, replies: 1, onDisconnect });
}

/**
 * Fan-out of change notifications to whoever is listening, wherever they are: a 2026-07-28
 * `subscriptions/listen` stream in one Worker isolate hears `ctx.resourceUpdated(uri)` called by a
 * handler in another. Messages go by topic — what is watched: `tools`, `prompts`, `resources`
 * (list changes) or `resource:<uri>` (one resource's updates).
 *
 * Its hosts: `MemoryBroadcaster` (one process: Deno, Node, tests, a Worker without the binding),
 * `capabilities/watch/durable/WatchObject.ts` (one Durable Object per topic, for every isolate), and
 * for several processes `capabilities/watch/postgres/PgBroadcaster.ts` (one PostgreSQL database)
 * and `capabilities/watch/deno/KvBroadcaster.ts` (one Deno KV database).
 * A subscriber is a byte stream of newline-delimited JSON messages; one that falls behind by more
 * than its bound is ended rather than buffered without limit (it may subscribe again).
 */

export interface Broadcaster {
  /** Delivers `message` to every current subscriber of `topic`. */
  publish(topic: string, message: object): Promise<void>;
  /** What is published to `topic` from now on, one JSON text per line; ends when `signal` aborts. */
  subscribe(topic: string, signal: AbortSignal): Promise<ReadableStream<Uint8Array>>;
}

export type ListTopic = "tools" | "prompts" | "resources";

export function resourceTopic(uri: string): string {
  return `resource:${uri}`;
}

/** The topic of one task's changes (tasks extension, `notifications/tasks`). */
export function taskTopic(taskId: string): string {
  return `task:${taskId}`;
}

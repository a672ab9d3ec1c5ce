/**
 * What a runtime supplies to the shared HTTP routes (`shared/routes/createRouter.ts`): where
 * sessions live and where change notifications fan out. Two runtimes implement it, each in one
 * thin entry: Workers (`worker/createWorker.ts`: a Durable Object per session, one per watched
 * topic) and a single process (`deno/main.ts`: `LocalSessionHost`, `MemoryBroadcaster`).
 */
import type { Broadcaster } from "../broadcast/Broadcaster.ts";
import type { SessionApi } from "../session/SessionEndpoint.ts";

/** Finds session `id`'s endpoint wherever it lives; the same id always reaches the same session. */
export interface SessionHost {
  session(id: string): SessionApi;
}

/** `E` is the runtime's environment: the Worker's `env`, or a process's variables. */
export interface Runtime<E> {
  sessions(env: E): SessionHost;
  broadcaster(env: E): Broadcaster;
}

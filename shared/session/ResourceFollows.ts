/**
 * The resources a 2025 session subscribed to (`resources/subscribe`), followed on the runtime's
 * broadcaster: a change announced anywhere — by another session, a 2026-07-28 call, a task, in
 * another isolate or process — reaches the session's client as `notifications/resources/updated`,
 * as the resources spec asks of a subscription. The session's own announcements reach it at once
 * and not through here: each message published by a session names it (`origin`), and a follow
 * skips its own.
 *
 * Bounded: one subscriber per URI, and a session holds at most MAX_SUBSCRIPTIONS; each
 * subscriber is bounded by its broadcaster. A follow whose subscriber ended (it fell behind, or
 * its broadcaster closed) is started again at the next change of the subscriptions.
 *
 * Hosted in processes only (`LocalSessions` hands this class to its sessions): on Workers a
 * follow would be a socket from the session's object to the topic's watch object, which keeps the
 * session object in memory for as long as it lives, so there a session hears its own changes only.
 */
import type { Broadcaster } from "../broadcast/Broadcaster.ts";
import { resourceTopic } from "../broadcast/Broadcaster.ts";
import { lines } from "../broadcast/lines.ts";
import type { Logger } from "../log/Logger.ts";

/** What a session publishes: the notification, and which session sent it. */
export interface Announcement {
  jsonrpc: "2.0";
  method: string;
  params?: Record<string, unknown>;
  /** The announcing session's id: its own follows skip it. */
  origin?: string;
}

export class ResourceFollows {
  readonly #broadcast: Broadcaster | undefined;
  readonly #origin: string;
  readonly #deliver: (json: string) => Promise<void>;
  readonly #log: Logger;
  readonly #follows = new Map<string, AbortController>();

  /** @param deliver sends one notification's JSON to the session's client */
  constructor(broadcast: Broadcaster | undefined, origin: string, deliver: (json: string) => Promise<void>, log: Logger) {
    this.#broadcast = broadcast;
    this.#origin = origin;
    this.#deliver = deliver;
    this.#log = log;
  }

  /** Follows exactly these URIs from now on: new ones are subscribed, the others let go. */
  sync(uris: readonly string[]): void {
    if (!this.#broadcast) return;
    const wanted = new Set(uris);
    for (const [uri, follow] of this.#follows) {
      if (wanted.has(uri)) continue;
      follow.abort();
      this.#follows.delete(uri);
    }
    for (const uri of wanted) if (!this.#follows.has(uri)) this.#follow(this.#broadcast, uri);
  }

  /** Lets go of every follow: the session ended. */
  close(): void {
    for (const follow of this.#follows.values()) follow.abort();
    this.#follows.clear();
  }

  #follow(broadcast: Broadcaster, uri: string): void {
    const follow = new AbortController();
    this.#follows.set(uri, follow);
    const ended = () => {
      if (this.#follows.get(uri) === follow) this.#follows.delete(uri);
    };
    void (async () => {
      const stream = await broadcast.subscribe(resourceTopic(uri), follow.signal);
      for await (const line of lines(stream)) {
        const { method, params, origin } = JSON.parse(line) as Announcement;
        if (origin === this.#origin || follow.signal.aborted) continue;
        await this.#deliver(JSON.stringify({ jsonrpc: "2.0", method, params }));
      }
    })()
      .catch((error) => follow.signal.aborted || this.#log.warn("subscription.follow-failed", { uri, message: String(error) }))
      .finally(ended);
  }
}

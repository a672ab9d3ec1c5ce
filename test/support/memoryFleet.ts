/**
 * Processes of one fleet inside one test process: the `Fleet` contract kept in maps, so the
 * relaying of sessions (`FleetSessions`) is tested without a database. What PostgreSQL and Deno KV
 * add (leases in time, messages through the store) is tested on them, in test/postgres and test/deno.
 * A message is delivered on a later turn of the event loop, in the order sent; `kill` makes a
 * process dead at once, as if its lease had lapsed, and drops what is sent to it.
 */
import type { Fleet, FleetMember } from "../../shared/runtime/Fleet.ts";

export class MemoryFleetHub {
  readonly #members = new Map<string, FleetMember>();
  readonly #dead = new Set<string>();
  readonly holders = new Map<string, string>();
  #count = 0;

  fleet(): Fleet {
    const hub = this;
    const self = `p${++this.#count}`;
    return {
      self,
      async join(member) {
        hub.#members.set(self, member);
      },
      async holder(sessionId) {
        const holder = hub.holders.get(sessionId);
        if (holder !== undefined && hub.alive(holder)) return holder;
        hub.holders.set(sessionId, self);
        return self;
      },
      async release(sessionId) {
        if (hub.holders.get(sessionId) === self) hub.holders.delete(sessionId);
      },
      async alive(id) {
        return hub.alive(id);
      },
      async send(to, message) {
        if (hub.alive(to)) setTimeout(() => hub.alive(to) && hub.#members.get(to)?.receive(message), 0);
      },
      async leave() {
        hub.#members.delete(self);
        for (const [id, holder] of hub.holders) if (holder === self) hub.holders.delete(id);
      },
    };
  }

  alive(id: string): boolean {
    return this.#members.has(id) && !this.#dead.has(id);
  }

  /** The process `id` stops at once: it answers nothing more, and what it held may be claimed. */
  kill(id: string): void {
    this.#dead.add(id);
  }
}

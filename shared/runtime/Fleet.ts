/**
 * The processes that serve one store together (several Node processes on one PostgreSQL, several
 * Deno instances on one KV), as a 2025 session needs them when no balancer pins a client to a
 * process. A session is held by one process at a time, its holder: the one that runs its handlers
 * and writes its streams. A request that reaches another process is carried to the holder as
 * messages through the store (`FleetSessions`), and its answer comes back the same way.
 *
 * Liveness is per process, not per session: a process that has joined renews its own lease every
 * HEARTBEAT_MS, and one whose lease is older than PROCESS_TTL_MS is dead. Whatever a dead process
 * held may be claimed by the next process that needs it, which loads the session from the store.
 * A process that could not renew its lease for PROCESS_TTL_MS must assume others took its
 * sessions: it is told through `expelled`, and serves nothing it held before.
 *
 * Messages are at-most-once and ordered per sender and receiver; a receiver that is gone loses
 * them, which the sender notices from its silence. They are bounded: MAX_FLEET_MESSAGE_BYTES.
 */

/** How often a process renews its lease. */
export const HEARTBEAT_MS = 5_000;
/** A process whose lease is older than this is dead: three heartbeats missed. */
export const PROCESS_TTL_MS = 15_000;
/** The largest message `send` takes (UTF-8 bytes): Deno KV's value limit, less room for its encoding. */
export const MAX_FLEET_MESSAGE_BYTES = 60_000;

export interface FleetMember {
  /** Called with each message sent to this process, in the order each sender sent them; must not throw. */
  receive(message: string): void;
  /** This process's lease lapsed (the store was out of reach too long): what it held may be another's now. */
  expelled(): void;
}

export interface Fleet {
  /** This process's id among the fleet: new at each start, so a restarted process holds nothing. */
  readonly self: string;
  /** Takes a lease for this process, renews it every HEARTBEAT_MS, and delivers its messages to `member`, until `leave()`. */
  join(member: FleetMember): Promise<void>;
  /**
   * Which process holds the session `sessionId`: this one when no live process did (the claim is
   * taken atomically, so two processes asking at once get the same answer), else the live holder.
   */
  holder(sessionId: string): Promise<string>;
  /** This process no longer holds the session (it ended): harmless when another does. */
  release(sessionId: string): Promise<void>;
  /** Whether the process `id` holds a lease now. */
  alive(id: string): Promise<boolean>;
  /**
   * Sends `message` to the process `to`; resolves once the store took it (not once it was read).
   * @throws when it is over MAX_FLEET_MESSAGE_BYTES
   */
  send(to: string, message: string): Promise<void>;
  /** Stops the lease's renewal, gives up every session this process holds and its lease, and stops listening. */
  leave(): Promise<void>;
}

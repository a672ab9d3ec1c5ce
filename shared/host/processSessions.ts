/**
 * The sessions a process hosts: in the process alone (`LocalSessions`), or, where its store brings
 * a fleet (the processes on one database or KV), held one per process and reached from any of
 * them (`FleetSessions`). Node and Deno serve either through the same calls.
 */
import type { LocalRuntime } from "../runtime/localRuntime.ts";
import { FleetSessions } from "./FleetSessions.ts";
import { LocalSessions } from "./LocalSessions.ts";
import type { Sessions } from "./SessionOperation.ts";

export interface ProcessSessions extends Sessions {
  /** Sessions in memory here now. */
  readonly size: number;
  /** Picks up the sessions the store kept (in a fleet, those no live process holds): before serving. */
  restoreStored(): Promise<void>;
  endOwnedBy(owner: string): Promise<number>;
  close(): void;
}

export function processSessions(runtime: LocalRuntime): ProcessSessions {
  const fleet = runtime.store?.fleet?.();
  return fleet ? new FleetSessions(runtime, fleet) : new LocalSessions(runtime);
}

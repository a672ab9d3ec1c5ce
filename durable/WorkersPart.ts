/**
 * What a capability adds to a Worker, where the package's `workerd` variant makes its factory
 * (`Extension.workers`): the Durable Object classes it brings, each made for one definition, and
 * the clients that reach their objects from the Worker and from the other objects. Each reads its
 * own binding from the environment and answers undefined where it is not bound. A Worker reaches
 * a capability only through its definition's list, so one without it ships none of its code.
 */
import type { Broadcaster } from "../shared/broadcast/Broadcaster.ts";
import type { Homes } from "../shared/home/Homes.ts";
import type { Shares } from "../shared/shares/Shares.ts";
import type { Tasks } from "../shared/tasks/Tasks.ts";
import type { CompiledServer } from "../shared/server/CompiledServer.ts";

/** A capability's Durable Object class, made for one definition (`createWorker` binds it to its definition). */
export type ObjectClass = new (ctx: DurableObjectState, env: any, definition: CompiledServer) => Rpc.DurableObjectBranded;

/** The Worker's environment, as a capability reads its binding from it. */
export type Bindings = Readonly<Record<string, unknown>>;

export interface WorkersPart {
  /** Its classes, by the name the entry exports each as (`McpTask`). */
  readonly objects?: Readonly<Record<string, ObjectClass>>;
  /** Change fan-out across isolates, each listener bounded to `maxBytes` unread. */
  broadcaster?(env: Bindings, maxBytes: number): Broadcaster | undefined;
  /** Where tools declared with `task` run. */
  tasks?(env: Bindings, maxBytes: number): Tasks | undefined;
  /** Where definitions with a home of their own run. */
  homes?(env: Bindings, definition: CompiledServer): Homes | undefined;
  /** The fair shares counted per client. */
  shares?(env: Bindings): Shares | undefined;
  /** Deletes a user's home, handles, sessions and tasks (`worker.deleteUserData`), given the Worker's env. */
  deleteUserData?(env: Bindings, who: { issuer: string; subject: string }): Promise<{ sessions: number; tasks: number }>;
}

/** The clients of a definition's capabilities on Workers, as one (each member comes from one capability; `objects` is read per capability). */
export function workersPart(definition: CompiledServer): WorkersPart {
  return Object.assign({}, ...definition.use.map((capability) => capability.workers));
}

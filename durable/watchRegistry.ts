/**
 * Whether this Worker's entry exports the watch class: `watchObject()` (`McpWatch`) says so, and
 * the Worker, the session objects and the task objects ask here for the broadcaster that reaches
 * the watch objects. So a Worker whose entry does not export the class ships none of the code that
 * calls it (issue 23: pay for what you use); its listeners hear the changes made in their own
 * isolate (`MemoryBroadcaster`). One registry per script, not per definition: a script binds the
 * class once. The same for the task class: `taskRegistry`; for homes, per definition: `homeRegistry`.
 */
import type { Broadcaster } from "../shared/broadcast/Broadcaster.ts";
import type { WatchObject } from "./WatchObject.ts";

/** How changes reach the watch objects of a namespace, each listener bounded to `maxBytes` unread. */
export type WatchObjects = (namespace: DurableObjectNamespace<WatchObject>, maxBytes: number) => Broadcaster;

let hosted: WatchObjects | undefined;

/** Called by `watchObject()`: changes reach every isolate through the watch objects. */
export function hostWatch(objects: WatchObjects): void {
  hosted = objects;
}

/** The watch objects' broadcaster, where the entry exports the class and `MCP_WATCH` is bound; else undefined. */
export function remoteBroadcaster(namespace: DurableObjectNamespace<WatchObject> | undefined, maxBytes: number): Broadcaster | undefined {
  return namespace && hosted?.(namespace, maxBytes);
}

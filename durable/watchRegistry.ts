/**
 * Whether this Worker's entry exports the watch class: `watchObject()` (`McpWatch`) hosts the
 * watch objects' broadcaster here, and the Worker, the session objects and the task objects ask
 * for it (`hostedClient`). Without the class, a listener hears the changes made in its own isolate
 * (`MemoryBroadcaster`). Homes, which are per definition, have their own registry (`homeRegistry`).
 */
import type { Broadcaster } from "../shared/broadcast/Broadcaster.ts";
import { hostedClient } from "./hostedClient.ts";
import type { WatchObject } from "./WatchObject.ts";

export const watchObjects = hostedClient<WatchObject, Broadcaster>();

/**
 * `watch()` as the package's `workerd` variant makes it: the same capability, plus its part on
 * Workers — the watch class an entry exports as `McpWatch` (bound as `MCP_WATCH`) and the
 * broadcaster that reaches its objects from the Worker, the session objects and the task objects.
 * Only a Worker whose definition lists `watch()` ships them.
 */
import type { Extension } from "../../../shared/definition/ServerOptions.ts";
import type { WorkersPart } from "../../../durable/WorkersPart.ts";
import { WATCH } from "../watch.ts";
import { durableBroadcaster, WatchObject } from "./WatchObject.ts";

const WATCH_ON_WORKERS: WorkersPart = {
  objects: { McpWatch: WatchObject },
  broadcaster: ({ MCP_WATCH }: { MCP_WATCH?: DurableObjectNamespace<WatchObject> }, maxBytes: number) => MCP_WATCH && durableBroadcaster(MCP_WATCH, maxBytes),
};

/** @example defineServer({ …, listChanged: { tools: true }, use: [watch()] }) */
export function watch(): Extension<"McpWatch"> {
  return { id: WATCH, workers: WATCH_ON_WORKERS };
}

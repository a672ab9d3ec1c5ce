/**
 * The watch Durable Object class, for a server whose lists or resources can change (`listChanged`,
 * resources, definitions declared with `enabled`): export a class extending it as `McpWatch`,
 * which wrangler.toml binds as `MCP_WATCH`, and every 2026-07-28 `subscriptions/listen` stream
 * hears a change made in any isolate. A call of its own, apart from `createWorker`, so that a
 * Worker with nothing to fan out does not ship the fan-out; calling it also tells the Worker and
 * its objects to publish there.
 *
 * @example
 * const worker = createWorker(server);
 * export class McpSession extends worker.McpSession {}
 * export class McpWatch extends watchObject() {}
 * export default { fetch: worker.fetch };
 */
import { durableBroadcaster, WatchObject } from "../durable/WatchObject.ts";
import { watchObjects } from "../durable/watchRegistry.ts";

export function watchObject(): typeof WatchObject {
  watchObjects.host(durableBroadcaster);
  return WatchObject;
}

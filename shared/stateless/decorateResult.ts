/**
 * What 2026-07-28 adds to every result, in one place: `resultType` (required on every result),
 * the server's identity in `_meta["io.modelcontextprotocol/serverInfo"]` (SHOULD, "unless
 * configured not to"), and caching hints (`ttlMs`, `cacheScope`) on the cacheable methods'
 * complete results. An interim `InputRequiredResult` carries no caching hints.
 */
import { META } from "../protocol/metaKeys.ts";
import type { Result } from "../definition/Method.ts";
import { CACHEABLE_METHODS, type CompiledServer } from "../server/CompiledServer.ts";
import type { CacheableMethod } from "../definition/ServerOptions.ts";

const CACHEABLE = new Set<string>(CACHEABLE_METHODS);

export function decorateResult(method: string, result: Result, server: CompiledServer): Result {
  const meta = typeof result._meta === "object" && result._meta !== null ? { ...result._meta, [META.serverInfo]: server.info } : { [META.serverInfo]: server.info };
  const decorated: Result = { ...result, resultType: result.resultType ?? "complete", _meta: meta };
  if (decorated.resultType === "complete" && CACHEABLE.has(method)) {
    const hint = server.cacheHint(method as CacheableMethod);
    decorated.ttlMs ??= hint.ttlMs;
    decorated.cacheScope ??= hint.cacheScope;
  }
  return decorated;
}

/**
 * What `tools/list`, `prompts/list`, `resources/list` and `resources/templates/list` show a
 * 2026-07-28 client that holds no session and no token and declares no capabilities: `GET /`'s
 * page lists that, and nothing a client would not be shown (a definition declared `enabled:
 * false`, an app-only tool, one that needs scopes).
 *
 * Not a second listing rule: the definition's own list methods decide (`isOffered`,
 * `LISTED_FOR`); this only calls them, page by page. A definition that cannot be served has no
 * methods, and so lists nothing.
 */
import type { Result } from "../definition/Method.ts";
import type { RequestContext, ServerEnv } from "../definition/RequestContext.ts";
import { MODERN_PROTOCOL_VERSIONS } from "../protocol/versions.ts";
import type { CompiledServer } from "../server/CompiledServer.ts";

/** Each list, by the key its result carries it under, and the method that gives it. */
const LISTS = { tools: "tools/list", prompts: "prompts/list", resources: "resources/list", resourceTemplates: "resources/templates/list" } as const;

export type Listing = Record<keyof typeof LISTS, Result[]>;

/** @example (await anonymousListing(definition, env)).tools.map((tool) => tool.name) */
export async function anonymousListing(definition: CompiledServer, env: ServerEnv): Promise<Listing> {
  // A list method reads the client, the session and the token (`SwitchView`, `ListedFor`); this
  // client has only the first. The rest of a context (progress, asks) is never reached by a listing.
  const ctx = { client: { protocolVersion: MODERN_PROTOCOL_VERSIONS.at(-1), capabilities: {} }, env, signal: new AbortController().signal } as unknown as RequestContext;
  const listing = {} as Listing;
  for (const [key, name] of Object.entries(LISTS) as [keyof Listing, string][]) {
    const list = definition.method(name);
    const items: Result[] = (listing[key] = []);
    let params: Record<string, unknown> = {};
    while (list) {
      const page = await list(params, ctx);
      items.push(...((page[key] as Result[] | undefined) ?? []));
      if (typeof page.nextCursor !== "string") break;
      params = { cursor: page.nextCursor };
    }
  }
  return listing;
}

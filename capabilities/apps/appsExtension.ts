/**
 * The MCP Apps extension's names (SEP-1865, `io.modelcontextprotocol/ui`) and how a client
 * declares it. Stated here, not imported from `@modelcontextprotocol/ext-apps`, so that a server
 * does not depend on that package (and the SDK it needs); a test checks them against it.
 */
import { isObject } from "../../shared/jsonrpc/isObject.ts";

export const APPS_EXTENSION = "io.modelcontextprotocol/ui";

/** The MIME type of a view: an HTML document that speaks to its host over `postMessage`. */
export const VIEW_MIME_TYPE = "text/html;profile=mcp-app";

/**
 * Whether the client renders views: it declared the extension with the view MIME type (in
 * `initialize` on a session, in each request's `_meta` on 2026-07-28). A tool with a view answers
 * such a client briefly (the view shows the data) and any other in full text.
 *
 * @example handler: async (args, ctx) => rendersViews(ctx) ? "Showing 3 states." : fullTextTable
 */
export function rendersViews(ctx: { readonly client: { readonly capabilities: Record<string, unknown> } }): boolean {
  return declaresViews(ctx.client);
}

/** `rendersViews`, from the client alone: what `tools/list` asks of an app-only tool. */
export function declaresViews(client: { readonly capabilities: Record<string, unknown> }): boolean {
  const extensions = client.capabilities.extensions;
  const settings = isObject(extensions) ? extensions[APPS_EXTENSION] : undefined;
  return isObject(settings) && Array.isArray(settings.mimeTypes) && settings.mimeTypes.includes(VIEW_MIME_TYPE);
}

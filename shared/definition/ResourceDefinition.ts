/**
 * How a server author declares resources (MCP resources spec): fixed ones with a URI, and
 * templates whose URI has `{variables}`. Both read through an async function; what it returns
 * becomes `ResourceContents` (see `toResourceContents`).
 *
 * Templates use RFC 6570 level 1 only (`{var}`, simple string expansion); see `UriTemplate`.
 */
import type { Home } from "./Home.ts";
import type { Completer, ContextIn } from "./RequestContext.ts";
import type { Annotations, ResourceContents } from "./types.ts";

/**
 * What a `read` function may return: text (sent as `text`), bytes (sent base64-encoded as
 * `blob`), or the full `contents` list when one read yields several items or needs `_meta`.
 */
export type ResourceReturn = string | Uint8Array | ResourceContents[];

/**
 * A resource with a fixed URI, listed by `resources/list`.
 *
 * @example
 * { uri: "config://app", name: "app-config", mimeType: "application/json",
 *   read: async (ctx) => JSON.stringify(await ctx.storage.get("config") ?? {}) }
 */
export interface ResourceDefinition<H extends Home = Home> {
  /** Unique within the server; any scheme (`file://`, `https://`, or your own such as `notes://`). */
  uri: string;
  name: string;
  title?: string;
  description?: string;
  /** Sent with the listing and with every content item that `read` returns as text or bytes. */
  mimeType?: string;
  /** The raw content's size in bytes (before base64), if known. */
  size?: number;
  annotations?: Annotations;
  /** Sent as the resource's `_meta` in `resources/list` (a content item's own `_meta` comes from `read`). */
  _meta?: Record<string, unknown>;
  /**
   * Makes it switchable per session with `ctx.setEnabled`, starting in this state. Leave it out
   * for a definition that is always on (see `ListKind.ts`).
   */
  enabled?: boolean;
  /**
   * OAuth scopes a request's token must grant for this to be listed and used; a call without them
   * gets 403 `insufficient_scope` naming them (step-up). Never offered where requests carry no
   * token (stdio, a server without `authorization`).
   */
  scopes?: readonly string[];
  /** Where `read` runs and whose storage `ctx.storage` is: `"session"` (default) or `"user"` (see `Home.ts`). */
  home?: H;
  read(ctx: ContextIn<H>): Promise<ResourceReturn>;
}

/** The variable names of a level-1 URI template: `"a://{x}/{y}"` gives `"x" | "y"`. */
export type TemplateVariables<T extends string> = string extends T
  ? string
  : T extends `${string}{${infer Name}}${infer Rest}`
    ? Name | TemplateVariables<Rest>
    : never;

/**
 * A family of resources whose URIs match `uriTemplate`, listed by `resources/templates/list`.
 * Only RFC 6570 level 1 (`{var}`) is supported: a variable matches one or more characters other
 * than `/`, `?` and `#`, and reaches `read` percent-decoded.
 *
 * @example
 * resourceTemplate({ uriTemplate: "notes://{id}", name: "note",
 *   read: async ({ id }, _uri, ctx) => (await ctx.storage.get<string>(`note:${id}`)) ?? "",
 *   complete: { id: async (prefix, ctx) => (await ctx.storage.get<string[]>("ids") ?? []).filter((i) => i.startsWith(prefix)) } })
 */
export interface ResourceTemplateDefinition<T extends string = string, H extends Home = Home> {
  uriTemplate: T;
  name: string;
  title?: string;
  description?: string;
  /** Only if every matching resource has this type (schema `ResourceTemplate.mimeType`). */
  mimeType?: string;
  annotations?: Annotations;
  /**
   * Makes it switchable per session with `ctx.setEnabled`, starting in this state. Leave it out
   * for a definition that is always on (see `ListKind.ts`).
   */
  enabled?: boolean;
  /**
   * OAuth scopes a request's token must grant for this to be listed and used; a call without them
   * gets 403 `insufficient_scope` naming them (step-up). Never offered where requests carry no
   * token (stdio, a server without `authorization`).
   */
  scopes?: readonly string[];
  /** Where `read` runs and whose storage `ctx.storage` is (see `Home.ts`); a handle travels in the template variable it names. */
  home?: H;
  /** `uri` is the URI the client asked for, exactly as sent. */
  read(vars: Record<TemplateVariables<T>, string>, uri: string, ctx: ContextIn<H>): Promise<ResourceReturn>;
  /** Completers for `completion/complete` with `ref: { type: "ref/resource", uri: <uriTemplate> }`. */
  complete?: Partial<Record<TemplateVariables<T>, Completer>>;
}

/**
 * Set by `resourceTemplate()` on the definition it returns: whether a URI matches the template.
 * Code that must match URIs without serving them (the router's scope check) reads it, so that the
 * template matcher travels with the helper and a server without templates does not carry it.
 */
export const MATCHES: unique symbol = Symbol("durable-mcp template matches");

/** A template definition as `resourceTemplate()` made it. */
export interface Matchable {
  [MATCHES]?: (uri: string) => boolean;
}


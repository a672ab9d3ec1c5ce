/**
 * Which definitions need which OAuth scopes, looked up from a request alone: the router asks it
 * before a request reaches its session, so a call to a tool, prompt or resource the token cannot
 * use is answered with HTTP 403 `insufficient_scope` naming the scopes (step-up) in every era —
 * on the legacy `/message` endpoint too, whose answers otherwise travel on the stream.
 *
 * The handlers apply the same declarations (`isOffered`): what a token lacks the scopes for is
 * neither listed nor usable, so a request that reaches them without passing here (stdio) finds
 * nothing. Only definitions that declare scopes are indexed; most servers have none.
 */
import { isObject } from "../jsonrpc/isObject.ts";
import { MAX_URI_CHARS } from "./resourceMethods.ts";
import type { ServerOptions } from "../definition/ServerOptions.ts";
import { type Matchable, MATCHES } from "../definition/ResourceDefinition.ts";

/** RFC 6749 §3.3 `scope-token`: printable ASCII except space, `"` and `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

const NONE: readonly string[] = [];

export class ScopeIndex {
  readonly #tools = new Map<string, readonly string[]>();
  readonly #prompts = new Map<string, readonly string[]>();
  readonly #resources = new Map<string, readonly string[]>();
  /** Every resource URI and template, in the order a read tries them, when any declares scopes. */
  readonly #templates: { uriTemplate: string; matches: (uri: string) => boolean; scopes: readonly string[] }[] = [];

  /** @throws TypeError for a `scopes` that is not a list of scope tokens. */
  constructor(options: ServerOptions) {
    const add = (map: Map<string, readonly string[]>, what: string, id: string, scopes: unknown) => {
      const checked = checkScopes(what, scopes);
      if (checked.length > 0) map.set(id, checked);
    };
    for (const tool of options.tools ?? []) add(this.#tools, `Tool ${JSON.stringify(tool.name)}`, tool.name, tool.scopes);
    for (const prompt of options.prompts ?? []) add(this.#prompts, `Prompt ${JSON.stringify(prompt.name)}`, prompt.name, prompt.scopes);
    // Every static resource, scoped or not: a read tries its exact URI before any template.
    for (const resource of options.resources ?? []) this.#resources.set(resource.uri, checkScopes(`Resource ${JSON.stringify(resource.uri)}`, resource.scopes));
    const templates = options.resourceTemplates ?? [];
    const scoped = templates.map((t) => checkScopes(`Resource template ${JSON.stringify(t.uriTemplate)}`, t.scopes));
    // Templates are matched only when one of them is scoped; then all are, for the first match to be the one a read would use.
    if (scoped.some((scopes) => scopes.length > 0)) {
      templates.forEach((t, i) => {
        const matches = (t as Matchable)[MATCHES];
        if (!matches) throw new TypeError(`Resource template ${JSON.stringify(t.uriTemplate)} was not made with resourceTemplate()`);
        this.#templates.push({ uriTemplate: t.uriTemplate, matches, scopes: scoped[i]! });
      });
    }
  }

  /** Whether any definition declares scopes: most servers have none, and then no request needs a lookup. */
  get empty(): boolean {
    return this.#tools.size === 0 && this.#prompts.size === 0 && this.#templates.length === 0 && ![...this.#resources.values()].some((scopes) => scopes.length > 0);
  }

  /** The scopes the definition a request names declares ([] when it names none, or one without scopes). */
  needed(method: string, params: unknown): readonly string[] {
    if (!isObject(params)) return NONE;
    switch (method) {
      case "tools/call":
        return typeof params.name === "string" ? (this.#tools.get(params.name) ?? NONE) : NONE;
      case "prompts/get":
        return typeof params.name === "string" ? (this.#prompts.get(params.name) ?? NONE) : NONE;
      case "resources/read":
      case "resources/subscribe":
      case "resources/unsubscribe":
        return typeof params.uri === "string" ? this.#forUri(params.uri) : NONE;
      case "subscriptions/listen": {
        const uris = isObject(params.notifications) ? params.notifications.resourceSubscriptions : undefined;
        if (!Array.isArray(uris)) return NONE;
        const needed = new Set<string>();
        for (const uri of uris) if (typeof uri === "string") for (const scope of this.#forUri(uri)) needed.add(scope);
        return needed.size === 0 ? NONE : [...needed];
      }
      case "completion/complete": {
        const ref = params.ref;
        if (!isObject(ref)) return NONE;
        if (ref.type === "ref/prompt" && typeof ref.name === "string") return this.#prompts.get(ref.name) ?? NONE;
        if (ref.type === "ref/resource" && typeof ref.uri === "string") return this.#templates.find((t) => t.uriTemplate === ref.uri)?.scopes ?? NONE;
        return NONE;
      }
      default:
        return NONE;
    }
  }

  /** A static resource's scopes, else the first matching template's (a read's order). */
  #forUri(uri: string): readonly string[] {
    const exact = this.#resources.get(uri);
    if (exact) return exact;
    if (uri.length > MAX_URI_CHARS) return NONE;
    for (const { matches, scopes } of this.#templates) if (matches(uri)) return scopes;
    return NONE;
  }
}

function checkScopes(what: string, scopes: unknown): readonly string[] {
  if (scopes === undefined) return NONE;
  if (!Array.isArray(scopes) || !scopes.every((s) => typeof s === "string" && SCOPE_TOKEN.test(s))) {
    throw new TypeError(`${what} has "scopes": ${JSON.stringify(scopes)}; it must be a list of OAuth scope names (printable ASCII, no spaces or quotes)`);
  }
  return scopes;
}

/**
 * `resources/list`, `resources/templates/list` and `resources/read` (MCP resources spec). A read
 * tries the exact static URI first, then each template in definition order; no match is -32002
 * "Resource not found" with `data.uri`.
 *
 * Subscriptions are the session's business (`resources/subscribe` lives with the session, which
 * asks `resolves` whether a URI can be read). A resource or template switched off for the
 * session (`ListKind.ts`) is neither listed nor readable; `listChanged` is true once one can be
 * switched.
 *
 * A URI longer than `MAX_URI_CHARS` is refused with -32602 before any template sees it, for
 * `resources/read`, `resources/subscribe` and `resources/unsubscribe` alike (all take it through
 * `requireUri`), and `resolves` answers false for it: matching costs time and memory in
 * proportion to the URI's length, and the client chooses that length.
 */
import { grants } from "../auth/grants.ts";
import { McpError } from "../errors/McpError.ts";
import type { Feature, FeatureGroup } from "../definition/Feature.ts";
import { isOffered, switchable, type SwitchView } from "../definition/ListKind.ts";
import { NO_METHODS, type Result } from "../definition/Method.ts";
import { listResult } from "./paginate.ts";
import type { ResourceDefinition, ResourceTemplateDefinition } from "../definition/ResourceDefinition.ts";
import { toResourceContents } from "./toResourceContents.ts";
import type { RequestContext } from "../definition/RequestContext.ts";
import { UriTemplate } from "./UriTemplate.ts";
import { checkHome, type HandleHome, type HomePlan, planFor } from "../definition/Home.ts";

/** RFC 3986 §3.1: a URI starts with its scheme. */
const HAS_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/**
 * The longest URI, in UTF-16 code units (`string.length`), that a client may read or subscribe
 * to: 8 KiB, about what common HTTP servers take in a request line (Apache's LimitRequestLine is
 * 8,190 bytes), so a URI that works as a link works here.
 */
export const MAX_URI_CHARS = 8_192;

interface Compiled {
  definition: ResourceTemplateDefinition;
  template: UriTemplate;
  home: "user" | HandleHome | undefined;
}

/** Resources and their templates, as `resource()` and `resourceTemplate()` bring them to a server. */
export const RESOURCES: Feature = { name: "resources", compile: (options) => resourceMethods(options.resources ?? [], options.resourceTemplates ?? []) };

/** @example resourceMethods(definition.resources ?? [], definition.resourceTemplates ?? []) */
export function resourceMethods(resources: readonly ResourceDefinition[], templates: readonly ResourceTemplateDefinition[]): FeatureGroup {
  if (resources.length === 0 && templates.length === 0) return { ...NO_METHODS, resolves: () => false };
  const byUri = new Map<string, ResourceDefinition>();
  const homes = new Map<string, "user">();
  for (const resource of resources) {
    const what = `Resource ${JSON.stringify(resource.uri)}`;
    checkCommon(resource, what, resource.uri);
    if (byUri.has(resource.uri)) throw new TypeError(`Resource ${resource.uri} is defined twice`);
    byUri.set(resource.uri, resource);
    const home = checkHome(what, resource.home);
    if (typeof home === "object") throw new TypeError(`${what} has a fixed URI, so no variable of it can carry a handle; declare a resourceTemplate with the handle as one of its {variables}`);
    if (home) homes.set(resource.uri, home);
  }
  const compiled = templates.map(compileTemplate);
  const homed = homes.size > 0 || compiled.some((c) => c.home !== undefined);

  /** The home of the definition a read of `uri` names (a static resource first, then the first matching template), as a read resolves it. */
  function homeOfUri(uri: string): HomePlan | undefined {
    if (uri.length > MAX_URI_CHARS) return undefined;
    if (byUri.has(uri)) return homes.has(uri) ? planFor("user", undefined, uri) : undefined;
    for (const { definition, template, home } of compiled) {
      const vars = template.match(uri);
      if (vars) return home && planFor(home, vars, definition.name);
    }
    return undefined;
  }
  /** See `FeatureGroup.handleTemplateOf`: the definition `homeOfUri` finds, if its home is a handle's. */
  function handleTemplateOf(uri: string): string | undefined {
    if (uri.length > MAX_URI_CHARS || byUri.has(uri)) return undefined;
    for (const { definition, template, home } of compiled) if (template.match(uri)) return typeof home === "object" ? definition.uriTemplate : undefined;
    return undefined;
  }
  const listedResources = resources.map((r) => ({ on: (ctx: RequestContext) => resourceOn(r, ctx), entry: describe(r, { uri: r.uri }) }));
  const listedTemplates = templates.map((t) => ({ on: (ctx: RequestContext) => templateOn(t, ctx), entry: describe(t, { uriTemplate: t.uriTemplate }) }));
  const visible = (listed: typeof listedResources, ctx: RequestContext) => listed.filter(({ on }) => on(ctx)).map(({ entry }) => entry);

  /** The read this URI resolves to for this request, or undefined if it has no such resource. */
  function resolve(uri: string, ctx: SwitchView): ((ctx: RequestContext) => Promise<Result>) | undefined {
    if (uri.length > MAX_URI_CHARS) return undefined;
    const resource = byUri.get(uri);
    // A static resource the token lacks the scopes for is refused, not read through a template
    // that also matches its URI: the router's check (`ScopeIndex`) answers 403 for it first.
    if (resource && !grants(ctx.auth, resource.scopes)) return undefined;
    if (resource && resourceOn(resource, ctx)) {
      return async (ctx) => ({ contents: toResourceContents(await resource.read(ctx), uri, resource.mimeType, `Resource ${uri}`) });
    }
    for (const { definition, template } of compiled) {
      if (!templateOn(definition, ctx)) continue;
      const vars = template.match(uri);
      if (!vars) continue;
      const what = `Resource template ${definition.uriTemplate}`;
      return async (ctx) => ({ contents: toResourceContents(await definition.read(vars, uri, ctx), uri, definition.mimeType, what) });
    }
    return undefined;
  }

  return {
    ...(homed && { homeOf: (method: string, params: Record<string, unknown>) => (method === "resources/read" && typeof params.uri === "string" ? homeOfUri(params.uri) : undefined) }),
    ...(compiled.some((c) => typeof c.home === "object") && { handleTemplateOf }),
    capabilities: { resources: { subscribe: true, listChanged: switchable([...resources, ...templates]) } },
    resolves: (uri, ctx) => resolve(uri, ctx) !== undefined,
    methods: {
      "resources/list": async (params, ctx) => listResult("resources", visible(listedResources, ctx), params.cursor),
      "resources/templates/list": async (params, ctx) => listResult("resourceTemplates", visible(listedTemplates, ctx), params.cursor),
      "resources/read": async (params, ctx) => {
        const uri = requireUri(params, "resources/read");
        const read = resolve(uri, ctx);
        if (!read) throw McpError.resourceNotFound(uri);
        return read(ctx);
      },
    },
  };
}

function resourceOn(resource: ResourceDefinition, ctx: SwitchView): boolean {
  return isOffered("resource", resource.uri, resource, ctx);
}

function templateOn(template: ResourceTemplateDefinition, ctx: SwitchView): boolean {
  return isOffered("resourceTemplate", template.uriTemplate, template, ctx);
}

function compileTemplate(definition: ResourceTemplateDefinition, index: number, all: readonly ResourceTemplateDefinition[]): Compiled {
  const what = `Resource template ${JSON.stringify(definition.uriTemplate)}`;
  checkCommon(definition, what, definition.uriTemplate);
  if (all.findIndex((t) => t.uriTemplate === definition.uriTemplate) !== index) throw new TypeError(`${what} is defined twice`);
  const template = new UriTemplate(definition.uriTemplate);
  for (const name of Object.keys(definition.complete ?? {})) {
    if (!template.variables.includes(name)) {
      throw new TypeError(`${what} has a completer for "${name}", which is not one of its variables (${template.variables.join(", ") || "none"})`);
    }
  }
  const home = checkHome(what, definition.home);
  if (typeof home === "object" && !template.variables.includes(home.handle)) {
    throw new TypeError(`${what} keeps its state under a handle in its {${home.handle}} variable, but has no such variable (${template.variables.join(", ") || "none"})`);
  }
  return { definition, template, home };
}

function checkCommon(definition: ResourceDefinition | ResourceTemplateDefinition, what: string, uri: unknown): void {
  if (typeof uri !== "string" || !HAS_SCHEME.test(uri)) throw new TypeError(`${what} needs a URI with a scheme, e.g. "notes://…"`);
  if (typeof definition.name !== "string" || definition.name === "") throw new TypeError(`${what} needs a non-empty "name"`);
  if (typeof definition.read !== "function") throw new TypeError(`${what} needs a "read" function`);
  const size = (definition as ResourceDefinition).size;
  if (size !== undefined && !(Number.isInteger(size) && size >= 0)) throw new TypeError(`${what}: "size" must be a whole number of bytes, got ${size}`);
  const priority = definition.annotations?.priority;
  if (priority !== undefined && !(priority >= 0 && priority <= 1)) throw new TypeError(`${what}: annotations.priority must be within 0..1, got ${priority}`);
}

/** MCP `Resource` / `ResourceTemplate`: the identifying key first, then only the fields that are set. */
function describe(definition: ResourceDefinition | ResourceTemplateDefinition, key: Result): Result {
  const entry: Result = { ...key, name: definition.name };
  for (const field of ["title", "description", "mimeType", "size", "annotations", "_meta"] as const) {
    const value = (definition as ResourceDefinition)[field];
    if (value !== undefined) entry[field] = value;
  }
  return entry;
}

/** The `uri` param, a string of at most `MAX_URI_CHARS`; -32602 otherwise. */
export function requireUri(params: Record<string, unknown>, method: string): string {
  if (typeof params.uri !== "string") throw McpError.invalidParams(`${method} needs a "uri" string`);
  if (params.uri.length > MAX_URI_CHARS) {
    throw McpError.invalidParams(`${method}: the "uri" is ${params.uri.length} characters long; at most ${MAX_URI_CHARS} are accepted`);
  }
  return params.uri;
}

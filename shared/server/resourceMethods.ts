/**
 * `resources/list`, `resources/templates/list`, `resources/read`, `resources/subscribe` and
 * `resources/unsubscribe` (MCP resources spec). A read tries the exact static URI first, then
 * each template in definition order; no match is -32002 "Resource not found" with `data.uri`.
 *
 * Subscriptions are the session's business: this module checks the URI and hands it to
 * `SessionHooks`; sending `notifications/resources/updated` is not done here. A resource or
 * template switched off for the session (`ListKind.ts`) is neither listed nor readable;
 * `listChanged` is true once one can be switched.
 */
import { McpError } from "../errors/McpError.ts";
import { isEnabled, type Overrides, switchable } from "./ListKind.ts";
import { type MethodGroup, NO_METHODS, type Result } from "./Method.ts";
import { listResult } from "./paginate.ts";
import type { ResourceDefinition, ResourceTemplateDefinition } from "./ResourceDefinition.ts";
import { toResourceContents } from "./toResourceContents.ts";
import type { RequestContext } from "./types.ts";
import { UriTemplate } from "./UriTemplate.ts";

/** RFC 3986 §3.1: a URI starts with its scheme. */
const HAS_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

interface Compiled {
  definition: ResourceTemplateDefinition;
  template: UriTemplate;
}

/** @example resourceMethods(definition.resources ?? [], definition.resourceTemplates ?? []) */
export function resourceMethods(resources: readonly ResourceDefinition[], templates: readonly ResourceTemplateDefinition[]): MethodGroup {
  if (resources.length === 0 && templates.length === 0) return NO_METHODS;
  const byUri = new Map<string, ResourceDefinition>();
  for (const resource of resources) {
    checkCommon(resource, `Resource ${JSON.stringify(resource.uri)}`, resource.uri);
    if (byUri.has(resource.uri)) throw new TypeError(`Resource ${resource.uri} is defined twice`);
    byUri.set(resource.uri, resource);
  }
  const compiled = templates.map(compileTemplate);
  const listedResources = resources.map((r) => ({ on: (o: Overrides) => resourceOn(r, o), entry: describe(r, { uri: r.uri }) }));
  const listedTemplates = templates.map((t) => ({ on: (o: Overrides) => templateOn(t, o), entry: describe(t, { uriTemplate: t.uriTemplate }) }));
  const visible = (listed: typeof listedResources, overrides: Overrides) => listed.filter(({ on }) => on(overrides)).map(({ entry }) => entry);

  /** The read this URI resolves to in this session, or undefined if it has no such resource. */
  function resolve(uri: string, overrides: Overrides): ((ctx: RequestContext) => Promise<Result>) | undefined {
    const resource = byUri.get(uri);
    if (resource && resourceOn(resource, overrides)) {
      return async (ctx) => ({ contents: toResourceContents(await resource.read(ctx), uri, resource.mimeType, `Resource ${uri}`) });
    }
    for (const { definition, template } of compiled) {
      if (!templateOn(definition, overrides)) continue;
      const vars = template.match(uri);
      if (!vars) continue;
      const what = `Resource template ${definition.uriTemplate}`;
      return async (ctx) => ({ contents: toResourceContents(await definition.read(vars, uri, ctx), uri, definition.mimeType, what) });
    }
    return undefined;
  }

  return {
    capabilities: { resources: { subscribe: true, listChanged: switchable([...resources, ...templates]) } },
    methods: {
      "resources/list": async (params, _ctx, hooks) => listResult("resources", visible(listedResources, hooks.overrides()), params.cursor),
      "resources/templates/list": async (params, _ctx, hooks) =>
        listResult("resourceTemplates", visible(listedTemplates, hooks.overrides()), params.cursor),
      "resources/read": async (params, ctx, hooks) => {
        const uri = requireUri(params, "resources/read");
        const read = resolve(uri, hooks.overrides());
        if (!read) throw McpError.resourceNotFound(uri);
        return read(ctx);
      },
      // Only a URI the server can read may be subscribed to ("Servers MUST validate all resource URIs").
      "resources/subscribe": async (params, _ctx, hooks) => {
        const uri = requireUri(params, "resources/subscribe");
        if (!resolve(uri, hooks.overrides())) throw McpError.resourceNotFound(uri);
        await hooks.subscribe(uri);
        return {};
      },
      // Unsubscribing is idempotent: an unknown URI is simply not subscribed.
      "resources/unsubscribe": async (params, _ctx, hooks) => {
        await hooks.unsubscribe(requireUri(params, "resources/unsubscribe"));
        return {};
      },
    },
  };
}

function resourceOn(resource: ResourceDefinition, overrides: Overrides): boolean {
  return isEnabled("resource", resource.uri, resource.enabled, overrides);
}

function templateOn(template: ResourceTemplateDefinition, overrides: Overrides): boolean {
  return isEnabled("resourceTemplate", template.uriTemplate, template.enabled, overrides);
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
  return { definition, template };
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
  for (const field of ["title", "description", "mimeType", "size", "annotations"] as const) {
    const value = (definition as ResourceDefinition)[field];
    if (value !== undefined) entry[field] = value;
  }
  return entry;
}

function requireUri(params: Record<string, unknown>, method: string): string {
  if (typeof params.uri !== "string") throw McpError.invalidParams(`${method} needs a "uri" string`);
  return params.uri;
}

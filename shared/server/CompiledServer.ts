/**
 * A server made executable from its options (`defineServer`): definitions checked and JSON
 * Schemas computed once, then one `method()` lookup per request. It knows no transport and no
 * session: handlers read what they need from the `RequestContext`, and the methods that change a
 * session's state (`initialize`, `logging/setLevel`, `resources/subscribe`…) live with the session
 * (`shared/session/sessionMethods.ts`).
 *
 * Each feature (tools, resources, prompts, completion) is a `MethodGroup` in its own module that
 * brings its methods and the capability it advertises; this class only composes them. A feature
 * the definition lacks is neither advertised nor answered (-32601), tools excepted (see toolMethods).
 *
 * Broken options (two tools with one name, a schema that is not an object…) do not throw: they
 * are kept as `problem`, so that a dev server keeps running and says what is wrong on every
 * request until the file is fixed, and a process entry can refuse to start with that sentence.
 */
import { isObject } from "../jsonrpc/isObject.ts";
import type { JsonRpcMessage } from "../jsonrpc/messages.ts";
import { TASKS_EXTENSION } from "../methods/tasksExtension.ts";
import { MODERN_PROTOCOL_VERSIONS, negotiateVersion, type ProtocolVersion } from "../protocol/versions.ts";
import { type Feature, type FeatureGroup, featuresOf } from "../definition/Feature.ts";
import { type ListKind, toggleKey, type SwitchView } from "../definition/ListKind.ts";
import type { Method, MethodGroup, Result } from "../definition/Method.ts";
import type { ParamHeader } from "../schema/paramHeaders.ts";
import { ScopeIndex } from "../methods/ScopeIndex.ts";
import type { CacheableMethod, CacheHint, Extension, ServerOptions } from "../definition/ServerOptions.ts";
import type { TaskOptions } from "../definition/ToolDefinition.ts";
import { type ToolMethodGroup, toolMethods } from "../methods/toolMethods.ts";
import type { Implementation } from "../definition/types.ts";
import { HOMES_CAPABILITY, type HomePlan } from "../definition/Home.ts";
import type { ServerEnv } from "../definition/RequestContext.ts";
import type { Logger } from "../log/Logger.ts";
import type { Telemetry } from "../telemetry/Telemetry.ts";

/** What a session must remember from an `initialize` request. */
export interface Negotiated {
  protocolVersion: ProtocolVersion;
  clientInfo?: Implementation;
  clientCapabilities?: Record<string, unknown>;
}

/** The methods whose 2026-07-28 results carry caching hints ("Caching"). */
export const CACHEABLE_METHODS: readonly CacheableMethod[] = ["server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read"];

/** The brand of a compiled server, which its public type (`ServerDefinition`) names. */
export const DEFINED: unique symbol = Symbol("definition");

/**
 * `Objects`: the names of the Durable Object classes its capabilities bring to a Worker entry
 * (`"McpTask"`), a type only, from the `use` list (`defineServer`).
 */
export class CompiledServer<Objects extends string = never> {
  readonly [DEFINED] = true as const;
  /** Type only, never set: what `createWorker` offers (contravariant, so any definition is a `ServerDefinition`). */
  declare readonly "~objects"?: (objects: Objects) => void;
  readonly info: Implementation;
  /** Why these options cannot be served; undefined when they can. */
  readonly problem: Error | undefined;
  readonly #options: ServerOptions;
  #capabilities: Result = {};
  #methods: Record<string, Method> = {};
  #tools: ToolMethodGroup | undefined;
  #resources: FeatureGroup | undefined;
  #caching: Partial<Record<CacheableMethod, CacheHint>> = {};
  #scopes: ScopeIndex | undefined;
  /** Declared state of every switchable definition, by `toggleKey`. */
  readonly #switchable = new Map<string, boolean>();
  /** Every switchable definition, as `ctx.session.isEnabled` names it. */
  readonly #switches: [ListKind, string][] = [];
  /** The home lookup of each method whose definitions may have homes of their own. */
  #homeOf = new Map<string, NonNullable<MethodGroup["homeOf"]>>();
  readonly #homes = { user: false, handle: false };
  /** The methods the definition's extensions bring (e.g. `skills/list`): answered in every era. */
  #extensionMethods: ReadonlySet<string> = new Set();
  /** The extensions only `server/discover` advertises (`sessions: false`), with their settings. */
  #modernExtensions: Result = {};
  /** What the extensions carry for layers above this one (`ExtensionParts.runtime`), by id. */
  readonly #runtimes = new Map<string, object>();
  /** The capabilities it uses (`use`), in the order of the list: the runtimes read their parts (`workers`, `local`). */
  readonly use: readonly Extension<string>[];

  constructor(options: ServerOptions) {
    this.#options = options;
    this.use = options.use ?? [];
    this.info = { name: options.name, version: options.version, ...(options.title ? { title: options.title } : {}) };
    try {
      this.#compile(options);
    } catch (error) {
      // One sentence for every place that reports it: the Worker's answers, `GET /`, a process that will not start.
      this.problem = new TypeError(`The server definition is invalid: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }

  /** @throws the definition's `problem`, for callers that cannot serve a broken definition. */
  assertValid(): this {
    if (this.problem) throw this.problem;
    return this;
  }

  /** MCP `ServerCapabilities`: only what the definition has. A fresh copy each call. */
  capabilities(): Result {
    return structuredClone(this.#capabilities);
  }

  /** Whether the definition has `feature` (`tools`, `resources`, `prompts`…) in its capabilities. */
  has(feature: string): boolean {
    return feature in this.#capabilities;
  }

  /** A method of the definition's features (tools, resources, prompts, completion), or undefined. */
  method(name: string): Method | undefined {
    return Object.hasOwn(this.#methods, name) ? this.#methods[name] : undefined;
  }

  /**
   * 2026-07-28 `server/discover`: the versions served statelessly, capabilities and instructions
   * (resultType and hints are added by the caller). `tasksHosted`: whether the deployment hosts
   * tasks; the extension is advertised only where some tool may run as one and a host serves it.
   */
  discover(tasksHosted = false): Result {
    const capabilities = this.capabilities();
    // The extensions of 2026-07-28 alone (tasks) join those `initialize` names too, as hosts that
    // compare the two expect; tasks only where some tool may run as one and a host serves them.
    const modern = { ...this.#modernExtensions };
    if (!(this.hasTasks && tasksHosted)) delete modern[TASKS_EXTENSION];
    if (Object.keys(modern).length > 0) capabilities.extensions = { ...(capabilities.extensions as Result | undefined), ...modern };
    const result: Result = { supportedVersions: [...MODERN_PROTOCOL_VERSIONS], capabilities };
    if (this.#options.instructions) result.instructions = this.#options.instructions;
    return result;
  }

  /** The 2026-07-28 caching hint for a cacheable method's result, as configured (default: 0 ms, private). */
  cacheHint(method: CacheableMethod): CacheHint {
    return this.#caching[method] ?? { ttlMs: 0, cacheScope: "private" };
  }

  /** The `x-mcp-header` arguments of a tool (`[]` for none or an unknown tool). */
  paramHeaders(toolName: string): readonly ParamHeader[] {
    return this.#tools?.paramHeaders(toolName) ?? [];
  }

  /** Whether `method` is one an extension of the definition brings. */
  isExtensionMethod(method: string): boolean {
    return this.#extensionMethods.has(method);
  }

  /** The identifiers of the extensions offered: the definition's own, and tasks where `tasksHosted`. */
  extensionIds(tasksHosted: boolean): string[] {
    const { extensions } = this.discover(tasksHosted).capabilities as { extensions?: Result };
    return Object.keys(extensions ?? {});
  }

  /** The task options of a tool (`task` in its definition); undefined for a plain or unknown tool. */
  taskOptions(toolName: string): TaskOptions | undefined {
    return this.#tools?.taskOptions(toolName);
  }

  /** What extension `id` carries for a layer above the definition (`ExtensionParts.runtime`), if listed. */
  runtimeOf(id: string): object | undefined {
    return this.#runtimes.get(id);
  }

  /** Whether the server offers the tasks extension: some tool may run as a task. */
  get hasTasks(): boolean {
    return this.#tools?.hasTasks ?? false;
  }

  /** Answers `initialize` (lifecycle spec) and says what the session must persist. */
  initialize(params: Record<string, unknown>): { result: Result; negotiated: Negotiated } {
    const protocolVersion = negotiateVersion(params.protocolVersion);
    const negotiated: Negotiated = { protocolVersion };
    if (isImplementation(params.clientInfo)) negotiated.clientInfo = params.clientInfo;
    if (isObject(params.capabilities)) negotiated.clientCapabilities = params.capabilities;
    const result: Result = { protocolVersion, capabilities: this.capabilities(), serverInfo: this.info };
    if (this.#options.instructions) result.instructions = this.#options.instructions;
    return { result, negotiated };
  }

  /**
   * Where a request runs when the definition it names has a home of its own (`home: "user"` or a
   * handle; see `definition/Home.ts`); undefined for the request's session, or none. One map
   * lookup for a server without homes.
   */
  homeOf(method: string, params: Record<string, unknown>): HomePlan | undefined {
    return this.#homeOf.get(method)?.(method, params);
  }

  /** `onError` of the options: every era's core calls it for a handler that threw. */
  get onError(): ServerOptions["onError"] {
    return this.#options.onError;
  }

  /** The telemetry backend for `env` (what a capability of `use` brings, `otlp()`), or undefined where tracing is off. */
  telemetryFor(env: ServerEnv, logger: Logger, keepAlive?: (work: Promise<unknown>) => void): Telemetry | undefined {
    return this.use.find((capability) => capability.telemetry)?.telemetry?.(env, { serviceName: this.info.name, logger, keepAlive, handleTemplateOf: this.#resources?.handleTemplateOf });
  }

  /** The template a span records for a resource URI that names a handle (`FeatureGroup.handleTemplateOf`); absent when no template has a handle home. */
  get handleTemplateOf(): ((uri: string) => string | undefined) | undefined {
    return this.#resources?.handleTemplateOf;
  }

  /** Which homes the definitions use: a deployment must offer them (`user` needs authorization; both need a home host). */
  get homes(): { readonly user: boolean; readonly handle: boolean } {
    return this.#homes;
  }

  /** Whether any definition has a home of its own: only then does a deployment make its homes. */
  get hasHomes(): boolean {
    return this.#homes.user || this.#homes.handle;
  }

  /** Every definition declared with `enabled`, by kind and id: what a session's switches are made of. */
  get switches(): readonly (readonly [ListKind, string])[] {
    return this.#switches;
  }

  /** The declared state of a definition declared with `enabled`; undefined for any other (always on, or unknown). */
  declared(kind: ListKind, id: string): boolean | undefined {
    return this.#switchable.get(toggleKey(kind, id));
  }

  /** The OAuth scopes the definitions these messages name declare, each once ([] for none): checked before they reach a session. */
  scopesNeeded(messages: readonly JsonRpcMessage[]): readonly string[] {
    const index = this.#scopes;
    if (!index) return [];
    const needed = new Set<string>();
    for (const message of messages) if ("method" in message) for (const scope of index.needed(message.method, message.params)) needed.add(scope);
    return [...needed];
  }

  /** Whether `uri` names a resource this request (or a session-less listen: `{}`) may read. */
  resolvesResource(uri: string, ctx: SwitchView): boolean {
    return this.#resources?.resolves?.(uri, ctx) ?? false;
  }

  #compile(given: ServerOptions): void {
    if (typeof given.name !== "string" || typeof given.version !== "string") throw new TypeError('A server definition needs a "name" and a "version" string');
    // Checked as given: an extension may copy a tool (`{ ...tool }` keeps the mark) but makes none.
    for (const definition of (given.tools ?? []) as object[]) if (!featuresOf(definition)) throw notMadeWith("tools", "tool()", (definition as { name?: unknown }).name);
    // Each capability works on the options as the ones before it left them (`Extension` in definition/ServerOptions.ts).
    let options = given;
    const advertised: Result = {};
    const extensionMethods: Record<string, Method> = {};
    const used: string[] = [];
    for (const capability of given.use ?? []) {
      if (used.includes(capability.id)) throw new TypeError(`use: ${capability.id} is listed twice`);
      used.push(capability.id);
      // A capability that adds nothing to the definition (`watch()`, `homes()`) has no `extend`.
      const parts = capability.extend?.(options) ?? { options };
      options = parts.options;
      if (parts.settings) (parts.sessions === false ? this.#modernExtensions : advertised)[capability.id] = parts.settings;
      Object.assign(extensionMethods, parts.methods);
      if (parts.runtime) this.#runtimes.set(capability.id, parts.runtime);
    }
    const viewed = options.tools?.find((tool) => tool.ui);
    if (viewed) throw new TypeError(`Tool ${viewed.name} names a view ("ui"), but "use" has no apps({ views })`);
    const tasked = options.tools?.find((tool) => tool.task !== undefined);
    if (tasked && !used.includes(TASKS_EXTENSION)) throw new TypeError(`Tool ${tasked.name} may run as a task ("task"), but "use" has no tasks(); add use: [tasks()]`);
    this.#tools = toolMethods(options.tools ?? [], options.toJsonSchema);
    const features = featuresIn(options);
    const compiled = features.map((feature) => feature.compile(options));
    this.#resources = compiled.find((group) => group.resolves);
    const extended: MethodGroup = { capabilities: Object.keys(advertised).length > 0 ? { extensions: advertised } : {}, methods: extensionMethods };
    const groups: MethodGroup[] = [this.#tools, ...compiled, extended];
    const declared = [
      ...(options.tools ?? []).map((d) => ["tool", d.name, d] as const),
      ...(options.prompts ?? []).map((d) => ["prompt", d.name, d] as const),
      ...(options.resources ?? []).map((d) => ["resource", d.uri, d] as const),
      ...(options.resourceTemplates ?? []).map((d) => ["resourceTemplate", d.uriTemplate, d] as const),
    ];
    for (const [kind, id, { enabled, home }] of declared) {
      // Each group checked its definitions' homes as it compiled them.
      if (home === "user") this.#homes.user = true;
      else if (typeof home === "object") this.#homes.handle = true;
      if (enabled === undefined) continue;
      if (typeof enabled !== "boolean") throw new TypeError(`The ${kind} ${JSON.stringify(id)} has "enabled": ${JSON.stringify(enabled)}; it must be true or false`);
      this.#switchable.set(toggleKey(kind, id), enabled);
      this.#switches.push([kind, id]);
    }
    if (this.hasHomes && !used.includes(HOMES_CAPABILITY)) throw new TypeError('Some definitions keep their state in a home of their own ("home"): add homes() to "use"');
    for (const group of groups) if (group.homeOf) for (const method of Object.keys(group.methods)) this.#homeOf.set(method, group.homeOf);
    // Every session answers logging/setLevel (and 2026-07-28 requests may name a level), so `logging` is always advertised.
    const capabilities: Result = Object.assign({ logging: {} }, ...groups.map((g) => g.capabilities));
    for (const [feature, on] of Object.entries(options.listChanged ?? {})) {
      const capability = capabilities[feature] as Record<string, unknown> | undefined;
      if (on && capability) capability.listChanged = true;
    }
    this.#caching = checkCaching(options.caching ?? {});
    const scopes = new ScopeIndex(options);
    // Kept only when some definition declares scopes, so no request of a server without them looks anything up.
    this.#scopes = scopes.empty ? undefined : scopes;
    this.#methods = Object.assign({}, ...groups.map((g) => g.methods));
    this.#extensionMethods = new Set(Object.keys(extensionMethods));
    this.#capabilities = capabilities;
  }
}

/** Every feature the options' definitions bring, once each. @throws TypeError for a definition not made by its helper. */
function featuresIn(options: ServerOptions): Feature[] {
  const found = new Set<Feature>();
  const kinds = [
    ["resources", "resource()", options.resources, (d: { uri?: unknown }) => d.uri],
    ["resourceTemplates", "resourceTemplate()", options.resourceTemplates, (d: { uriTemplate?: unknown }) => d.uriTemplate],
    ["prompts", "prompt()", options.prompts, (d: { name?: unknown }) => d.name],
  ] as const;
  for (const [option, helper, definitions, nameOf] of kinds) {
    for (const definition of (definitions ?? []) as object[]) {
      const features = featuresOf(definition);
      if (!features) throw notMadeWith(option, helper, nameOf(definition as never));
      for (const feature of features) found.add(feature);
    }
  }
  return [...found];
}

/**
 * Every definition is made by its helper (`tool()`, `resource()`, `resourceTemplate()`,
 * `prompt()`): the helper infers its handler's types from its schemas, and brings the code that
 * serves its kind, so a plain object is refused with the helper's name.
 */
function notMadeWith(option: string, helper: string, name: unknown): TypeError {
  return new TypeError(`${option}: ${JSON.stringify(name)} was not made with ${helper}; wrap it, ${helper.slice(0, -1)}{ … }), so that its handler is typed and the server brings the code that serves it`);
}

function checkCaching(caching: Partial<Record<string, CacheHint>>): Partial<Record<CacheableMethod, CacheHint>> {
  for (const [method, hint] of Object.entries(caching)) {
    if (!(CACHEABLE_METHODS as readonly string[]).includes(method)) throw new TypeError(`caching: ${method} is not cacheable; use one of ${CACHEABLE_METHODS.join(", ")}`);
    if (!hint || !Number.isSafeInteger(hint.ttlMs) || hint.ttlMs < 0) throw new TypeError(`caching["${method}"].ttlMs must be a whole number of milliseconds ≥ 0`);
    if (hint.cacheScope !== "public" && hint.cacheScope !== "private") throw new TypeError(`caching["${method}"].cacheScope must be "public" or "private"`);
  }
  return caching;
}

function isImplementation(value: unknown): value is Implementation {
  return isObject(value) && typeof value.name === "string" && typeof value.version === "string";
}

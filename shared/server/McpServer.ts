/**
 * A server definition made executable: definitions checked and JSON Schemas computed once at
 * startup, then one `handle()` per JSON-RPC request. Transport-free and session-free: it reads
 * session facts from the `RequestContext` and changes session state only through `SessionHooks`.
 *
 * Each feature (tools, resources, prompts, completion) is a `MethodGroup` in its own module that
 * brings its methods and the capability it advertises; this class only composes them. A feature
 * the definition lacks is neither advertised nor answered (-32601), tools excepted (see toolMethods).
 *
 * Lifecycle methods (`initialize`) are answered by `initialize()`, not `handle()`, because only
 * the session may decide what becomes of its negotiated state.
 */
import { McpError } from "../errors/McpError.ts";
import type { JsonRpcRequest } from "../jsonrpc/messages.ts";
import { isLogLevel, type LogLevel } from "../protocol/logLevels.ts";
import { MODERN_PROTOCOL_VERSIONS, negotiateVersion, type ProtocolVersion } from "../protocol/versions.ts";
import { completionMethods } from "./completionMethods.ts";
import { isObject } from "./isObject.ts";
import { type ListKind, type Overrides, toggleKey } from "./ListKind.ts";
import type { Method, MethodGroup, Result } from "./Method.ts";
import { promptMethods } from "./promptMethods.ts";
import { resourceMethods } from "./resourceMethods.ts";
import type { ParamHeader } from "./paramHeaders.ts";
import { type ToolMethodGroup, toolMethods } from "./toolMethods.ts";
import type { CacheableMethod, CacheHint, Implementation, RequestContext, ServerDefinition } from "./types.ts";

/** What the session must remember from an `initialize` request. */
export interface Negotiated {
  protocolVersion: ProtocolVersion;
  clientInfo?: Implementation;
  clientCapabilities?: Record<string, unknown>;
}

/** The session state a request may change. */
export interface SessionHooks {
  setLogLevel(level: LogLevel): Promise<void>;
  /**
   * `resources/subscribe`: the session records `uri` (persistently, like the log level) so that
   * it can later send `notifications/resources/updated` for it. Subscribing twice is harmless.
   */
  subscribe(uri: string): Promise<void>;
  /** `resources/unsubscribe`: forget `uri`; a URI that was never subscribed is not an error. */
  unsubscribe(uri: string): Promise<void>;
  /** The session's switched definitions (see `ListKind.ts`); `{}` when none were switched. */
  overrides(): Overrides;
  /** Replaces them, persistently; called only by `McpServer.setEnabled`. */
  setOverrides(next: Overrides): Promise<void>;
}

export class McpServer {
  readonly info: Implementation;
  readonly #definition: ServerDefinition;
  readonly #capabilities: Result;
  readonly #methods: Record<string, Method>;
  readonly #tools: ToolMethodGroup;
  readonly #caching: Partial<Record<CacheableMethod, CacheHint>>;
  /** Declared state of every switchable definition, by `toggleKey`. */
  readonly #switchable = new Map<string, boolean>();

  /** @throws TypeError naming the tool, resource or prompt whose definition is broken. */
  constructor(definition: ServerDefinition) {
    this.#definition = definition;
    this.info = { name: definition.name, version: definition.version, ...(definition.title ? { title: definition.title } : {}) };
    const tools = toolMethods(definition.tools ?? [], definition.toJsonSchema);
    this.#tools = tools;
    const groups: MethodGroup[] = [
      tools,
      resourceMethods(definition.resources ?? [], definition.resourceTemplates ?? []),
      promptMethods(definition.prompts ?? [], definition.toJsonSchema),
      completionMethods(definition.prompts ?? [], definition.resourceTemplates ?? []),
    ];
    const declared = [
      ...(definition.tools ?? []).map((d) => ["tool", d.name, d.enabled] as const),
      ...(definition.prompts ?? []).map((d) => ["prompt", d.name, d.enabled] as const),
      ...(definition.resources ?? []).map((d) => ["resource", d.uri, d.enabled] as const),
      ...(definition.resourceTemplates ?? []).map((d) => ["resourceTemplate", d.uriTemplate, d.enabled] as const),
    ];
    for (const [kind, id, enabled] of declared) {
      if (enabled === undefined) continue;
      if (typeof enabled !== "boolean") throw new TypeError(`The ${kind} ${JSON.stringify(id)} has "enabled": ${JSON.stringify(enabled)}; it must be true or false`);
      this.#switchable.set(toggleKey(kind, id), enabled);
    }
    // Every server answers logging/setLevel, so `logging` is always advertised.
    this.#capabilities = Object.assign({ logging: {} }, ...groups.map((g) => g.capabilities));
    for (const [feature, on] of Object.entries(definition.listChanged ?? {})) {
      const capability = this.#capabilities[feature] as Record<string, unknown> | undefined;
      if (on && capability) capability.listChanged = true;
    }
    this.#caching = checkCaching(definition.caching ?? {});
    this.#methods = Object.assign(
      {
        ping: async () => ({}),
        "logging/setLevel": async (params, _ctx, hooks) => {
          if (!isLogLevel(params.level)) throw McpError.invalidParams(`Invalid log level: ${JSON.stringify(params.level)}`);
          await hooks.setLogLevel(params.level);
          return {};
        },
      } satisfies Record<string, Method>,
      ...groups.map((g) => g.methods),
    );
  }

  /** MCP `ServerCapabilities`: only what the definition has. A fresh copy each call. */
  capabilities(): Result {
    return structuredClone(this.#capabilities);
  }

  /** 2026-07-28 `server/discover`: the versions served statelessly, capabilities and instructions (resultType and hints are added by the caller). */
  discover(): Result {
    const result: Result = { supportedVersions: [...MODERN_PROTOCOL_VERSIONS], capabilities: this.capabilities() };
    if (this.#definition.instructions) result.instructions = this.#definition.instructions;
    return result;
  }

  /** The 2026-07-28 caching hint for a cacheable method's result, as configured (default: 0 ms, private). */
  cacheHint(method: CacheableMethod): CacheHint {
    return this.#caching[method] ?? { ttlMs: 0, cacheScope: "private" };
  }

  /** The `x-mcp-header` arguments of a tool (`[]` for none or an unknown tool). */
  paramHeaders(toolName: string): readonly ParamHeader[] {
    return this.#tools.paramHeaders(toolName);
  }

  /** Answers `initialize` (lifecycle spec) and says what the session must persist. */
  initialize(params: Record<string, unknown>): { result: Result; negotiated: Negotiated } {
    const protocolVersion = negotiateVersion(params.protocolVersion);
    const negotiated: Negotiated = { protocolVersion };
    if (isImplementation(params.clientInfo)) negotiated.clientInfo = params.clientInfo;
    if (isObject(params.capabilities)) negotiated.clientCapabilities = params.capabilities;
    const result: Result = { protocolVersion, capabilities: this.capabilities(), serverInfo: this.info };
    if (this.#definition.instructions) result.instructions = this.#definition.instructions;
    return { result, negotiated };
  }

  /**
   * `ctx.setEnabled`: switches a definition for the session behind `hooks`. Resolves with
   * whether its state changed, so that the caller knows whether a `list_changed` is due.
   *
   * @throws TypeError for a definition that does not exist or was not declared with `enabled`.
   */
  async setEnabled(kind: ListKind, id: string, enabled: boolean, hooks: SessionHooks): Promise<boolean> {
    const key = toggleKey(kind, id);
    const declared = this.#switchable.get(key);
    if (declared === undefined) {
      throw new TypeError(`The ${kind} ${JSON.stringify(id)} cannot be switched: only a ${kind} declared with "enabled: true|false" can`);
    }
    const overrides = hooks.overrides();
    if ((overrides[key] ?? declared) === enabled) return false;
    const { [key]: _previous, ...rest } = overrides;
    await hooks.setOverrides(enabled === declared ? rest : { ...rest, [key]: enabled });
    return true;
  }

  /** Throws `McpError` for protocol faults; resolves with the JSON-RPC `result`. */
  async handle(request: JsonRpcRequest, ctx: RequestContext, hooks: SessionHooks): Promise<Result> {
    const method = Object.hasOwn(this.#methods, request.method) ? this.#methods[request.method] : undefined;
    if (!method) throw McpError.methodNotFound(request.method);
    return method(request.params ?? {}, ctx, hooks);
  }
}

/** The methods whose 2026-07-28 results carry caching hints ("Caching"). */
export const CACHEABLE_METHODS: readonly CacheableMethod[] = ["server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read"];

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

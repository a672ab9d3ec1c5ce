/**
 * A server definition made executable: tool names checked and JSON Schemas computed once at
 * startup, then one `handle()` per JSON-RPC request. Transport-free and session-free: it reads
 * session facts from the `RequestContext` and changes session state only through `SessionHooks`.
 *
 * Lifecycle methods (`initialize`) are answered by `initialize()`, not `handle()`, because only
 * the session may decide what becomes of its negotiated state.
 */
import { McpError } from "../errors/McpError.ts";
import type { JsonRpcRequest } from "../jsonrpc/messages.ts";
import { isLogLevel, type LogLevel } from "../protocol/logLevels.ts";
import { negotiateVersion, type ProtocolVersion } from "../protocol/versions.ts";
import { callTool } from "./callTool.ts";
import { paginate } from "./paginate.ts";
import { toolJsonSchema } from "./toolJsonSchema.ts";
import type { Implementation, RequestContext, ServerDefinition, ToolDefinition } from "./types.ts";

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** What the session must remember from an `initialize` request. */
export interface Negotiated {
  protocolVersion: ProtocolVersion;
  clientInfo?: Implementation;
  clientCapabilities?: Record<string, unknown>;
}

/** The session state a request may change. */
export interface SessionHooks {
  setLogLevel(level: LogLevel): Promise<void>;
}

type Result = Record<string, unknown>;
type Method = (params: Record<string, unknown>, ctx: RequestContext, hooks: SessionHooks) => Promise<Result>;

export class McpServer {
  readonly info: Implementation;
  readonly #definition: ServerDefinition;
  readonly #tools = new Map<string, ToolDefinition>();
  readonly #toolList: Result[] = [];
  readonly #methods: Record<string, Method>;

  constructor(definition: ServerDefinition) {
    this.#definition = definition;
    this.info = { name: definition.name, version: definition.version, ...(definition.title ? { title: definition.title } : {}) };
    for (const tool of definition.tools ?? []) this.#addTool(tool);
    this.#methods = {
      ping: async () => ({}),
      "tools/list": async (params) => {
        const { page, nextCursor } = paginate(this.#toolList, params.cursor);
        return nextCursor ? { tools: page, nextCursor } : { tools: page };
      },
      "tools/call": (params, ctx) => this.#callTool(params, ctx),
      "logging/setLevel": async (params, _ctx, hooks) => {
        if (!isLogLevel(params.level)) throw McpError.invalidParams(`Invalid log level: ${JSON.stringify(params.level)}`);
        await hooks.setLogLevel(params.level);
        return {};
      },
    };
  }

  capabilities(): Result {
    const caps: Result = { logging: {} };
    // The tool set is fixed per deployment, so the server never sends tools/list_changed.
    if (this.#tools.size > 0) caps.tools = { listChanged: false };
    return caps;
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

  /** Throws `McpError` for protocol faults; resolves with the JSON-RPC `result`. */
  async handle(request: JsonRpcRequest, ctx: RequestContext, hooks: SessionHooks): Promise<Result> {
    const method = Object.hasOwn(this.#methods, request.method) ? this.#methods[request.method] : undefined;
    if (!method) throw McpError.methodNotFound(request.method);
    return method(request.params ?? {}, ctx, hooks);
  }

  async #callTool(params: Record<string, unknown>, ctx: RequestContext): Promise<Result> {
    if (typeof params.name !== "string") throw McpError.invalidParams('tools/call needs a "name" string');
    const tool = this.#tools.get(params.name);
    if (!tool) throw McpError.invalidParams(`Unknown tool: ${params.name}`);
    if (params.arguments !== undefined && !isObject(params.arguments)) {
      throw McpError.invalidParams('tools/call "arguments" must be an object');
    }
    return { ...(await callTool(tool, params.arguments, ctx)) };
  }

  #addTool(tool: ToolDefinition): void {
    if (!TOOL_NAME.test(tool.name)) {
      throw new TypeError(`Tool name ${JSON.stringify(tool.name)} must be 1-128 characters of A-Z a-z 0-9 _ . -`);
    }
    if (this.#tools.has(tool.name)) throw new TypeError(`Tool ${tool.name} is defined twice`);
    this.#tools.set(tool.name, tool);
    const entry: Result = { name: tool.name };
    if (tool.title) entry.title = tool.title;
    entry.description = tool.description;
    entry.inputSchema = toolJsonSchema(tool.input, `Tool ${tool.name}'s input`);
    if (tool.output) entry.outputSchema = toolJsonSchema(tool.output, `Tool ${tool.name}'s output`);
    if (tool.annotations) entry.annotations = tool.annotations;
    this.#toolList.push(entry);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isImplementation(value: unknown): value is Implementation {
  return isObject(value) && typeof value.name === "string" && typeof value.version === "string";
}

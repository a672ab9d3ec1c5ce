/**
 * `testClient(server)`: an MCP client in memory, for the unit tests of one's own tools, prompts
 * and resources. It reaches the definition through `serveMessages` over a pair of in-memory
 * streams: the same core every runtime serves, so each check, limit and revision is the real one,
 * with no network, no runtime and no port. The test picks the revision — 2026-07-28 (the default:
 * no session; input the server asks for arrives as an `InputRequiredResult`, answered and retried
 * here) or a session revision (`initialize` first; the server's own requests answered here) — and
 * answers elicitation, sampling and roots itself.
 *
 * A signed-in user is the test's too (`user`): `ctx.auth`, `home: "user"` state and `scopes`, as
 * a verified token would give them. Homes live as long as the client, unless the test gives
 * `homes` (`testHomes()`) that several clients share. What it cannot stand in for: the token
 * itself (issuers, keys, audiences, 401 and 403 challenges) and HTTP (headers, status codes,
 * streams): test those against a started server.
 *
 * @example
 * const client = await testClient(server);
 * const result = await client.callTool("countWords", { text: "one two" });
 * expect(result.structuredContent).toEqual({ words: 2 });
 * await client.close();
 */
import type { CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult, ListRootsResult, ServerEnv } from "../definition/RequestContext.ts";
import type { CallToolResult, Implementation } from "../definition/types.ts";
import { isObject } from "../jsonrpc/isObject.ts";
import type { JsonRpcMessage, JsonRpcNotification, RequestId } from "../jsonrpc/messages.ts";
import { Logger, stderrSink } from "../log/Logger.ts";
import type { LogLevel } from "../protocol/logLevels.ts";
import { META } from "../protocol/metaKeys.ts";
import { isModernVersion, isSupportedVersion, MODERN_PROTOCOL_VERSIONS } from "../protocol/versions.ts";
import type { CompiledServer } from "../server/CompiledServer.ts";
import { compiledOf, type ServerDefinition } from "../server/ServerDefinition.ts";
import { serveMessages } from "../transport/serveMessages.ts";
import { readConfig } from "../config/readConfig.ts";
import { userHomeNeedsSignIn } from "../home/deploymentProblems.ts";
import { type LocalHomeHost, localHomes } from "../home/LocalHomesPart.ts";
import type { TestHomes } from "./testHomes.ts";

export interface TestClientOptions {
  /** The revision spoken: "2026-07-28" (default, no session) or a session revision, "2024-11-05" … "2025-11-25". */
  protocolVersion?: string;
  /** What handlers see as `ctx.env`, and the limits `readConfig` reads from it. Default: none. */
  env?: ServerEnv;
  /** Who the client says it is. Default: `{ name: "durable-mcp-test", version: "0" }`. */
  clientInfo?: Implementation;
  /** Capabilities declared besides those the answerers below imply (an extension's, say). */
  capabilities?: Record<string, unknown>;
  /** Answers the server's elicitations (form and URL mode); without it the client declares no elicitation. */
  elicit?: (params: ElicitParams) => ElicitResult | Promise<ElicitResult>;
  /** Answers the server's sampling requests; without it the client declares no sampling. */
  sample?: (params: CreateMessageParams) => CreateMessageResult | Promise<CreateMessageResult>;
  /** The client's roots; without them the client declares no roots. */
  roots?: ListRootsResult["roots"];
  /** The server's operator log (JSON lines on stderr) from this level on. Default: "warning", so a handler's failure shows. */
  logLevel?: LogLevel;
  /**
   * A signed-in user, as a verified token would give one: handlers see it as `ctx.auth`,
   * `home: "user"` definitions keep its state (in memory, until `close()`, or in `homes`), and
   * definitions' `scopes` are checked against `scopes`. `issuer` defaults to `https://issuer.test`.
   * Without it, a server with user homes is refused.
   */
  user?: TestUser;
  /**
   * Where homes (`home: "user"` and handles) keep their state: give every client of one test the
   * same `testHomes()` and a handle one opened is found by the next, as after a reconnect.
   * Default: the client's own, forgotten at `close()`.
   *
   * @example const homes = testHomes(); const first = await testClient(server, { homes }); …; const second = await testClient(server, { homes });
   */
  homes?: TestHomes;
}

/** Who `testClient({ user })` signs in as. */
export interface TestUser {
  subject: string;
  issuer?: string;
  scopes?: readonly string[];
  /** The token's other claims, as `ctx.auth.claims`. */
  claims?: Record<string, unknown>;
}

/** The issuer of a `TestUser` that names none. */
export const TEST_ISSUER = "https://issuer.test";

/** A result as the wire carries it: the method's fields, and on 2026-07-28 `resultType` and `_meta`. */
export type WireResult = Record<string, unknown>;

/** A JSON-RPC error the server answered with. */
export class TestClientError extends Error {
  override readonly name = "TestClientError";
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** What one `callTool` reports as it runs: the `notifications/progress` of its own token. */
export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

export interface TestClient {
  /** The revision this client speaks. */
  readonly protocolVersion: string;
  /** Who the server says it is: from `initialize`, or on 2026-07-28 from `server/discover`'s `_meta`. */
  readonly serverInfo: Implementation;
  /** What the server says it can do, as `initialize` or `server/discover` put it. */
  readonly capabilities: Record<string, unknown>;
  /** The server's instructions for the model, if it has any. */
  readonly instructions?: string;
  /** Every notification the server sent (logs, progress, list changes), oldest first. */
  readonly notifications: readonly JsonRpcNotification[];
  /** Any request; on 2026-07-28 with this client's `_meta`, retried with answers while the server asks for input. */
  request(method: string, params?: Record<string, unknown>): Promise<WireResult>;
  /** Every page of `tools/list`. */
  listTools(): Promise<WireResult[]>;
  callTool(name: string, args?: Record<string, unknown>, options?: { onProgress?: (progress: Progress) => void }): Promise<CallToolResult & WireResult>;
  listPrompts(): Promise<WireResult[]>;
  getPrompt(name: string, args?: Record<string, string>): Promise<WireResult>;
  listResources(): Promise<WireResult[]>;
  listResourceTemplates(): Promise<WireResult[]>;
  readResource(uri: string): Promise<WireResult>;
  /** Ends the connection: running handlers are aborted, and the session (if any) ends. */
  close(): Promise<void>;
}

/** Rounds of input one request may ask for before the client gives up: a handler that asks again for ever is a bug to report, not to loop on. */
export const MAX_INPUT_ROUNDS = 32;

/** Pages one listing may take before the client gives up: a cursor that never ends is a bug to report. */
export const MAX_PAGES = 1_000;

/** @throws the definition's problem, when it cannot be served, and any error `initialize` or `server/discover` is answered with */
export async function testClient(definition: ServerDefinition, options: TestClientOptions = {}): Promise<TestClient> {
  const server = compiledOf(definition, "testClient");
  const protocolVersion = options.protocolVersion ?? MODERN_PROTOCOL_VERSIONS[0];
  if (!isModernVersion(protocolVersion) && !isSupportedVersion(protocolVersion)) {
    throw new TypeError(`testClient: protocolVersion ${JSON.stringify(protocolVersion)} is not one this server speaks`);
  }
  // Said for a test, whose fix is an option here, not a deployment's `authorization`.
  if (!server.problem && server.homes.user && !options.user) throw userHomeNeedsSignIn("this test client", 'pass one, testClient(server, { user: { subject: "alice" } })');
  const connection = new Connection(server, options);
  try {
    return await connection.start(protocolVersion);
  } catch (error) {
    await connection.close();
    throw error;
  }
}

/** One in-memory connection: requests out, answers and the server's own messages in. */
class Connection {
  readonly notifications: JsonRpcNotification[] = [];
  readonly #options: TestClientOptions;
  readonly #pending = new Map<RequestId, { resolve: (result: WireResult) => void; reject: (error: Error) => void }>();
  readonly #progress = new Map<string, (progress: Progress) => void>();
  readonly #capabilities: Record<string, unknown>;
  readonly #clientInfo: Implementation;
  readonly #served: Promise<void>;
  /** The client's host of the test's shared homes, closed with it; undefined where serveMessages keeps its own. */
  readonly #homes: LocalHomeHost | undefined;
  #toServer!: ReadableStreamDefaultController<string>;
  #nextId = 1;
  #closed = false;
  /** Why the connection cannot answer any more: the server's problem, or its end. */
  #ended: Error | undefined;

  constructor(server: CompiledServer, options: TestClientOptions) {
    this.#options = options;
    this.#clientInfo = options.clientInfo ?? { name: "durable-mcp-test", version: "0" };
    this.#capabilities = {
      ...(options.elicit ? { elicitation: { form: {}, url: {} } } : {}),
      ...(options.sample ? { sampling: {} } : {}),
      ...(options.roots ? { roots: {} } : {}),
      ...options.capabilities,
    };
    const readable = new ReadableStream<string>({ start: (controller) => void (this.#toServer = controller) });
    const writable = new WritableStream<string>({ write: (text) => this.#receive(text) });
    const logger = new Logger(options.logLevel ?? "warning", {}, stderrSink);
    const { user } = options;
    const principal = user && { issuer: user.issuer ?? TEST_ISSUER, subject: user.subject, scopes: [...(user.scopes ?? [])], claims: { ...user.claims } };
    const env = options.env ?? {};
    const shared = options.homes;
    // A bad variable is serveMessages' to report, with its sentence: no shared host for it.
    const config = shared && server.hasHomes ? configOrUndefined(env) : undefined;
    this.#homes = shared && config ? localHomes({ server, config, logger, storeFor: (name) => shared.storeFor(name) }, env) : undefined;
    this.#served = serveMessages({ server, messages: { readable, writable }, kind: "memory", env, logger, user: principal, homes: this.#homes }).then(
      () => this.#end(new Error("The connection to the server ended")),
      (error: unknown) => this.#end(error instanceof Error ? error : new Error(String(error))),
    );
  }

  async start(protocolVersion: string): Promise<TestClient> {
    const modern = isModernVersion(protocolVersion);
    const send = (method: string, params: Record<string, unknown> = {}) => (modern ? this.#modern(protocolVersion, method, params) : this.#send(method, params));
    let server: WireResult;
    if (modern) {
      server = await send("server/discover");
    } else {
      server = await this.#send("initialize", { protocolVersion, capabilities: this.#capabilities, clientInfo: this.#clientInfo });
      this.#post({ jsonrpc: "2.0", method: "notifications/initialized" });
    }
    const pages = (method: string, key: string) => this.#pages(send, method, key);
    const meta = isObject(server._meta) ? server._meta : {};
    return {
      protocolVersion: modern ? protocolVersion : String(server.protocolVersion),
      serverInfo: (server.serverInfo ?? meta[META.serverInfo]) as Implementation,
      capabilities: isObject(server.capabilities) ? server.capabilities : {},
      ...(typeof server.instructions === "string" ? { instructions: server.instructions } : {}),
      notifications: this.notifications,
      request: send,
      listTools: () => pages("tools/list", "tools"),
      callTool: (name, args = {}, { onProgress } = {}) => this.#withProgress(onProgress, (meta) => send("tools/call", { name, arguments: args, ...meta })) as Promise<CallToolResult & WireResult>,
      listPrompts: () => pages("prompts/list", "prompts"),
      getPrompt: (name, args = {}) => send("prompts/get", { name, arguments: args }),
      listResources: () => pages("resources/list", "resources"),
      listResourceTemplates: () => pages("resources/templates/list", "resourceTemplates"),
      readResource: (uri) => send("resources/read", { uri }),
      close: () => this.close(),
    };
  }

  async close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      try {
        this.#toServer.close();
      } catch {
        // The server's side already cancelled it (it could not serve the definition).
      }
    }
    await this.#served;
    this.#homes?.close();
  }

  /** A 2026-07-28 request: this client's `_meta` on it, and, while the answer asks for input, the answers and another round. */
  async #modern(protocolVersion: string, method: string, params: Record<string, unknown>): Promise<WireResult> {
    const meta = { ...(params._meta as object | undefined), [META.protocolVersion]: protocolVersion, [META.clientInfo]: this.#clientInfo, [META.clientCapabilities]: this.#capabilities };
    let round: Record<string, unknown> = { ...params, _meta: meta };
    for (let rounds = 0; ; rounds++) {
      const result = await this.#send(method, round);
      if (result.resultType !== "input_required") return result;
      if (rounds === MAX_INPUT_ROUNDS) throw new Error(`${method} still asked for input after ${MAX_INPUT_ROUNDS} rounds of answers`);
      const asks = isObject(result.inputRequests) ? Object.entries(result.inputRequests) : [];
      const answers = await Promise.all(asks.map(async ([key, ask]) => [key, await this.#answer(ask as { method?: unknown; params?: unknown })] as const));
      round = { ...params, _meta: meta, inputResponses: Object.fromEntries(answers), requestState: result.requestState };
    }
  }

  /** Every page of a listing, following `nextCursor`. */
  async #pages(send: (method: string, params?: Record<string, unknown>) => Promise<WireResult>, method: string, key: string): Promise<WireResult[]> {
    const items: WireResult[] = [];
    let cursor: unknown;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await send(method, cursor === undefined ? {} : { cursor });
      items.push(...((result[key] as WireResult[] | undefined) ?? []));
      cursor = result.nextCursor;
      if (cursor === undefined) return items;
    }
    throw new Error(`${method} gave a next cursor on each of ${MAX_PAGES} pages`);
  }

  /** Runs `call` with a progress token of its own when the test listens for progress. */
  async #withProgress(onProgress: ((progress: Progress) => void) | undefined, call: (params: Record<string, unknown>) => Promise<WireResult>): Promise<WireResult> {
    if (!onProgress) return call({});
    const token = `progress-${this.#nextId++}`;
    this.#progress.set(token, onProgress);
    try {
      return await call({ _meta: { progressToken: token } });
    } finally {
      this.#progress.delete(token);
    }
  }

  #send(method: string, params: Record<string, unknown>): Promise<WireResult> {
    if (this.#ended) return Promise.reject(this.#ended);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#post({ jsonrpc: "2.0", id, method, params });
    });
  }

  #post(message: JsonRpcMessage): void {
    if (!this.#closed) this.#toServer.enqueue(JSON.stringify(message));
  }

  /** One message from the server: an answer to ours, a request of its own (sessions), or a notification. */
  #receive(text: string): void {
    const parsed: unknown = JSON.parse(text);
    for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
      if (!isObject(message)) continue;
      if (typeof message.method !== "string") {
        this.#settle(message);
      } else if ("id" in message) {
        void this.#reply(message.id as RequestId, message.method, message.params);
      } else {
        const notice = message as unknown as JsonRpcNotification;
        this.notifications.push(notice);
        if (notice.method === "notifications/progress" && isObject(notice.params)) this.#progress.get(String(notice.params.progressToken))?.(notice.params as unknown as Progress);
      }
    }
  }

  #settle(message: Record<string, unknown>): void {
    const waiting = this.#pending.get(message.id as RequestId);
    if (!waiting) return;
    this.#pending.delete(message.id as RequestId);
    if (isObject(message.error)) waiting.reject(new TestClientError(Number(message.error.code), String(message.error.message), message.error.data));
    else waiting.resolve(isObject(message.result) ? message.result : {});
  }

  /** Answers a request of the server's (a session's elicitation, sampling, roots or ping). */
  async #reply(id: RequestId, method: string, params: unknown): Promise<void> {
    try {
      const result = method === "ping" ? {} : await this.#answer({ method, params });
      this.#post({ jsonrpc: "2.0", id, result });
    } catch (error) {
      this.#post({ jsonrpc: "2.0", id, error: { code: -32603, message: error instanceof Error ? error.message : String(error) } });
    }
  }

  /** The test's answer to one ask, by its method; an ask the test gave no answerer for is an error naming the option. */
  async #answer(ask: { method?: unknown; params?: unknown }): Promise<Record<string, unknown>> {
    const params = (isObject(ask.params) ? ask.params : {}) as Record<string, unknown>;
    const { elicit, sample, roots } = this.#options;
    switch (ask.method) {
      case "elicitation/create":
        if (elicit) return (await elicit(params as ElicitParams)) as Record<string, unknown>;
        break;
      case "sampling/createMessage":
        if (sample) return (await sample(params as CreateMessageParams)) as Record<string, unknown>;
        break;
      case "roots/list":
        if (roots) return { roots };
        break;
    }
    const option = { "elicitation/create": "elicit", "sampling/createMessage": "sample", "roots/list": "roots" }[String(ask.method)];
    throw new Error(option ? `The server asked for ${String(ask.method)}; give testClient an \`${option}\` option to answer it` : `The server asked for ${String(ask.method)}, which testClient does not answer`);
  }

  /** No more answers will come: every request still waiting is refused with why. */
  #end(reason: Error): void {
    this.#ended ??= reason;
    for (const [id, waiting] of this.#pending) {
      this.#pending.delete(id);
      waiting.reject(this.#ended);
    }
  }
}

/** The configuration `env` gives, or undefined where it cannot be read (serveMessages then refuses with why). */
function configOrUndefined(env: ServerEnv): ReturnType<typeof readConfig> | undefined {
  try {
    return readConfig(env);
  } catch {
    return undefined;
  }
}

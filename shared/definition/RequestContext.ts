/**
 * What a handler gets besides its arguments: one `RequestContext` per request, the same in every
 * protocol era. Where an era lacks something, it is absent and typed so: 2026-07-28 has no
 * session, so a session tool's `ctx.session` and `ctx.storage` are undefined there, never a
 * stand-in that drops what it is given. A definition with a home of its own (`home: "user"` or a
 * handle, `Home.ts`) has `ctx.storage` in every era: its home's (`HomeContext`).
 */
import type { Principal } from "../auth/Principal.ts";
import type { RequestId } from "../jsonrpc/messages.ts";
import type { LogLevel } from "../protocol/logLevels.ts";
import type { HandlerStorage } from "../storage/KeyValueStore.ts";
import type { HandleHome } from "./Home.ts";
import type { ListFeature, ListKind } from "./ListKind.ts";
import type { ContentBlock, Implementation, Role } from "./types.ts";

declare global {
  namespace DurableMcp {
    /**
     * The variables your handlers read from `ctx.env`; declare them to have them typed:
     *
     * @example declare global { namespace DurableMcp { interface Env { API_BASE_URL?: string } } }
     */
    interface Env {}
  }
}

/** `ctx.env`: the Worker's bindings and variables on Workers, the process environment elsewhere. */
export type ServerEnv = Readonly<DurableMcp.Env & Record<string, unknown>>;

/** Who the client is and what it can do: from `initialize` on a session, from the request's `_meta` on 2026-07-28. */
export interface ClientView {
  /** The protocol revision this request speaks. */
  protocolVersion: string;
  info?: Implementation;
  /** What the client declared (`{}` for nothing): sampling, elicitation, roots… */
  capabilities: Record<string, unknown>;
}

/** The session a request belongs to (2025 sessions, HTTP+SSE, stdio and other message streams). */
export interface SessionContext {
  /** The session id: a bearer secret, never to be shown to other users. */
  readonly id: string;
  /** Whether a tool, prompt, resource or template is on for this session (see `setEnabled`). */
  isEnabled(kind: ListKind, id: string): boolean;
  /**
   * Switches a definition declared with `enabled` on or off for this session only, and tells the
   * client (`notifications/tools/list_changed` and kin, on this request's stream) if its listing
   * changed. `id` is the tool or prompt name, the resource URI or the template's `uriTemplate`.
   * Persisted with the session. Throws TypeError for a definition not declared with `enabled`.
   *
   * @example await ctx.session?.setEnabled("tool", "deleteAccount", true)
   */
  setEnabled(kind: ListKind, id: string, enabled: boolean): Promise<void>;
}

/** How a handler names one ask to the client (2026-07-28 `inputRequests` key). */
export interface InputOptions {
  key?: string;
}

/** MCP `SamplingMessage`. */
export interface SamplingMessage {
  role: Role;
  content: ContentBlock | ContentBlock[];
  _meta?: Record<string, unknown>;
}

/** MCP `CreateMessageRequestParams` (sampling): the messages and a token budget; the rest as the schema has it. */
export interface CreateMessageParams {
  messages: SamplingMessage[];
  maxTokens: number;
  systemPrompt?: string;
  modelPreferences?: Record<string, unknown>;
  includeContext?: "none" | "thisServer" | "allServers";
  temperature?: number;
  stopSequences?: string[];
  metadata?: Record<string, unknown>;
  [field: string]: unknown;
}

/** MCP `CreateMessageResult`: what the client's model answered. */
export interface CreateMessageResult {
  role: Role;
  content: ContentBlock | ContentBlock[];
  model: string;
  stopReason?: string;
  [field: string]: unknown;
}

/** MCP `ElicitRequestParams`: a form (a flat object schema of primitives) or, from 2025-11-25, a URL to visit. */
export type ElicitParams =
  | { mode?: "form"; message: string; requestedSchema: { type: "object"; properties: Record<string, Record<string, unknown>>; required?: string[] }; [field: string]: unknown }
  | { mode: "url"; message: string; url: string; elicitationId: string; [field: string]: unknown };

/** MCP `ElicitResult`: the user's answer; `content` only with `accept` (form mode). */
export interface ElicitResult {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, string | number | boolean | string[]>;
  [field: string]: unknown;
}

/** MCP `ListRootsResult`: the client's filesystem roots. */
export interface ListRootsResult {
  roots: { uri: string; name?: string; [field: string]: unknown }[];
  [field: string]: unknown;
}

interface ContextBase {
  /** Aborted when the client cancels, disconnects, or the handler passes its deadline. Pass it to `fetch`. */
  signal: AbortSignal;
  requestId: RequestId;
  client: ClientView;
  env: ServerEnv;
  /**
   * Who this request acts for, from its own access token, checked on this request (never kept
   * from an earlier one): issuer and subject, the scopes granted, the token's claims or the
   * authorization provider's props. Undefined where the server checks no tokens (no
   * `authorization` option, stdio). Never forward the client's token upstream: call upstream APIs
   * with credentials of the server's own (see docs/authorization.md, "Turning it on").
   */
  auth?: Principal;
  /**
   * Reports progress if the client asked for it (`_meta.progressToken`); a no-op otherwise.
   * Resolves once the notification is queued: a handler that reports faster than the client
   * reads is slowed down, never buffered without limit.
   */
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /** Sends `notifications/message` if `level` passes the client's threshold (`logging/setLevel`, or 2026-07-28 `_meta`). */
  log(level: LogLevel, data: unknown, logger?: string): Promise<void>;
  /**
   * Asks the client's model for a completion (`sampling/createMessage`) and waits for the
   * answer. Needs the client's `sampling` capability; rejects with a readable error otherwise,
   * or when the client declines or does not answer before the handler's deadline.
   *
   * The same call works in every era. On a 2025 session it is a request to the client on this
   * request's stream. On 2026-07-28 it is a multi round-trip request: the first round answers
   * the client with an `InputRequiredResult` asking for it, and the handler runs again, from the
   * top, when the client retries with the answer, so reach asks deterministically and do side
   * effects after them. `options.key` names the ask in `inputRequests`; without it asks are
   * numbered per kind (`sampling-1`, …). Asks made together with `Promise.all` go together.
   *
   * @example const { content } = await ctx.sample({ messages: [{ role: "user", content: { type: "text", text: "Hi" } }], maxTokens: 100 });
   */
  sample(params: CreateMessageParams, options?: InputOptions): Promise<CreateMessageResult>;
  /** Asks the user for input through the client (`elicitation/create`, form or URL mode); needs `elicitation`. Every era, as `sample`. */
  elicit(params: ElicitParams, options?: InputOptions): Promise<ElicitResult>;
  /** The client's filesystem roots (`roots/list`); needs the client's `roots` capability. Every era, as `sample`. */
  listRoots(options?: InputOptions): Promise<ListRootsResult>;
  /**
   * Streamable HTTP only (SEP-1699 polling): ends the HTTP connection carrying this request's
   * stream without ending the stream. The client reconnects with `Last-Event-ID` and receives
   * everything sent meanwhile. A no-op elsewhere.
   */
  closeStream(): void;
  /**
   * The task this call runs as (tasks extension, 2026-07-28), or undefined for a plain call. A
   * task's handler may run more than once (after an eviction or a deploy, and again from the top
   * once the client answers its input requests): use the id as the idempotency key of side
   * effects that must happen once.
   */
  taskId?: string;
  /**
   * For a tool declared with `task: { support, startsItself: true }`: the request is answered with
   * the task here, and the handler goes on in the task (run again from the top, with the answers
   * to the asks before this point). Resolves at once in a task, and in a plain call.
   */
  startTask(): Promise<void>;
  /**
   * Tells the clients watching `uri` that the resource changed (`notifications/resources/updated`):
   * this session's client if it subscribed, and every 2026-07-28 `subscriptions/listen` stream
   * that lists `uri`, in any isolate.
   */
  resourceUpdated(uri: string): Promise<void>;
  /**
   * Tells every client listening for it that a list changed for everyone: each 2026-07-28
   * `subscriptions/listen` stream that asked for it, in any isolate, and this request's stream on
   * a session. Advertise it with `listChanged` in the server definition.
   */
  listChanged(kind: ListFeature): Promise<void>;
}

/** With a session: the session and its storage. */
interface WithSession {
  session: SessionContext;
  /** This session's own key-value storage; durable on Workers and with Deno KV. Gone when the session ends. */
  storage: HandlerStorage;
}

/** 2026-07-28: no session, so nothing outlives the request; state that spans calls travels in arguments. */
interface WithoutSession {
  session?: undefined;
  storage?: undefined;
}

/**
 * The storage of a user's or a handle's home: the session storage's four operations, plus a
 * transaction for read-modify-write (on Deno KV shared by several processes, two writers of one
 * home cannot lose each other's update), and on Workers the home object's SQLite database.
 * Bounded per home (MAX_HOME_BYTES, MAX_HOME_KEYS): a write past a bound rejects with an error
 * that says which, which a tool handler's caller sees as a tool error.
 */
export interface HomeStorage extends HandlerStorage {
  /**
   * Runs `body` against a consistent view of this home: its reads see one state, and its writes
   * apply together or not at all. `body` may run more than once (when another process wrote what
   * it read first, on Deno KV), so keep side effects out of it.
   *
   * @example await ctx.storage.transaction(async (txn) => txn.put("notes", [...((await txn.get<string[]>("notes")) ?? []), text]))
   */
  transaction<T>(body: (txn: HandlerStorage) => Promise<T>): Promise<T>;
  /**
   * Workers only: the home object's own SQLite database (`ctx.storage.sql` of a Durable Object).
   * Each statement runs in a transaction of its own, and one that would grow the database past
   * MAX_HOME_BYTES is rolled back with an error saying so. Undefined on Deno, Node and stdio.
   */
  readonly sql?: SqlDatabase;
}

/** The SQL a Workers home offers: a synchronous SQLite database. */
export interface SqlDatabase {
  /** Runs one statement with `?` bindings; its rows are read at once. */
  exec<T extends Record<string, SqlValue> = Record<string, SqlValue>>(query: string, ...bindings: SqlValue[]): SqlRows<T>;
  /** Bytes the database takes, every table of the home counted. */
  readonly databaseSize: number;
}

export type SqlValue = string | number | null | ArrayBuffer;

/** The rows a statement returned. */
export interface SqlRows<T> extends Iterable<T> {
  toArray(): T[];
  /** The one row; throws when there is not exactly one. */
  one(): T;
  readonly columnNames: string[];
  readonly rowsRead: number;
  readonly rowsWritten: number;
}

/** In a home of its own (`home: "user"` or a handle): its storage, in every era, and the session if the request has one. */
interface InHome {
  session?: SessionContext;
  storage: HomeStorage;
  /**
   * A handle home's handle: the one the call named, or — for a call that named none — the new one
   * opened for it, for the handler to give the model (it is kept once something is stored under
   * it). Undefined in a user's home.
   */
  handle?: string;
  /**
   * A handle home's: erases this handle's home at once — every key, its alarm, its client's share
   * — so that from then on the handle answers as unknown, as if it had expired. What the handler
   * writes after it is erased too when the call ends. Undefined in a user's home.
   *
   * @example if (action === "close") { await ctx.revokeHandle?.(); return "Notebook closed."; }
   */
  revokeHandle?(): Promise<void>;
}

/** Everything a handler may use besides its arguments. One object per request. */
export type RequestContext = ContextBase & (WithSession | WithoutSession | InHome);

/** The context of a handler whose definition has a home of its own: `ctx.storage` is always there. */
export type HomeContext = ContextBase & InHome;

/** The context a definition's handler gets for its declared `home`. */
export type ContextIn<H> = [H] extends ["user" | HandleHome] ? HomeContext : RequestContext;

/**
 * What a completer gets besides the typed-so-far value: the request's context plus the values the
 * client already chose for the other arguments (`context.arguments` of `completion/complete`).
 */
export type CompletionContext = RequestContext & {
  /** `{}` when the client sent none. */
  arguments: Readonly<Record<string, string>>;
};

/**
 * Suggests values for one prompt argument or template variable (MCP completion spec). Return
 * them best first; the server sends at most 100 and reports the full count as `total`.
 *
 * @example (value) => ["python", "pytorch", "rust"].filter((v) => v.startsWith(value))
 */
export type Completer = (value: string, context: CompletionContext) => string[] | Promise<string[]>;

/**
 * The shapes a server author touches: tools, their results, and the context a handler gets.
 * Resources and prompts will sit beside `ToolDefinition` in `ServerDefinition` with the same
 * pattern (a name, a description, a schema, an async handler taking a `RequestContext`).
 */
import type { z } from "zod";
import type { RequestId } from "../jsonrpc/messages.ts";
import type { LogLevel } from "../protocol/logLevels.ts";
import type { SessionStorage } from "../session/SessionStorage.ts";

/** MCP `Implementation`: who a client or server says it is. */
export interface Implementation {
  name: string;
  version: string;
  title?: string;
}

/** Hints about a tool's behaviour (MCP `ToolAnnotations`); clients must not trust them blindly. */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export type ContentBlock =
  | { type: "text"; text: string }
  | { type: "image"; data: string; mimeType: string }
  | { type: "audio"; data: string; mimeType: string }
  | { type: "resource_link"; uri: string; name: string; mimeType?: string; description?: string };

export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** What the session knows about its client, as negotiated by `initialize`. */
export interface SessionInfo {
  id: string;
  protocolVersion: string;
  clientInfo?: Implementation;
  clientCapabilities?: Record<string, unknown>;
}

/** Everything a handler may use besides its arguments. One object per request. */
export interface RequestContext {
  /** Aborted when the client cancels, disconnects, or the handler times out. Pass it to `fetch`. */
  signal: AbortSignal;
  requestId: RequestId;
  session: SessionInfo;
  /**
   * Reports progress if the client asked for it (`_meta.progressToken`); a no-op otherwise.
   * Resolves once the notification is queued: a handler that reports faster than the client
   * reads is slowed down, never buffered without limit.
   */
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /** Sends `notifications/message` if `level` passes the client's `logging/setLevel` threshold. */
  log(level: LogLevel, data: unknown, logger?: string): Promise<void>;
  /** This session's own key-value storage; durable on Workers. Gone when the session ends. */
  storage: Omit<SessionStorage, "deleteAll">;
  /** The runtime's environment (Worker `env`, or the Deno host's variables). */
  env: Readonly<Record<string, unknown>>;
}

export interface ToolDefinition<
  Input extends z.ZodType = z.ZodType,
  Output extends z.ZodType | undefined = z.ZodType | undefined,
> {
  /** Unique within the server; 1–128 characters of [A-Za-z0-9_.-]. */
  name: string;
  title?: string;
  description: string;
  /** Validated before the handler runs; advertised as JSON Schema. Use `z.strictObject` to refuse extra keys. */
  input: Input;
  /** When set, the handler returns this shape; it goes out as `structuredContent` plus a JSON text block. */
  output?: Output;
  annotations?: ToolAnnotations;
  handler(args: z.output<Input>, ctx: RequestContext): Promise<HandlerReturn<Output>>;
}

/** Without an output schema a handler returns plain text or a full result. */
export type ToolReturn = string | CallToolResult;

/** With an output schema it returns the structured value (or a full result, e.g. an error). */
export type HandlerReturn<Output> = Output extends z.ZodType ? z.input<Output> | CallToolResult : ToolReturn;

export interface ServerDefinition {
  name: string;
  version: string;
  title?: string;
  /** Sent in the `initialize` result: how a model should use this server. */
  instructions?: string;
  tools?: ToolDefinition<any, any>[];
}

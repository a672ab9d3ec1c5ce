/**
 * The persisted part of a session: everything needed to continue it in a fresh process (after a
 * Durable Object eviction, a deploy, a Deno restart). Stored under one key, `SESSION_KEY`;
 * handler data lives beside it under `DATA_PREFIX`, so the two can never collide.
 */
import { serialisedLength } from "../bytes/utf8Length.ts";
import { McpError } from "../errors/McpError.ts";
import type { LogLevel } from "../protocol/logLevels.ts";
import type { ProtocolVersion } from "../protocol/versions.ts";
import type { Overrides } from "../definition/ListKind.ts";
import type { Implementation } from "../definition/types.ts";

export const SESSION_KEY = "session";
export const DATA_PREFIX = "data:";
/**
 * The largest record stored, counted as its storage counts it (two bytes per UTF-16 unit once any
 * character is above U+00FF): well under Deno KV's 64 KiB value limit, the smallest backend's.
 * What a client makes the record hold (its description, subscriptions) is bounded below this.
 */
export const MAX_RECORD_BYTES = 48 * 1024;

export interface SessionRecord {
  id: string;
  /** The `kind` of its transport type: "sse", "streamable", "stdio", or a transport of yours. */
  transport: string;
  /** Epoch milliseconds. */
  createdAt: number;
  /**
   * The digest of the principal that created it (`callerOf`), where the server checks tokens:
   * requests with any other principal's token are told it does not exist.
   */
  owner?: string;
  /** Whose fair share it holds (`clientKey`: the principal's digest, else its address's): given back when it ends. */
  shareKey?: string;
  /** Epoch milliseconds: the session ends at the first wakeup after this with nothing connected or running (see `Session`). */
  expiresAt?: number;
  /** Set by `initialize`; absent until then. */
  protocolVersion?: ProtocolVersion;
  clientInfo?: Implementation;
  clientCapabilities?: Record<string, unknown>;
  /** The client's `logging/setLevel` threshold; no log notifications until it sets one. */
  logLevel?: LogLevel;
  /** Resource URIs the client subscribed to (`resources/subscribe`). */
  subscriptions?: string[];
  /** Definitions switched by `ctx.setEnabled`, where they differ from their declared state. */
  overrides?: Overrides;
}

/** Refuses (-32602) a change that would make the record larger than `MAX_RECORD_BYTES`, before anything is stored. */
export function checkRecordSize(record: SessionRecord): void {
  const bytes = serialisedLength(JSON.stringify(record));
  if (bytes > MAX_RECORD_BYTES) {
    throw McpError.invalidParams(`This change would make the session's stored state ${bytes} bytes, over its limit of ${MAX_RECORD_BYTES}`);
  }
}

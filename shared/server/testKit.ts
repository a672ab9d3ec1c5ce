/**
 * Test helpers for the server's unit tests (not part of the public API): a `RequestContext` with
 * no session behind it, `SessionHooks` that record what they are asked, and a one-line request.
 */
import { McpError } from "../errors/McpError.ts";
import type { LogLevel } from "../protocol/logLevels.ts";
import { LATEST_PROTOCOL_VERSION } from "../protocol/versions.ts";
import { MemoryStorage } from "../session/MemoryStorage.ts";
import { scoped } from "../session/SessionStorage.ts";
import { z } from "zod";
import { tool } from "./defineServer.ts";
import type { Overrides } from "./ListKind.ts";
import type { McpServer, SessionHooks } from "./McpServer.ts";
import type { RequestContext } from "./types.ts";

export function stubContext(env: Record<string, unknown> = {}, overrides: Partial<RequestContext> = {}): RequestContext {
  return {
    signal: new AbortController().signal,
    requestId: 1,
    session: { id: "test", protocolVersion: LATEST_PROTOCOL_VERSION },
    progress: async () => {},
    log: async () => {},
    storage: scoped(new MemoryStorage(), "data:"),
    env,
    sample: async () => {
      throw new Error("no client in unit tests");
    },
    elicit: async () => {
      throw new Error("no client in unit tests");
    },
    listRoots: async () => {
      throw new Error("no client in unit tests");
    },
    closeStream: () => {},
    resourceUpdated: async () => {},
    listChanged: async () => {},
    setEnabled: async () => {
      throw new Error("no session in unit tests");
    },
    ...overrides,
  };
}

/** Hooks that record each call, in order, as `[hook, argument]`, and keep switched definitions in memory. */
export function stubHooks() {
  const levels: LogLevel[] = [];
  const calls: [string, string][] = [];
  let switched: Overrides = {};
  const hooks: SessionHooks = {
    setLogLevel: async (level) => void levels.push(level),
    subscribe: async (uri) => void calls.push(["subscribe", uri]),
    unsubscribe: async (uri) => void calls.push(["unsubscribe", uri]),
    overrides: () => switched,
    setOverrides: async (next) => {
      switched = next;
    },
  };
  return { hooks, levels, calls };
}

let nextId = 1;

/** One request through `server.handle`, with a stub context and hooks unless given. */
export function call(server: McpServer, method: string, params?: Record<string, unknown>, ctx = stubContext(), hooks = stubHooks().hooks) {
  return server.handle({ jsonrpc: "2.0", id: nextId++, method, ...(params ? { params } : {}) }, ctx, hooks);
}

/** Rejection of `promise` as an McpError; fails the test if it resolves or rejects otherwise. */
export async function mcpError(promise: Promise<unknown>): Promise<McpError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof McpError)) throw new Error(`expected an McpError, got ${String(error)}`);
  return error;
}

/** Every page of a list method, following `nextCursor`; also returns how many pages there were. */
export async function allPages(server: McpServer, method: string, key: string): Promise<{ items: Record<string, unknown>[]; pages: number }> {
  const items: Record<string, unknown>[] = [];
  let cursor: unknown;
  let pages = 0;
  do {
    const page = await call(server, method, cursor === undefined ? undefined : { cursor });
    items.push(...(page[key] as Record<string, unknown>[]));
    cursor = page.nextCursor;
    pages++;
  } while (cursor !== undefined);
  return { items, pages };
}

/** Tools the session-level unit tests share: `echo` answers its text; `hang` never settles and records its signal in `signals`. */
export function probeTools(signals: AbortSignal[]) {
  return [
    tool({ name: "echo", description: "", input: z.object({ text: z.string() }), handler: async ({ text }) => text }),
    tool({
      name: "hang",
      description: "Never settles; records its signal",
      input: z.object({}),
      handler: (_args, ctx) => {
        signals.push(ctx.signal);
        return new Promise<never>(() => {});
      },
    }),
  ];
}

/** The McpError `run` throws; fails the test if it returns or throws anything else. */
export function thrown(run: () => unknown): McpError {
  try {
    run();
  } catch (error) {
    if (error instanceof McpError) return error;
    throw error;
  }
  throw new Error("expected an McpError, but nothing was thrown");
}

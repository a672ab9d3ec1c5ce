/**
 * Test helpers for the server's unit tests (not part of the public API): a `RequestContext` with
 * a session and storage in memory, a session that keeps its switched definitions as a real one
 * does, and a one-line request.
 */
import { z } from "zod";
import type { Checked } from "../errors/Checked.ts";
import { McpError } from "../errors/McpError.ts";
import { LATEST_PROTOCOL_VERSION } from "../protocol/versions.ts";
import { scoped } from "../storage/KeyValueStore.ts";
import { MemoryStorage } from "../storage/MemoryStorage.ts";
import { tool } from "../server/defineServer.ts";
import { type Overrides, switchedState, switchOverrides } from "../definition/ListKind.ts";
import type { RequestContext, SessionContext } from "../definition/RequestContext.ts";
import { compiledOf, type ServerDefinition } from "../server/ServerDefinition.ts";

/** A session whose definitions are all as declared, unless switched through it. */
export function stubSession(definition: ServerDefinition): SessionContext & { overrides: Overrides } {
  const server = compiledOf(definition, "stubSession");
  const session: SessionContext & { overrides: Overrides } = {
    id: "test",
    overrides: {},
    isEnabled: (kind, id) => switchedState(kind, id, server.declared(kind, id), session.overrides),
    setEnabled: async (kind, id, enabled) => {
      session.overrides = switchOverrides(session.overrides, kind, id, enabled, server.declared(kind, id)) ?? session.overrides;
    },
  };
  return session;
}

export function stubContext(env: Record<string, unknown> = {}, overrides: Partial<RequestContext> = {}): RequestContext {
  return {
    signal: new AbortController().signal,
    requestId: 1,
    client: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {} },
    session: { id: "test", isEnabled: () => true, setEnabled: async () => {} },
    storage: scoped(new MemoryStorage(), "data:"),
    progress: async () => {},
    log: async () => {},
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
    startTask: async () => {},
    resourceUpdated: async () => {},
    listChanged: async () => {},
    ...overrides,
  } as RequestContext;
}

/** One request to a method of the definition, with a stub context unless given. */
export async function call(server: ServerDefinition, method: string, params?: Record<string, unknown>, ctx = stubContext()) {
  const handler = compiledOf(server, "call").assertValid().method(method);
  if (!handler) throw McpError.methodNotFound(method);
  return handler(params ?? {}, ctx);
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
export async function allPages(server: ServerDefinition, method: string, key: string): Promise<{ items: Record<string, unknown>[]; pages: number }> {
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

/** The sentence a definition's problem says; fails the test when the definition is fine. */
export function problemOf(server: ServerDefinition): string {
  if (!server.problem) throw new Error("expected the definition to be refused, but it has no problem");
  return server.problem.message;
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

/** The refusal of a guard expected to refuse; fails the test when the check passed. */
export function refusal(checked: Checked<unknown>): McpError {
  if (checked.ok) throw new Error(`expected a refusal, but the check passed with ${JSON.stringify(checked.value)}`);
  return checked.error;
}

/** The value of a guard expected to pass; fails the test with the refusal's message otherwise. */
export function accepted<T>(checked: Checked<T>): T {
  if (!checked.ok) throw new Error(`expected the check to pass, but it refused: ${checked.error.message}`);
  return checked.value;
}

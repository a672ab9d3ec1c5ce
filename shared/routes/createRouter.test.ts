/**
 * The router's own failures, on a platform of this process (sessions in memory, as on Deno):
 * what the operator reads when the definition or the configuration cannot be served.
 * The router logs through `console`; each test captures those lines instead of printing them.
 */
import * as v from "valibot";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { MemoryBroadcaster } from "../broadcast/MemoryBroadcaster.ts";
import { LocalSessions } from "../host/LocalSessions.ts";
import { defineServer, tool } from "../server/defineServer.ts";
import type { ServerDefinition } from "../server/ServerDefinition.ts";
import { createRouter } from "./createRouter.ts";

type Env = Record<string, string>;

function routerFor(server: ServerDefinition) {
  return createRouter<Env>(server, {
    sessions: (env, { config, logger }) => new LocalSessions({ server, config, logger, env, broadcast: new MemoryBroadcaster(config.maxQueueBytes) }),
    broadcaster: (_env, config) => new MemoryBroadcaster(config.maxQueueBytes),
  });
}

const BASE = "http://127.0.0.1:8787";
let lines: string[];
beforeEach(() => {
  lines = [];
  for (const level of ["error", "warn", "log"] as const) vi.spyOn(console, level).mockImplementation((line: string) => void lines.push(line));
});
afterEach(() => vi.restoreAllMocks());
const logged = () => lines.map((line) => JSON.parse(line) as Record<string, string>);

describe("createRouter: a definition that cannot be served", () => {
  it("logs definition.invalid with the whole sentence, its fix included, however long", async () => {
    // A valibot schema without its converter: the sentence ends with the fix, past 256 characters.
    const server = defineServer({ name: "s", version: "1", tools: [tool({ name: "t", description: "d", input: v.object({ a: v.string() }) as never, handler: async () => "" })] });
    expect(server.problem?.message.length).toBeGreaterThan(256);
    await routerFor(server)(new Request(`${BASE}/health`), {});
    const line = logged().find((entry) => entry.event === "definition.invalid");
    expect(line?.message).toBe(server.problem!.message);
    expect(line?.message).toMatch(/or wrap it \(valibot: toStandardJsonSchema\)$/);
  });
});

/**
 * What `POST /message` hands a legacy session: the body's bytes as read and the ids of its
 * requests, never the parse (a session object then holds no parsed copy of a batch it refuses);
 * and a malformed body never reaches the session at all.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_CONFIG } from "../config/readConfig.ts";
import { Logger } from "../log/Logger.ts";
import { localRuntime } from "../runtime/localRuntime.ts";
import type { SessionOperation } from "../host/SessionOperation.ts";
import { createRouter } from "./createRouter.ts";
import { CompiledServer } from "../server/CompiledServer.ts";

const SESSION = "0123456789abcdef0123456789abcdef";
const URL_ = `http://127.0.0.1:8787/message?sessionId=${SESSION}`;

/** A router whose sessions only record what they are handed, answering 202. */
function recording() {
  const operations: SessionOperation[] = [];
  const server = new CompiledServer({ name: "s", version: "1" });
  const runtime = localRuntime(server, { env: {}, config: DEFAULT_CONFIG, logger: new Logger("error") });
  const sessions = {
    apply: async (operation: SessionOperation) => {
      operations.push(operation);
      return new Response(null, { status: 202 });
    },
  };
  const router = createRouter<Record<string, string>>(server, () => ({ ...runtime, sessions }));
  const post = (body: string) => router(new Request(URL_, { method: "POST", headers: { "content-type": "application/json" }, body }), {});
  return { operations, post };
}

describe("POST /message", () => {
  it("hands the session the body's bytes and its requests' ids, not the parsed messages", async () => {
    const { operations, post } = recording();
    const text = JSON.stringify([
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "t", arguments: { input: "é".repeat(100) } } },
      { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 1 } },
      { jsonrpc: "2.0", id: "b", method: "ping" },
    ]);
    expect((await post(text)).status).toBe(202);
    expect(operations).toHaveLength(1);
    const operation = operations[0] as Extract<SessionOperation, { kind: "deliver" }>;
    expect(operation.kind).toBe("deliver");
    expect(operation).not.toHaveProperty("messages");
    expect(operation.body).toBeInstanceOf(Uint8Array);
    expect(new TextDecoder().decode(operation.body)).toBe(text);
    expect(operation.requests).toEqual([1, "b"]);
    expect(operation.size).toBe(text.length);
  });

  it("answers a malformed body itself (400 and its JSON-RPC error): nothing reaches the session", async () => {
    const { operations, post } = recording();
    const notJson = await post("{");
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as { error: { code: number } }).error.code).toBe(-32700);
    const notJsonRpc = await post(JSON.stringify({ id: 7, method: 3 }));
    expect(notJsonRpc.status).toBe(400);
    expect(await notJsonRpc.json()).toMatchObject({ id: 7, error: { code: -32600 } });
    expect(operations).toHaveLength(0);
  });
});

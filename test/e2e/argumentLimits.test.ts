/**
 * The example's `alertSweep` (zod/mini) given 150,000 bad items, over real HTTP, on whichever
 * runtime `startServer` starts (workerd; Deno in the contract suite). zod/mini collects the
 * items' issues with `push(...all)`, which overflows the stack on so many; unbounded, the call
 * would answer 500 with -32603. The arguments are bounded before validation (`ArgumentLimits.ts`):
 * the call is a short tool error naming the bound, the model can correct it, and the server
 * goes on serving.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../../scripts/startServer.mjs";
import { postModern } from "../support/httpSession.ts";
import { startNwsFixtureServer } from "../support/nwsFixtureServer.mjs";

/** Past the default bound (MAX_ARGUMENT_VALUES, 10,000), and past where zod/mini overflowed the stack. */
const BAD_ITEMS = 150_000;
const REFUSAL = "Invalid arguments for tool alertSweep:\n✖ The arguments hold more than 10000 values (array items and object members, at any depth); the limit is 10000 (maxValues)\n  → at states";

let server: Awaited<ReturnType<typeof startServer>>;
let nws: Awaited<ReturnType<typeof startNwsFixtureServer>>;
beforeAll(async () => {
  nws = await startNwsFixtureServer();
  server = await startServer({ vars: { LOG_LEVEL: "error", NWS_BASE_URL: nws.url } });
});
afterAll(async () => {
  await server?.dispose();
  await nws?.close();
});

const badStates = (item: unknown) => ({ states: Array.from({ length: BAD_ITEMS }, () => item) });

describe(`the example's alertSweep with ${BAD_ITEMS} bad items`, () => {
  it("is a tool error naming the bound on 2026-07-28, not a 500, and the next call is served", async () => {
    for (const item of [1, null, []]) {
      const response = await postModern(server.url, "tools/call", { name: "alertSweep", arguments: badStates(item) }, { name: "alertSweep" });
      const text = await response.text();
      expect(response.status, text.slice(0, 200)).toBe(200);
      const { result } = JSON.parse(text);
      expect(result).toMatchObject({ isError: true, content: [{ type: "text", text: REFUSAL }] });
    }
    const served = await postModern(server.url, "tools/call", { name: "alertSweep", arguments: { states: ["CA"] } }, { name: "alertSweep" });
    expect(((await served.json()) as any).result).toMatchObject({ isError: false, content: [{ text: "CA: 1 active (Wind Advisory)" }] });
  });

  it("is a tool error naming the bound to the official SDK client on a 2025 session", async () => {
    const client = new Client({ name: "limits", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", server.url)));
    try {
      const result: any = await client.callTool({ name: "alertSweep", arguments: badStates(1) });
      expect(result).toMatchObject({ isError: true, content: [{ type: "text", text: REFUSAL }] });
      expect(await client.callTool({ name: "getScore", arguments: { name: "lisi" } })).toMatchObject({ content: [{ text: '"80.0"' }] });
    } finally {
      await client.close();
    }
  });
});

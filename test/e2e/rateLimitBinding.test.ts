/**
 * A Workers rate-limiting binding (`[[ratelimits]]`, simulated by miniflare) does the counting of
 * a `rateLimits()` limit where one is bound under its name (`MCP_RATE_LIMIT_ADDRESS`): it counts
 * for the whole location, where the in-process window would count per isolate. The fixture's
 * option allows 1,000 a minute and its binding 2, so a 429 on the third request is the binding's;
 * the 429 reports the option's figures, which a deployment keeps equal to the binding's. Workers
 * only: Deno has no such binding (its limits are counted in the process, `createRouter.test.ts`).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../../scripts/startServer.mjs";
import { OPTION_LIMIT } from "../fixtures/rateLimited/limits.ts";
import { initialize } from "../support/messages.ts";

let server: Awaited<ReturnType<typeof startServer>>;

beforeAll(async () => {
  server = await startServer({ entry: "test/fixtures/rateLimited/worker.ts", config: "test/fixtures/rateLimited/wrangler.toml", runtime: "workerd", vars: { LOG_LEVEL: "error" } });
});

afterAll(async () => {
  await server?.dispose();
});

const post = () =>
  fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify(initialize(1, "2025-06-18")),
  });

/**
 * Miniflare's binding counts in windows aligned to the clock (each minute from :00), so the three
 * requests are sent well inside one: if less than 10 s of this minute are left, after it turns.
 */
async function awayFromWindowEdge(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 10_000) await new Promise((resolve) => setTimeout(resolve, left + 200));
}

describe("rateLimits() with a Workers rate-limiting binding", () => {
  it("is counted by the binding: the third request from one address is refused, far below the option's own limit", async () => {
    await awayFromWindowEdge();
    for (let i = 0; i < 2; i++) {
      const response = await post();
      expect(response.status).toBe(200);
      await response.body?.cancel();
    }
    const refused = await post();
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe(String(OPTION_LIMIT.periodSeconds));
    const body = (await refused.json()) as { error: { message: string } };
    expect(body.error.message).toMatch(/Too many requests from this address/);
    expect(body.error.message).toContain(String(OPTION_LIMIT.limit));
  });
});

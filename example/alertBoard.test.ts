/**
 * The alert board's tools when the weather service fails for one state: through the in-memory
 * client, against the local stand-in for the service. A state enters the pick only once its
 * alerts could be fetched, and every answer is the board (its picks and states), with the
 * failing state's error beside the others, so the person can still change it.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { testClient } from "durable-mcp/testing";
import { startNwsFixtureServer } from "../test/support/nwsFixtureServer.mjs";
import server from "./server.ts";

let nws: Awaited<ReturnType<typeof startNwsFixtureServer>>;

beforeAll(async () => {
  nws = await startNwsFixtureServer({ downAreas: ["AK"] });
});

afterAll(async () => {
  await nws?.close();
});

it("keeps a pick only once it can be shown, and answers with the board and the failing state's error beside it (2025-11-25 session)", async () => {
  const client = await testClient(server, { protocolVersion: "2025-11-25", env: { NWS_BASE_URL: nws.url } });
  try {
    const picked = await client.callTool("pickAlertStates", { states: ["CA", "AK"] });
    expect(picked.isError).toBeFalsy();
    expect(picked.structuredContent).toMatchObject({ picked: ["CA"], kept: "session" });
    const states = (picked.structuredContent as { states: { code: string; error?: string; total?: number }[] }).states;
    expect(states.map((state) => state.code)).toEqual(["CA", "AK"]);
    expect(states[0]!.total).toBeGreaterThan(0);
    expect(states[1]!.error).toMatch(/503/);
    expect((picked.content as { text: string }[])[0]!.text).toMatch(/AK \(not picked\): could not be shown\. The National Weather Service answered 503/);

    // The failed state was not kept: the next board shows what was.
    const next = await client.callTool("alertBoard", {});
    expect(next.isError).toBeFalsy();
    expect(next.structuredContent).toMatchObject({ picked: ["CA"], kept: "session" });
    expect((next.structuredContent as { states: { code: string }[] }).states.map((state) => state.code)).toEqual(["CA"]);
  } finally {
    await client.close();
  }
});

it("keeps a state already picked when its alerts fail later, and shows the error beside it", async () => {
  const down: string[] = [];
  const flaky = await startNwsFixtureServer({ downAreas: down });
  const client = await testClient(server, { protocolVersion: "2025-11-25", env: { NWS_BASE_URL: flaky.url } });
  try {
    expect((await client.callTool("pickAlertStates", { states: ["AK", "TX"] })).structuredContent).toMatchObject({ picked: ["AK", "TX"] });
    down.push("AK");
    const board = await client.callTool("alertBoard", {});
    expect(board.isError).toBeFalsy();
    expect(board.structuredContent).toMatchObject({ picked: ["AK", "TX"], states: [{ code: "AK", error: expect.stringMatching(/503/) }, { code: "TX", total: 0 }] });
    // Removing a state always works, whether or not its alerts can be fetched.
    expect((await client.callTool("pickAlertStates", { states: ["TX"] })).structuredContent).toMatchObject({ picked: ["TX"] });
  } finally {
    await client.close();
    await flaky.close();
  }
});

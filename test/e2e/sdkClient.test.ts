/**
 * The example server on workerd (miniflare), driven by the official MCP TypeScript SDK client
 * over the legacy HTTP+SSE transport: several sessions at once, each reply on its own stream,
 * and the weather tools against a local National Weather Service stand-in. The tools that fail on
 * purpose (a forecast outside the US, an upstream 503) are logged as `handler.error`, which the
 * servers' captured lines are checked for rather than printed.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../../scripts/startServer.mjs";
import { startNwsFixtureServer } from "../support/nwsFixtureServer.mjs";
import { handlerErrors, holdsMintedId, unexplained } from "../support/serverLogs.ts";

let server: Awaited<ReturnType<typeof startServer>>;
let downServer: Awaited<ReturnType<typeof startServer>>;
let nws: Awaited<ReturnType<typeof startNwsFixtureServer>>;
let nwsDown: Awaited<ReturnType<typeof startNwsFixtureServer>>;

beforeAll(async () => {
  nws = await startNwsFixtureServer();
  nwsDown = await startNwsFixtureServer({ mode: "down" });
  server = await startServer({ vars: { LOG_LEVEL: "error", NWS_BASE_URL: nws.url }, captureLogs: true });
  downServer = await startServer({ vars: { LOG_LEVEL: "error", NWS_BASE_URL: nwsDown.url }, captureLogs: true });
});
afterAll(async () => {
  // Captured, not printed: whatever else the servers logged fails the file.
  expect(unexplained(server?.logs() ?? [], { events: ["handler.error"] })).toEqual([]);
  expect(unexplained(downServer?.logs() ?? [], { events: ["handler.error"] })).toEqual([]);
  await server?.dispose();
  await downServer?.dispose();
  await nws?.close();
  await nwsDown?.close();
});

async function connect(url: string, name = "e2e-client") {
  const client = new Client({ name, version: "1.0.0" });
  await client.connect(new SSEClientTransport(new URL("/sse", url)));
  return client;
}

const text = (result: any) => result.content.map((c: any) => c.text).join("");

describe("official SDK client over HTTP+SSE", () => {
  it("initializes, lists the captured tools and calls getScore", async () => {
    const client = await connect(server.url);
    expect(client.getServerVersion()).toEqual({ name: "my-weather-server", version: "0.0.1" });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["toUpperCase", "getAlerts", "getWeatherForecastByLocation", "getScore", "notepad", "alertSweep", "notebook", "alertBoard"]);
    expect(tools[2]!.inputSchema).toEqual({
      type: "object",
      properties: { latitude: { type: "number", format: "double" }, longitude: { type: "number", format: "double" } },
      required: ["latitude", "longitude"],
      additionalProperties: false,
    });
    const score = await client.callTool({ name: "getScore", arguments: { name: "lisi" } });
    expect(score).toEqual({ content: [{ type: "text", text: '"80.0"' }], isError: false });
    await client.ping();
    await client.close();
  });

  it("keeps several sessions apart, each reply on its own stream", async () => {
    const clients = await Promise.all(Array.from({ length: 6 }, (_, i) => connect(server.url, `client-${i}`)));
    const results = await Promise.all(
      clients.map(async (client, i) => {
        const upper = await client.callTool({ name: "toUpperCase", arguments: { input: `hello from ${i}` } });
        await client.callTool({ name: "notepad", arguments: { action: "add", text: `note of session ${i}` } });
        const notes = await client.callTool({ name: "notepad", arguments: { action: "list" } });
        return [text(upper), text(notes)];
      }),
    );
    results.forEach(([upper, notes], i) => {
      expect(upper).toBe(`HELLO FROM ${i}`);
      expect(notes).toBe(`1. note of session ${i}`); // only this session's note
    });
    await Promise.all(clients.map((c) => c.close()));
  });

  it("reports invalid arguments as a readable tool error", async () => {
    const client = await connect(server.url);
    const result: any = await client.callTool({ name: "getWeatherForecastByLocation", arguments: { latitude: "north" } });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/Invalid arguments for tool getWeatherForecastByLocation/);
    expect(text(result)).toMatch(/latitude/);
    await client.close();
  });

  it("gets a forecast and alerts from the weather service", async () => {
    const client = await connect(server.url);
    const forecast = text(await client.callTool({ name: "getWeatherForecastByLocation", arguments: { latitude: 39.7456, longitude: -97.0892 } }));
    expect(forecast).toContain("Today:\nTemperature: 54°F\nWind: 5 to 10 mph S\nSunny, with a high near 54.");
    expect(forecast.split("\n---\n")).toHaveLength(5);
    expect(text(await client.callTool({ name: "getAlerts", arguments: { state: "ca" } }))).toContain("Event: Wind Advisory");
    expect(text(await client.callTool({ name: "getAlerts", arguments: { state: "NY" } }))).toBe("No active alerts for NY.");
    const outside: any = await client.callTool({ name: "getWeatherForecastByLocation", arguments: { latitude: 0, longitude: 0 } });
    expect(outside.isError).toBe(true);
    expect(text(outside)).toMatch(/covers US locations only/);
    expect(nws.requests.some((r) => r.includes("ua=durable-mcp-example"))).toBe(true);
    await client.close();
    // The operator's error line for it: once, with the tool and its stack, and no session id.
    const [logged, ...more] = handlerErrors(server.logs(), "getWeatherForecastByLocation");
    expect(more).toEqual([]);
    expect(logged).toMatchObject({ level: "error", method: "tools/call", message: expect.stringMatching(/covers US locations only/), stack: expect.arrayContaining([expect.stringMatching(/^Error: /)]) });
    expect(holdsMintedId(logged!)).toBe(false);
  });

  it("sweeps alerts across states in the request when the client has no tasks (a task tool declared optional)", async () => {
    const client = await connect(server.url);
    // (Its progress is not asserted here: SDK v1 handles a response before the notifications that
    // came in the same read, and drops their progress. tasks.test.ts reads it as a task's status.)
    const sweep = await client.callTool({ name: "alertSweep", arguments: { states: ["ca", "NY", "CA"] } });
    expect(text(sweep)).toBe("CA: 1 active (Wind Advisory)\nNY: no active alerts");
    const bad: any = await client.callTool({ name: "alertSweep", arguments: { states: ["CA", "California"] } });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toMatch(/"CALIFORNIA" is not a two-letter US state code/);
    await client.close();
  });

  it("turns an upstream failure into a tool error result", async () => {
    const client = await connect(downServer.url);
    const result: any = await client.callTool({ name: "getAlerts", arguments: { state: "CA" } });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/National Weather Service answered 503/);
    await client.close();
    const logged = handlerErrors(downServer.logs(), "getAlerts");
    expect(logged).toEqual([expect.objectContaining({ level: "error", method: "tools/call", message: "The National Weather Service answered 503 Service Unavailable for /alerts/active." })]);
    expect(holdsMintedId(logged[0]!)).toBe(false);
  });
});

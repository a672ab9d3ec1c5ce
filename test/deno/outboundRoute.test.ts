/**
 * `startServer`'s `outbound` routes, on both runtimes that have them: the example server, told
 * that the weather service is at `https://api.weather.gov`, reaches the loopback stand-in for it
 * (workerd through miniflare's outbound service, Deno through `scripts/denoOutbound.ts`), and a
 * fetch to an origin not routed is refused. Tests that must serve an https origin on loopback (the
 * enterprise identity provider) rely on it.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../../scripts/startServer.mjs";
import { startNwsFixtureServer } from "../support/nwsFixtureServer.mjs";

const NWS = "https://api.weather.gov";

let nws: Awaited<ReturnType<typeof startNwsFixtureServer>>;
beforeAll(async () => {
  nws = await startNwsFixtureServer();
});
afterAll(() => nws?.close());

/** The `getAlerts` answer for CA from the example on `runtime`, its fetches routed by `outbound` (its error log kept, not printed). */
async function alertsWith(runtime: string, outbound: Record<string, string>) {
  const server = await startServer({ runtime, vars: { LOG_LEVEL: "error", NWS_BASE_URL: NWS }, outbound, captureLogs: true });
  try {
    const client = new Client({ name: "outbound-route", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    const result = (await client.callTool({ name: "getAlerts", arguments: { state: "CA" } })) as { isError?: boolean; content: { text: string }[] };
    await client.close();
    return result;
  } finally {
    await server.dispose();
  }
}

describe.each(["workerd", "deno"])("outbound routes on %s", (runtime) => {
  it("sends a fetch to a routed https origin to its loopback server, path and query kept", { timeout: 60_000 }, async () => {
    const before = nws.requests.length;
    const result = await alertsWith(runtime, { [NWS]: nws.url });
    expect(result.isError).toBeFalsy();
    expect(result.content[0]!.text).toContain("Event: Wind Advisory");
    expect(nws.requests.slice(before).map((r) => r.split(" ").slice(0, 2).join(" "))).toEqual(["GET /alerts/active?area=CA"]);
  });

  it("refuses a fetch to an origin that is not routed", { timeout: 60_000 }, async () => {
    const before = nws.requests.length;
    const result = await alertsWith(runtime, { "https://elsewhere.example": nws.url });
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toBe("Tool getAlerts failed: The National Weather Service answered 502  for /alerts/active.");
    expect(nws.requests.length).toBe(before);
  });
});

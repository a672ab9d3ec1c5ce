/**
 * `durable-mcp check` against this project's example, on whichever runtime `startServer` starts
 * (the contract suite runs this file on workerd, Deno and Node): every probe passes, sign-in
 * aside, which the example does not ask for. The broken servers are in checkBroken.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCheck } from "../../check/runCheck.ts";
import { startServer } from "../../scripts/startServer.mjs";

let server: Awaited<ReturnType<typeof startServer>>;
beforeAll(async () => {
  server = await startServer({ vars: { LOG_LEVEL: "error" } });
});
afterAll(() => server?.dispose());

describe("durable-mcp check on the example", () => {
  it("passes every probe a host runs, and says what it saw", async () => {
    const findings = await runCheck({ url: `${server.url}/mcp` });
    const verdicts = findings.map((f) => `${f.verdict} ${f.probe}`);
    expect(verdicts).toEqual(["skip oauth", "pass report", "pass discover", "pass per-call", "pass sdk", "pass sdk", "pass sse", "pass cors"]);
    const summary = (probe: string) => findings.filter((f) => f.probe === probe).map((f) => f.summary).join(" | ");
    expect(summary("oauth")).toBe("no sign-in: an anonymous initialize got HTTP 200");
    expect(summary("report")).toBe("my-weather-server 0.0.1 reports no problem and no warning (GET /)");
    expect(summary("discover")).toMatch(/^server\/discover: 2026-07-28; tools, resources, completions, logging; extensions .*io\.modelcontextprotocol\/ui.*; the same as initialize says$/);
    expect(summary("per-call")).toMatch(/^3 rounds of initialize then tools\/list with no session id: \d+ tools each time \(3 session ids issued\)$/);
    expect(summary("sdk")).toMatch(/version probe\): 2026-07-28, \d+ tools, \d+ resources \| .*2025 era\): 2025-11-25, \d+ tools/);
    expect(summary("sse")).toMatch(/^SDK client on HTTP\+SSE at \/sse: 2025-11-25, \d+ tools/);
  });
});

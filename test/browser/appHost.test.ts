/**
 * MCP Apps as a host renders them (issue 22): headless Chromium (Debian's `chromium`, which
 * .ci/run installs) opens a page that plays the host with ext-apps' own host bridge (`host.ts`),
 * against the example on workerd, over 2026-07-28 and over a 2025-11-25 session. The page calls
 * `alertBoard`, reads its view with `resources/read`, loads it into a sandboxed iframe under the
 * view's CSP, and hands it the result; the view renders the board, and a click on a state calls
 * the app-only `pickAlertStates` back through the bridge. A screenshot of each is kept in
 * `test/artifacts/`. A client without the extension gets the board as text, and no app-only tool.
 */
import { createServer, type Server } from "node:http";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../../scripts/startServer.mjs";
import { startNwsFixtureServer } from "../support/nwsFixtureServer.mjs";
import { ARTIFACTS, launchChromium } from "../support/chromium.ts";

let browser: Browser;
let host: Server;
let hostUrl: string;
let server: Awaited<ReturnType<typeof startServer>>;
let nws: Awaited<ReturnType<typeof startNwsFixtureServer>>;

beforeAll(async () => {
  const bundled = await build({ entryPoints: [fileURLToPath(new URL("host.ts", import.meta.url))], bundle: true, format: "esm", platform: "browser", write: false, logLevel: "silent" });
  const script = bundled.outputFiles[0]!.contents;
  host = createServer((request, response) => {
    if (request.url === "/host.js") return response.writeHead(200, { "content-type": "text/javascript" }).end(script);
    response.writeHead(200, { "content-type": "text/html" }).end('<!DOCTYPE html><html><head><title>Test host</title><style>body{font-family:sans-serif;margin:16px}iframe{width:640px;border:1px solid #888;border-radius:6px}</style></head><body><h1>Test host</h1><div id="views"></div><script type="module" src="/host.js"></script></body></html>');
  });
  await new Promise<void>((resolve) => host.listen(0, "127.0.0.1", resolve));
  hostUrl = `http://127.0.0.1:${(host.address() as { port: number }).port}/`;
  nws = await startNwsFixtureServer();
  server = await startServer({ vars: { LOG_LEVEL: "error", NWS_BASE_URL: nws.url } });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.dispose();
  await nws?.close();
  await new Promise((resolve) => host?.close(resolve));
});

describe.each([
  { era: "2026-07-28" as const, kept: "not kept" },
  { era: "2025-11-25" as const, kept: "kept for this session" },
])("a host rendering views, over $era", ({ era, kept }) => {
  it("shows the board from resources/read in a sandboxed iframe, and the view calls its app-only tool back", { timeout: 60_000 }, async () => {
    const page = await browser.newPage({ viewport: { width: 720, height: 900 } });
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(error.message));
    page.on("console", (message) => {
      if (process.env.DEBUG_HOST) console.log("page:", message.text());
      if (message.type() === "error") problems.push(message.text());
    });
    try {
      await page.goto(hostUrl);
      await page.waitForFunction(() => "runHost" in globalThis);
      const report = await page.evaluate((run) => (globalThis as never as { runHost(r: unknown): Promise<Record<string, unknown>> }).runHost(run), { mcpUrl: `${server.url}/mcp`, era, tool: "alertBoard", args: { states: ["CA", "TX"] } });
      expect(report.protocolVersion).toBe(era);
      // A client that renders views sees the app-only tool, which its model must not be given.
      expect(report.listed).toEqual(expect.arrayContaining(["alertBoard", "pickAlertStates"]));
      expect(report.resultText).toMatch(/^The board shows \d+ active alert\(s\) across CA, TX\.$/);
      expect(report.viewUri).toBe("ui://my-weather-server/alert-board.html");
      expect(report.csp).toContain("connect-src 'none'");

      const view = page.frameLocator("#view");
      await expect.poll(() => view.locator('section[data-code="CA"] h2').textContent()).toMatch(/^CA: [1-9]\d* active alerts?$/);
      expect(await view.locator('section[data-code="TX"] h2').textContent()).toBe("TX: 0 active alerts");
      expect(await view.locator('section[data-code="CA"] li').count()).toBeGreaterThan(0);

      await view.getByRole("button", { name: "NY", exact: true }).click();
      await expect.poll(() => view.locator('section[data-code="NY"] h2').textContent()).toBe("NY: 0 active alerts");
      expect(await view.getByRole("button", { name: "NY", exact: true }).getAttribute("aria-pressed")).toBe("true");
      expect(await view.locator("#status").textContent()).toContain(kept === "not kept" ? "not kept" : "kept for this session");
      if (process.env.DEBUG_HOST) console.log("report:", await page.evaluate(() => JSON.stringify((globalThis as never as { hostReport: unknown }).hostReport)));
      expect(await page.evaluate(() => (globalThis as never as { hostReport: { calledByView: string[] } }).hostReport.calledByView)).toEqual(["pickAlertStates"]);
      // The host follows the view's size-changed notifications: the whole board fits its iframe.
      const frameHeight = async () => (await page.locator("#view").boundingBox())?.height ?? 0;
      const boardBottom = () => view.locator('section[data-code="NY"]').evaluate((section) => section.getBoundingClientRect().bottom);
      await expect.poll(async () => (await frameHeight()) >= (await boardBottom())).toBe(true);
      await page.screenshot({ path: `${ARTIFACTS}app-host-${era}.png`, fullPage: true });
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });
});

describe("a client that renders no views", () => {
  it.each(["2026-07-28", "2025-11-25"] as const)("gets the board as text over %s, and no app-only tool", async (era) => {
    const client = new Client({ name: "text-only", version: "1.0.0" }, { versionNegotiation: { mode: era === "2026-07-28" ? { pin: "2026-07-28" } : "legacy" } } as never);
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain("alertBoard");
      expect(names).not.toContain("pickAlertStates");
      const result = await client.callTool({ name: "alertBoard", arguments: { states: ["CA", "TX"] } });
      const text = (result.content as { text: string }[])[0]!.text;
      expect(text).toMatch(/^CA: [1-9]\d* active\n {2}- /);
      expect(text).toContain("TX: no active alerts");
      expect(result.structuredContent).toMatchObject({ picked: ["CA", "TX"] });
    } finally {
      await client.close();
    }
  });
});

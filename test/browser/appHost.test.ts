/**
 * MCP Apps as a host renders them: headless Chromium (Debian's `chromium`, which
 * .ci/run installs) opens a page that plays the host with ext-apps' own host bridge (`host.ts`),
 * against the example on workerd, over 2026-07-28 and over a 2025-11-25 session. The page calls
 * `alertBoard`, reads its view with `resources/read`, loads it into a sandboxed iframe under the
 * view's CSP, and hands it the result; the view renders the board, and a click on a state calls
 * the app-only `pickAlertStates` back through the bridge. The view takes the host's style
 * variables, declares its display modes, tells the model what the person picked, shrinks its
 * frame when the board gets shorter, and keeps the board usable when the weather service fails
 * for one state. A screenshot of each is kept in `test/artifacts/`. A client without the
 * extension gets the board as text, and no app-only tool; the view opened alone says what it needs.
 */
import { createServer, type Server } from "node:http";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { Browser, Locator } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../../scripts/startServer.mjs";
import { startNwsFixtureServer } from "../support/nwsFixtureServer.mjs";
import { ARTIFACTS, launchChromium } from "../support/chromium.ts";
import { BOARD_HTML } from "../../example/alertBoardHtml.ts";

/** The state the weather stand-in fails for (503), in every test here. */
const FAILING_STATE = "AK";
/** How far the frame may be from the view's content: its border, and rounding. */
const FIT_SLACK_PX = 4;

/** An element's computed style property, read in the page (the type-check has no DOM library). */
const computedStyle = (locator: Locator, property: string) =>
  locator.evaluate((element, name) => (globalThis as never as { getComputedStyle(e: unknown): Record<string, string> }).getComputedStyle(element)[name], property);

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
  nws = await startNwsFixtureServer({ downAreas: [FAILING_STATE] });
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
      const contentHeight = () => view.locator("body").evaluate((body) => body.getBoundingClientRect().height);
      const boardBottom = () => view.locator('section[data-code="NY"]').evaluate((section) => section.getBoundingClientRect().bottom);
      await expect.poll(async () => (await frameHeight()) >= (await boardBottom())).toBe(true);
      await page.screenshot({ path: `${ARTIFACTS}app-host-${era}.png`, fullPage: true });

      const hostReport = () => page.evaluate(() => (globalThis as never as { hostReport: { modelContext: { content?: { text?: string }[] }[]; heights: number[]; appCapabilities: unknown; hostStyles: Record<string, string>; darkHostStyles: Record<string, string> } }).hostReport);
      // The host's style variables are the view's: its background is the host's.
      const { hostStyles, darkHostStyles, appCapabilities } = await hostReport();
      expect(await computedStyle(view.locator("body"), "backgroundColor")).toBe(hostStyles["--color-background-primary"]);
      expect(await computedStyle(view.locator("h1"), "color")).toBe(hostStyles["--color-text-primary"]);
      expect(appCapabilities).toMatchObject({ availableDisplayModes: ["inline"] });
      // ... and follow the host when it changes them.
      await page.evaluate(() => (globalThis as never as { darkHost(): void }).darkHost());
      await expect.poll(() => computedStyle(view.locator("body"), "backgroundColor")).toBe(darkHostStyles["--color-background-primary"]);
      expect(await view.locator("html").getAttribute("data-theme")).toBe("dark");
      // The model hears what the person picked, for its next turn.
      await expect.poll(async () => (await hostReport()).modelContext.at(-1)?.content?.[0]?.text).toMatch(/CA, TX, NY/);

      // A state the weather service fails for: its error beside the board, not picked, the board still usable.
      await view.getByRole("button", { name: FAILING_STATE, exact: true }).click();
      await expect.poll(() => view.locator(`section[data-code="${FAILING_STATE}"]`).count()).toBe(1);
      await expect.poll(() => view.locator(`section[data-code="${FAILING_STATE}"]`).textContent()).toMatch(/could not be shown.*503/);
      expect(await view.getByRole("button", { name: FAILING_STATE, exact: true }).getAttribute("aria-pressed")).toBe("false");
      expect(await view.locator('section[data-code="CA"] h2').textContent()).toMatch(/^CA: [1-9]\d* active alerts?$/);
      expect(await view.getByRole("button", { name: "CA", exact: true }).getAttribute("aria-pressed")).toBe("true");
      await page.screenshot({ path: `${ARTIFACTS}app-host-${era}-failed-state.png`, fullPage: true });

      // Unpicking every state shrinks the frame back to the content.
      const tall = await frameHeight();
      for (const code of ["CA", "TX", "NY"]) {
        await view.getByRole("button", { name: code, exact: true }).click();
        await expect.poll(() => view.getByRole("button", { name: code, exact: true }).getAttribute("aria-pressed")).toBe("false");
      }
      expect(await view.locator("section").count()).toBe(0);
      await expect.poll(frameHeight).toBeLessThan(tall);
      await expect.poll(async () => Math.abs((await frameHeight()) - (await contentHeight()))).toBeLessThanOrEqual(FIT_SLACK_PX);
      await expect.poll(async () => (await hostReport()).modelContext.at(-1)?.content?.[0]?.text).toMatch(/no states/);
      if (process.env.DEBUG_HOST) console.log("heights:", (await hostReport()).heights.join(" "), "frame:", await frameHeight(), "content:", await contentHeight());
      await page.screenshot({ path: `${ARTIFACTS}app-host-${era}-unpicked.png`, fullPage: true });
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

describe("the view opened alone, outside any host", () => {
  it("says plainly to open it in an MCP Apps host", async () => {
    const page = await browser.newPage();
    try {
      await page.setContent(BOARD_HTML);
      await expect.poll(() => page.locator("#status").textContent()).toMatch(/^This board is an MCP App: open it in an MCP Apps host/);
      await page.screenshot({ path: `${ARTIFACTS}app-alone.png` });
    } finally {
      await page.close();
    }
  });
});

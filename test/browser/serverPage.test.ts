/**
 * The page for people at `GET /`, as a person sees it: headless Chromium (Debian's
 * `chromium`, which .ci/run installs) opens the example on workerd at `/`. The example's tools are
 * shown, the MCP URL is filled in from the address the browser used, the app-only tool is not
 * listed (an anonymous client is not shown it), and the page loads with nothing refused by its CSP
 * and nothing logged as an error. A full-page screenshot is kept in `test/artifacts/`.
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../../scripts/startServer.mjs";
import { ARTIFACTS, launchChromium } from "../support/chromium.ts";

let browser: Browser;
let server: Awaited<ReturnType<typeof startServer>>;

beforeAll(async () => {
  server = await startServer({ vars: { LOG_LEVEL: "error" } });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.dispose();
});

describe("the page at / in a browser", () => {
  it("shows the example's tools and its MCP URL, with no console error or CSP violation", async () => {
    // A phone's width: the page must read there too.
    const page = await browser.newPage({ viewport: { width: 420, height: 900 } });
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(error.message));
    page.on("console", (message) => {
      if (message.type() === "error" || message.type() === "warning") problems.push(message.text());
    });
    // Runs through the DevTools protocol, outside the page's CSP: it hears every violation the page causes.
    await page.addInitScript(() => {
      (globalThis as never as { document: EventTarget }).document.addEventListener("securitypolicyviolation", (event) => {
        const { violatedDirective, blockedURI } = event as Event & { violatedDirective: string; blockedURI: string };
        console.error(`CSP violation: ${violatedDirective} ${blockedURI}`);
      });
    });
    try {
      const response = await page.goto(`${server.url}/`);
      expect(response?.status()).toBe(200);
      expect(response?.headers()["content-type"]).toBe("text/html; charset=utf-8");
      expect(response?.headers()["content-security-policy"]).toContain("default-src 'none'");
      const text = await page.locator("body").innerText();
      for (const name of ["toUpperCase", "getAlerts", "getWeatherForecastByLocation", "alertBoard"]) {
        await expect.poll(() => page.getByText(name, { exact: true }).first().isVisible()).toBe(true);
      }
      expect(text).not.toContain("pickAlertStates");
      await expect.poll(() => page.getByText(`${server.url}/mcp`, { exact: true }).first().isVisible()).toBe(true);
      expect(text).toContain(`claude mcp add --transport http my-weather-server ${server.url}/mcp`);
      expect(await page.locator("script").count()).toBe(0);
      await page.screenshot({ path: `${ARTIFACTS}server-page.png`, fullPage: true });
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });
});

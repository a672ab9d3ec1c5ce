/**
 * Test helper: Debian's headless `chromium` (which .ci/run installs; no browser is downloaded),
 * driven by playwright-core, for the browser tests, and where they keep their screenshots.
 */
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { type Browser, chromium } from "playwright-core";

/** The browser binary: Debian's, or CHROMIUM_PATH. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Where screenshots are kept (`test/artifacts/`, not committed). */
export const ARTIFACTS = fileURLToPath(new URL("../artifacts/", import.meta.url));

/** Launches the browser, and makes sure the screenshots have a place. @throws naming how to install it, when it is missing */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`No browser at ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium, as .ci/run does) or set CHROMIUM_PATH`);
  await mkdir(ARTIFACTS, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
}

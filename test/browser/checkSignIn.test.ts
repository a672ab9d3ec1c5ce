/**
 * `durable-mcp check --sign-in` against the OAuth example on workerd and Deno, as a person runs it: the
 * real command (bundled from check/cli.ts) in a child process with `--no-browser`, the
 * authorization URLs it prints opened in headless Chromium (Debian's `chromium`), and the
 * consent page's button clicked. Signed in, every probe passes, those it skipped before without
 * a token included, and `/sse` with a token of its own (the example's authorization server binds
 * a grant to one resource, so it takes a second consent). A refused consent, a forged redirect
 * (wrong `state`) and a consent never given end the run with exit code 1 and the sentence that
 * says why, and so does a redirect from another issuer (`iss`); wrong sign-in flags exit 2. Without
 * `--no-browser` the printed URL goes to the platform's opener. No output carries a token or a code.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../../scripts/startServer.mjs";
import { ARTIFACTS, launchChromium } from "../support/chromium.ts";
import { freePort } from "../support/freePort.ts";

/** The command, bundled where node_modules resolves its packages. */
const CLI = `${ARTIFACTS}durable-mcp-check.mjs`;
/** The name typed on the consent page: the provider's codes and tokens start with the user id, so output that held one would hold this. */
const USER = "carol";

let browser: Browser;
let server: Awaited<ReturnType<typeof startServer>>;

beforeAll(async () => {
  await build({ entryPoints: [fileURLToPath(new URL("../../check/cli.ts", import.meta.url))], bundle: true, platform: "node", format: "esm", packages: "external", outfile: CLI, logLevel: "silent" });
  server = await startServer({ entry: "example/oauth/worker.ts", config: "example/oauth/wrangler.toml", vars: { LOG_LEVEL: "error" } });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.dispose();
});

interface Run {
  child: ChildProcess;
  /** The next authorization URL the command prints. */
  nextUrl(): Promise<URL>;
  /** The exit code and everything printed. */
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

function check(args: string[], env: NodeJS.ProcessEnv = process.env): Run {
  const child = spawn(process.execPath, [CLI, "check", ...args], { stdio: ["ignore", "pipe", "pipe"], env });
  let stdout = "";
  let stderr = "";
  let seen = 0;
  const waiters: ((url: URL) => void)[] = [];
  const found: URL[] = [];
  child.stdout!.on("data", (chunk) => (stdout += chunk));
  child.stderr!.on("data", (chunk) => {
    stderr += chunk;
    const urls = [...stderr.matchAll(/^ {2}(http\S+\/authorize\?\S+)$/gm)].map((m) => new URL(m[1]!));
    for (const url of urls.slice(seen)) (waiters.shift() ?? ((u: URL) => found.push(u)))(url);
    seen = urls.length;
  });
  const done = once(child, "exit").then(([code]) => ({ code: code as number | null, stdout, stderr }));
  return { child, nextUrl: () => (found.length > 0 ? Promise.resolve(found.shift()!) : new Promise((resolve) => waiters.push(resolve))), done };
}

/** Opens `url` in the browser, types the name, clicks `button`; resolves the text of the page the browser lands on. */
async function consent(url: URL, button: "Approve" | "Deny" = "Approve"): Promise<string> {
  const page = await browser.newPage();
  try {
    await page.goto(url.href);
    await page.getByLabel("Your name").fill(USER);
    await Promise.all([page.waitForURL((landed) => landed.pathname === "/callback"), page.getByRole("button", { name: button }).click()]);
    return await page.locator("body").innerText();
  } finally {
    await page.close();
  }
}

/** Runs the whole sign-in against `on` (the OAuth example on some runtime), both consents clicked, and checks every probe passed. */
async function signsInEveryProbe(on: { url: string }): Promise<void> {
  const run = check([`${on.url}/mcp`, "--sign-in", "--no-browser", "--json"]);
  const first = await run.nextUrl();
  expect(first.origin).toBe(on.url);
  expect(first.searchParams.get("code_challenge_method")).toBe("S256");
  expect(first.searchParams.get("resource")).toBe(`${on.url}/mcp`);
  expect(first.searchParams.get("redirect_uri")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
  expect(await consent(first)).toContain("Signed in.");
  const second = await run.nextUrl();
  expect(second.searchParams.get("resource")).toBe(`${on.url}/sse`);
  expect(second.searchParams.get("client_id")).toBe(first.searchParams.get("client_id"));
  expect(await consent(second)).toContain("Signed in.");
  const { code, stdout, stderr } = await run.done;
  const report = JSON.parse(stdout) as { findings: { probe: string; verdict: string; summary: string }[] };
  expect(report.findings.map((f) => `${f.verdict} ${f.probe}`), stdout).toEqual([
    "pass oauth",
    "pass sign-in",
    "pass sign-in",
    "pass report",
    "pass discover",
    "pass per-call",
    "pass sdk",
    "pass sdk",
    "pass sse",
    "pass cors",
  ]);
  const signIn = report.findings.filter((f) => f.probe === "sign-in").map((f) => f.summary);
  expect(signIn[0]).toBe("/mcp: authorization code with PKCE S256, a client registered on the spot, one consent in the browser");
  expect(signIn[1]).toMatch(/^\/sse, a protected resource of its own: a second consent, since a refresh naming it did not do \(invalid_target: /);
  expect(report.findings.find((f) => f.probe === "sse")?.summary).toMatch(/^SDK client on HTTP\+SSE at \/sse: 2025-11-25, \d+ tools/);
  expect(code).toBe(0);
  // Neither a code nor a token (both start with the user id) is printed.
  expect(`${stdout}${stderr}`).not.toContain(`${USER}:`);

}

describe("durable-mcp check --sign-in, consent clicked in Chromium", () => {
  it("signs in for /mcp and, with a second consent, for /sse, then passes every probe signed in", () => signsInEveryProbe(server));

  it("uses a client registered beforehand on the port it was registered with", async () => {
    const port = await freePort();
    const registered = await fetch(`${server.url}/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: "pre-registered", redirect_uris: [`http://127.0.0.1:${port}/callback`], token_endpoint_auth_method: "none", grant_types: ["authorization_code", "refresh_token"], response_types: ["code"] }),
    });
    const { client_id: clientId } = (await registered.json()) as { client_id: string };
    const run = check([`${server.url}/mcp`, "--sign-in", "--no-browser", "--client-id", clientId, "--redirect-port", String(port)]);
    const first = await run.nextUrl();
    expect(first.searchParams.get("client_id")).toBe(clientId);
    expect(first.searchParams.get("redirect_uri")).toBe(`http://127.0.0.1:${port}/callback`);
    await consent(first);
    await consent(await run.nextUrl());
    const { code, stdout } = await run.done;
    expect(stdout).toContain(`PASS  sign-in   /mcp: authorization code with PKCE S256, client ${clientId}, one consent in the browser`);
    expect(stdout).toMatch(/\n10 passed, 0 failed, 0 warnings, 0 skipped\n/);
    expect(code).toBe(0);
  });

  it("a refused consent: exit 1, the authorization server's answer named, the probes that need a token skipped", async () => {
    const run = check([`${server.url}/mcp`, "--sign-in", "--no-browser"]);
    expect(await consent(await run.nextUrl(), "Deny")).toContain("Sign-in failed: the authorization server answered access_denied");
    const { code, stdout } = await run.done;
    expect(stdout).toMatch(/^FAIL  sign-in   the authorization server answered access_denied/m);
    expect(stdout).toMatch(/^ +why: The consent was refused\.$/m);
    expect(stdout).toMatch(/^SKIP  report    needs sign-in, which failed \(above\)$/m);
    expect(stdout).toMatch(/^SKIP  sse       needs sign-in, which failed \(above\)$/m);
    expect(code).toBe(1);
  });

  it("a redirect with a state it did not send: refused, nothing redeemed, the listener closed; exit 1", async () => {
    const run = check([`${server.url}/mcp`, "--sign-in", "--no-browser"]);
    const url = await run.nextUrl();
    const redirectUri = url.searchParams.get("redirect_uri")!;
    // What a hostile page could make the browser request while the user looks at the consent page.
    const forged = await fetch(`${redirectUri}?code=${USER}%3Aforged%3Acode&state=not-the-one-sent`);
    expect(forged.status).toBe(400);
    expect(await forged.text()).toContain("Sign-in failed: the redirect carried a state this sign-in did not send");
    const { code, stdout } = await run.done;
    expect(stdout).toMatch(/^FAIL  sign-in   the redirect carried a state this sign-in did not send$/m);
    expect(stdout).toMatch(/why: Another page or program sent your browser to the redirect URI \(cross-site request forgery/);
    expect(code).toBe(1);
    await expect(fetch(redirectUri)).rejects.toThrow();
  });

  it("a redirect whose iss is not the issuer: the code is not redeemed (RFC 9207), exit 1", async () => {
    const run = check([`${server.url}/mcp`, "--sign-in", "--no-browser"]);
    const url = await run.nextUrl();
    // The right state, as a mix-up attacker who saw the request would send it, from another issuer.
    const mixedUp = new URL(url.searchParams.get("redirect_uri")!);
    mixedUp.search = new URLSearchParams({ code: `${USER}:mixed:up`, state: url.searchParams.get("state")!, iss: "https://attacker.example" }).toString();
    expect((await fetch(mixedUp)).status).toBe(200);
    const { code, stdout } = await run.done;
    expect(stdout).toContain(`FAIL  sign-in   the redirect's iss is "https://attacker.example", not the issuer ${server.url} (RFC 9207 §2.4)`);
    expect(stdout).toMatch(/why: The answer may come from another authorization server \(a mix-up attack\): its code was not redeemed\.$/m);
    expect(code).toBe(1);
  });

  it("without --no-browser, hands the URL it prints to the platform's opener", async () => {
    // xdg-open, as a desktop has it, stood in for by a script that keeps what it was given.
    const bin = await mkdtemp(join(tmpdir(), "opener-"));
    try {
      await writeFile(join(bin, "xdg-open"), `#!/bin/sh\nprintf '%s' "$1" > "${bin}/opened"\n`);
      await chmod(join(bin, "xdg-open"), 0o755);
      const run = check([`${server.url}/mcp`, "--sign-in", "--sign-in-timeout", "1000"], { ...process.env, PATH: `${bin}:${process.env.PATH}` });
      const printed = await run.nextUrl();
      const { stderr } = await run.done;
      expect(stderr).toContain(`Sign in for ${server.url}/mcp: approve in the browser just opened, or open this URL in your browser:`);
      expect(await readFile(join(bin, "opened"), "utf8")).toBe(printed.href);
    } finally {
      await rm(bin, { recursive: true, force: true });
    }
  });

  it("a consent never given: the wait ends at --sign-in-timeout, exit 1", async () => {
    const run = check([`${server.url}/mcp`, "--sign-in", "--no-browser", "--sign-in-timeout", "1000"]);
    await run.nextUrl();
    const { code, stdout } = await run.done;
    expect(stdout).toMatch(/^FAIL  sign-in   no answer reached http:\/\/127\.0\.0\.1:\d+\/callback within 1 s$/m);
    expect(code).toBe(1);
  });

  it("wrong sign-in flags: exit 2 and the sentence that says why", async () => {
    const cases: [string[], string][] = [
      [["--no-browser"], "--no-browser goes with --sign-in."],
      [["--sign-in", "--token", "t"], "--sign-in gets its own tokens: leave out --token, --sse-token and an Authorization --header."],
      [["--sign-in", "--header", "Authorization: Bearer t"], "--sign-in gets its own tokens: leave out --token, --sse-token and an Authorization --header."],
      [["--sign-in", "--skip", "oauth"], "--sign-in starts from the oauth probe's 401: do not skip oauth."],
      [["--sign-in", "--redirect-port", "70000"], "--redirect-port takes a port number, 1 to 65535."],
      [["--sign-in", "--client-id", " "], "--client-id takes a client id."],
      [["--sign-in", "--sign-in-timeout", "soon"], "--sign-in-timeout takes a positive number of milliseconds, at most 3600000."],
      // Past a timer's range the wait would end at once.
      [["--sign-in", "--sign-in-timeout", "3000000000"], "--sign-in-timeout takes a positive number of milliseconds, at most 3600000."],
    ];
    for (const [args, sentence] of cases) {
      const { code, stderr } = await check([`${server.url}/mcp`, ...args]).done;
      expect(stderr.split("\n")[0], args.join(" ")).toBe(sentence);
      expect(code).toBe(2);
    }
  });
});

describe("durable-mcp check --sign-in against the OAuth example on Deno", () => {
  let deno: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    deno = await startServer({ entry: "example/oauth/worker.ts", runtime: "deno", vars: { LOG_LEVEL: "error" } });
  }, 120_000);
  afterAll(() => deno?.dispose());

  it("signs in for /mcp and /sse with the same consent page, its grants in Deno KV, then passes every probe", () => signsInEveryProbe(deno));
});

/**
 * The package as someone installs it: `npm pack` (which builds dist/ on prepack), installed into
 * a fresh project outside the repository, then used the way the README shows — a Worker entry of
 * a few lines bundled by `wrangler deploy --dry-run` and type-checked against the types
 * `wrangler types` generates for it (with the README's tsconfig), the `durable-mcp` entry
 * imported from Node and from Deno, and the declarations type-checked by a consumer's TypeScript.
 */
import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const require = createRequire(import.meta.url);
const run = promisify(execFile);
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const node = (args: string[], cwd: string) => run(process.execPath, args, { cwd, env: { ...process.env, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" } });

let project: string;
let tarball: string;
/** `git status` before packing: `npm pack` (and its build) must leave nothing new in the repository. */
let statusBefore: string;
const gitStatus = async () => (await run("git", ["status", "--porcelain", "--untracked-files=all"], { cwd: ROOT })).stdout;

/** The server every check serves: one tool in plain JSON Schema (`jsonSchema()`), no schema library to install. */
const SERVER = `import { defineServer, homes, jsonSchema, tool } from "durable-mcp";

export default defineServer({
  name: "packed",
  version: "1.0.0",
  // The README's Worker entry exports the home class: on Workers, homes() brings it.
  use: [homes()],
  tools: [
    tool({
      name: "shout",
      description: "Upper-cases a text",
      input: jsonSchema({ type: "object", properties: { text: { type: "string" } }, required: ["text"] }),
      handler: async ({ text }) => String(text).toUpperCase(),
    }),
  ],
});
`;

/**
 * The README's Worker entry and wrangler.toml, read from the README itself (and its tsconfig from
 * docs/runtimes.md): the code block after each "the pack test … this …" marker. So the guide
 * cannot drift from what is tested.
 */
async function readmeBlock(language: string, marker: string, file = "README.md"): Promise<string> {
  const readme = await readFile(join(ROOT, file), "utf8");
  const at = readme.indexOf(marker);
  const fence = "```" + language + "\n";
  const open = readme.indexOf(fence, at);
  if (at < 0 || open < 0) throw new Error(`${file} has no ${language} block after "${marker}"`);
  return readme.slice(open + fence.length, readme.indexOf("```", open + fence.length));
}

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), "durable-mcp-consumer-"));
  statusBefore = await gitStatus();
  const packed = await run(npm, ["pack", "--silent", "--pack-destination", project], { cwd: ROOT });
  tarball = join(project, packed.stdout.trim().split("\n").pop()!);
  await writeFile(join(project, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  // Its one dependency comes from npm's cache, filled when this repository was installed.
  // zod for the README's own definition, at the version this repository tests with.
  const zod = JSON.parse(await readFile(join(ROOT, "node_modules/zod/package.json"), "utf8")).version;
  await run(npm, ["install", "--prefer-offline", "--no-audit", "--no-fund", tarball, `zod@${zod}`], { cwd: project });
  await writeFile(join(project, "server.ts"), SERVER);
  await writeFile(join(project, "readmeServer.ts"), await readmeBlock("ts", "the pack test type-checks this block"));
  await writeFile(join(project, "worker.ts"), await readmeBlock("ts", "the pack test builds exactly this block"));
  await writeFile(join(project, "wrangler.toml"), await readmeBlock("toml", "the pack test deploys with exactly this block"));
  await writeFile(join(project, "tsconfig.json"), await readmeBlock("json", "the pack test type-checks the README's entry with exactly this tsconfig", "docs/runtimes.md"));
}, 240_000);

afterAll(async () => {
  if (project) await rm(project, { recursive: true, force: true });
});

describe("the packed package", () => {
  it("is packed without leaving a file in the repository, and publishes (dry run) with no warning but the login one", async () => {
    expect(await gitStatus()).toBe(statusBefore);
    // dist/ is built by the pack above; the dry run checks the manifest npm would publish.
    const { stderr } = await run(npm, ["publish", "--dry-run", "--ignore-scripts"], { cwd: ROOT });
    const warnings = stderr.split("\n").filter((line) => line.startsWith("npm warn") && !/requires you to be logged in/.test(line));
    expect(warnings).toEqual([]);
    expect(stderr).toMatch(/durable-mcp@\d+\.\d+\.\d+/);
  });

  it("is installable and not private, with dist/ and no sources or tests", async () => {
    const installed = JSON.parse(await readFile(join(project, "node_modules/durable-mcp/package.json"), "utf8"));
    expect(installed.private).toBeUndefined();
    const listing = (await run("tar", ["-tzf", tarball])).stdout.split("\n");
    expect(listing).toContain("package/dist/shared/index.js");
    expect(listing).toContain("package/dist/shared/index.d.ts");
    expect(listing).toContain("package/dist/worker/index.js");
    expect(listing.filter((f) => f.endsWith(".test.js") || f.startsWith("package/shared/") || f.startsWith("package/test/"))).toEqual([]);
  });

  it("builds the README's few-line Worker entry with wrangler deploy --dry-run", async () => {
    const wrangler = require.resolve("wrangler/bin/wrangler.js");
    const { stdout } = await node([wrangler, "deploy", "--dry-run", "--outdir", "out"], project);
    expect(stdout).toMatch(/Total Upload: [\d.]+ KiB \/ gzip: [\d.]+ KiB/);
    expect(stdout).toContain("env.MCP_SESSION (McpSession)");
    const bundle = await readFile(join(project, "out/worker.js"), "utf8");
    expect(bundle).toContain("shout");
  });

  // `wrangler types` names each bound class in type position (`DurableObjectNamespace<import("./worker").McpSession>`):
  // an entry that exported them as consts would fail here with TS2694.
  it("type-checks the README's Worker entry against the types wrangler types generates, with the README's tsconfig", async () => {
    const wrangler = require.resolve("wrangler/bin/wrangler.js");
    await node([wrangler, "types"], project);
    const generated = await readFile(join(project, "worker-configuration.d.ts"), "utf8");
    expect(generated).toContain('MCP_SESSION: DurableObjectNamespace<import("./worker").McpSession>');
    const tsc = require.resolve("typescript/bin/tsc");
    // tsc prints its errors on stdout; none is a pass.
    const { stdout } = await node([tsc, "-p", "tsconfig.json"], project).catch((error: { stdout: string }) => error);
    expect(stdout).toBe("");
  });

  it("imports the definition API and the protocol's constants from Node; a broken definition is a problem, not a throw", async () => {
    const script = `import { defineServer, jsonSchema, tool, McpError } from "durable-mcp";
      import { ErrorCode } from "durable-mcp/protocol";
      const server = defineServer({ name: "n", version: "1", tools: [tool({ name: "t", description: "", input: jsonSchema({ type: "object" }), handler: async () => "ok" })] });
      const broken = defineServer({ name: "n", version: "1", tools: [{ name: "t" }] });
      console.log(JSON.stringify({ problem: server.problem ?? null, broken: broken.problem?.message, code: new McpError(400, ErrorCode.InvalidParams, "x").code }));`;
    const { stdout } = await node(["--input-type=module", "-e", script], project);
    expect(JSON.parse(stdout)).toEqual({ problem: null, broken: expect.stringMatching(/^The server definition is invalid: tools: "t" was not made with tool\(\)/), code: -32602 });
  });

  it("tests a tool from Node with durable-mcp/testing, in both kinds of revision, elicitation answered by the test", async () => {
    const script = `import { defineServer, jsonSchema, tool } from "durable-mcp";
      import { testClient } from "durable-mcp/testing";
      const server = defineServer({ name: "n", version: "1", tools: [tool({ name: "ask", description: "asks", input: jsonSchema({ type: "object" }),
        handler: async (_args, ctx) => (await ctx.elicit({ message: "name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } })).content?.name ?? "nobody" })] });
      const texts = [];
      for (const protocolVersion of ["2026-07-28", "2025-11-25"]) {
        const client = await testClient(server, { protocolVersion, elicit: () => ({ action: "accept", content: { name: "Ada" } }) });
        texts.push((await client.callTool("ask")).content[0].text);
        await client.close();
      }
      console.log(JSON.stringify(texts));`;
    const { stdout } = await node(["--input-type=module", "-e", script], project);
    expect(JSON.parse(stdout)).toEqual(["Ada", "Ada"]);
  });

  it("serves over HTTP on Node with durable-mcp/node, from the tarball's JavaScript", async () => {
    const script = `import { defineServer, jsonSchema, tool } from "durable-mcp";
      import { serveNode } from "durable-mcp/node";
      const server = defineServer({ name: "n", version: "1", tools: [tool({ name: "shout", description: "shouts", input: jsonSchema({ type: "object", properties: { text: { type: "string" } }, required: ["text"] }), handler: async ({ text }) => String(text).toUpperCase() })] });
      const http = await serveNode(server, { port: 0, env: { LOG_LEVEL: "error" } });
      const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": { name: "pack", version: "1" }, "io.modelcontextprotocol/clientCapabilities": {} };
      const response = await fetch(http.url + "/mcp", { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "shout" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "shout", arguments: { text: "hi" }, _meta: meta } }) });
      const body = await response.json();
      await http.shutdown();
      console.error(JSON.stringify({ status: response.status, text: body.result.content[0].text }));
      process.exit(0);`;
    const { stderr } = await node(["--input-type=module", "-e", script], project);
    expect(JSON.parse(stderr.trim().split("\n").at(-1)!)).toEqual({ status: 200, text: "HI" });
  });

  it("runs `npx durable-mcp check` from the tarball: 0 for a server that passes or only warns, 1 for one that fails, 2 for a wrong command line", async () => {
    const script = `import { defineServer, jsonSchema, tool } from "durable-mcp";
      import { serveNode } from "durable-mcp/node";
      const server = defineServer({ name: "n", version: "1", tools: [tool({ name: "t", description: "t", input: jsonSchema({ type: "object" }), handler: async () => "ok" })] });
      await serveNode(server, { port: 0, env: { LOG_LEVEL: "error" } });`;
    const served = spawn(process.execPath, ["--input-type=module", "-e", script], { cwd: project, stdio: ["ignore", "pipe", "inherit"] });
    try {
      const [line] = (await once(createInterface({ input: served.stdout! }), "line")) as [string];
      const url = line.replace(/^serving on /, "").trim().replace(/\/$/, "");
      const check = (args: string[]) => run(npm, ["exec", "--offline", "--", "durable-mcp", ...args], { cwd: project }).then(
        ({ stdout }) => ({ code: 0, stdout, stderr: "" }),
        (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
      );
      const passed = await check(["check", `${url}/mcp`]);
      expect(passed.stdout).toMatch(/^PASS  per-call /m);
      expect(passed.stdout, passed.stdout).toMatch(/\n7 passed, 0 failed, 0 warnings, 1 skipped\nNot checked: calling tools\. .*\n$/);
      expect(passed.code).toBe(0);
      const warned = await check(["check", `${url}/mcp`, "--sse", `${url}/nowhere`]);
      expect(warned.stdout).toMatch(/^WARN  sse +no HTTP\+SSE at \/nowhere \(HTTP 404\)$/m);
      expect(warned.code).toBe(0);
      // Nothing serves on port 1: the HTTP+SSE probe cannot connect.
      const failed = await check(["check", `${url}/mcp`, "--sse", "http://127.0.0.1:1/sse"]);
      expect(failed.stdout).toMatch(/^FAIL  sse /m);
      expect(failed.code).toBe(1);
      const json = await check(["check", `${url}/mcp`, "--json", "--skip", "sse,cors"]);
      const report = JSON.parse(json.stdout) as { url: string; findings: { probe: string; verdict: string }[] };
      expect(report.url).toBe(`${url}/mcp`);
      expect(report.findings.map((f) => `${f.verdict} ${f.probe}`)).toEqual(["skip oauth", "pass report", "pass discover", "pass per-call", "pass sdk", "pass sdk", "skip sse", "skip cors"]);
      const wrong = await check(["check", "not-a-url"]);
      expect(wrong.code).toBe(2);
      expect(wrong.stderr).toMatch(/^"not-a-url" is not an http\(s\) URL\.\n\nUsage: durable-mcp check <url>/);
    } finally {
      served.kill();
    }
  });

  it("imports the same from Deno", async () => {
    const deno = join(require.resolve("deno/package.json"), "../bin.cjs");
    const script = `import { defineServer } from "durable-mcp"; import { serveStdio } from "durable-mcp/stdio"; console.log(defineServer({ name: "d", version: "1" }).problem === undefined, typeof serveStdio);`;
    const { stdout } = await node([deno, "eval", "--quiet", script], project);
    expect(stdout.trim()).toBe("true function");
  });

  it("ships declarations a consumer's TypeScript checks, handler types and the README's definition included", async () => {
    await writeFile(
      join(project, "check.ts"),
      `import { defineServer, jsonSchema, tool, type RequestContext } from "durable-mcp";
       import type { MessageStream } from "durable-mcp/transport";
       const server = defineServer({ name: "c", version: "1", tools: [tool({ name: "t", description: "", input: jsonSchema({ type: "object" }), handler: async (args, ctx: RequestContext) => String(ctx.storage ? args.x : "no session") })] });
       const stream: MessageStream | undefined = undefined;
       // @ts-expect-error: a tool needs a description
       tool({ name: "bad", input: jsonSchema({ type: "object" }), handler: async () => "" });
       // @ts-expect-error: a definition shows its problem, and nothing of what it is made of
       server.method("tools/call");
       export { server, stream };`,
    );
    await writeFile(join(project, "tsconfig.check.json"), JSON.stringify({ compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext", target: "ES2022", lib: ["ES2023", "DOM"], strict: true, noEmit: true, skipLibCheck: false, types: [] }, files: ["check.ts", "readmeServer.ts"] }));
    const tsc = require.resolve("typescript/bin/tsc");
    await node([tsc, "-p", "tsconfig.check.json"], project);
  });
});

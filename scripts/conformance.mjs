/**
 * `npm run conformance [-- 2025-11-25 …]`: starts the conformance fixture on a free loopback port
 * and runs the official referee, `@modelcontextprotocol/conformance` (pinned in package.json),
 * with `server --requirements <revision>` for each revision given (default: 2025-11-25).
 *
 * The referee needs Node 22 APIs, so it runs under Deno from the `deno` npm package, allowed to
 * reach loopback only. It fails on ANY failing scenario — the scored ones, and also those the
 * requirement file marks as not scored (the referee itself would let those pass). There is no
 * expected-failures baseline.
 */
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { startServer } from "./startServer.mjs";

const revisions = process.argv.slice(2).length ? process.argv.slice(2) : ["2025-11-25"];
const require = createRequire(import.meta.url);
const referee = join(dirname(require.resolve("@modelcontextprotocol/conformance/package.json")), "dist/index.js");
const deno = join(dirname(require.resolve("deno/package.json")), "bin.cjs");

function run(url, revision) {
  const args = [deno, "run", "--allow-net=127.0.0.1,localhost", "--allow-read", "--allow-env", referee, "server", "--url", url, "--requirements", revision];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" } });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
      process.stdout.write(chunk);
    });
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, output }));
  });
}

const server = await startServer({ entry: "test/conformance/fixtureWorker.ts", vars: { LOG_LEVEL: "error" } });
let failed = false;
try {
  for (const revision of revisions) {
    const { code, output } = await run(`${server.url}/mcp`, revision);
    const failing = output.split("\n").filter((line) => /^\s*✗/.test(line));
    const total = /Total: (\d+) passed, (\d+) failed/.exec(output);
    if (code !== 0 || failing.length > 0 || !total) {
      failed = true;
      console.error(`\nconformance ${revision}: FAILED (referee exit ${code}; failing scenarios, scored or not: ${failing.length})`);
      for (const line of failing) console.error(`  ${line.trim()}`);
    } else {
      console.log(`\nconformance ${revision}: every scenario passed, unscored ones included (${total[1]} checks passed, ${total[2]} failed)`);
    }
  }
} finally {
  await server.dispose();
}
process.exit(failed ? 1 : 0);

/**
 * `npm run conformance [-- 2025-11-25 …]`: starts the conformance fixture on a free loopback port
 * and runs the official referee, `@modelcontextprotocol/conformance` (pinned in package.json),
 * with `server --requirements <revision>` for each revision given (default: 2025-11-25 and
 * 2026-07-28, both against the same `/mcp` URL).
 *
 * The referee runs under Deno (`referee.mjs`). It fails on ANY failing scenario — the scored ones,
 * and also those the requirement file marks as not scored (the referee itself would let those
 * pass). There is no expected-failures baseline. One exclusion, by scope: the 2026-07-28 set also
 * runs the tasks extension's scenarios (SEP-2663, listed as not scored with reason "extension");
 * this server does not implement that extension, so those lines are reported but do not fail the
 * run. The referee's authorization-server lane runs in `npm test` (`authorizationReferee.test.ts`),
 * since it needs the consent form submitted.
 */
import { runReferee } from "./referee.mjs";
import { startServer } from "./startServer.mjs";

const revisions = process.argv.slice(2).length ? process.argv.slice(2) : ["2025-11-25", "2026-07-28"];
/** The referee's not-scored entries for extensions, e.g. "  ✗ tasks-lifecycle (extension)". */
const EXTENSION = /^\s*[✓✗] ([\w-]+) \(extension\)$/;
/** A scenario's summary line, e.g. "✓ caching: 8 passed, 0 failed". */
const SUMMARY = /^([✓✗]) ([\w-]+): (\d+) passed, (\d+) failed$/;
const run = (url, revision) => runReferee(["server", "--url", url, "--requirements", revision]);

const server = await startServer({ entry: "test/conformance/fixtureWorker.ts", vars: { LOG_LEVEL: "error" } });
let failed = false;
try {
  for (const revision of revisions) {
    const { code, output } = await run(`${server.url}/mcp`, revision);
    const lines = output.split("\n");
    // Only the tasks extension (SEP-2663) is out of scope; any other extension scenario counts.
    const outOfScope = new Set(lines.map((l) => EXTENSION.exec(l)?.[1]).filter((name) => name?.startsWith("tasks-")));
    const summaries = lines.map((l) => SUMMARY.exec(l)).filter((m) => m !== null);
    const inScope = summaries.filter((m) => !outOfScope.has(m[2]));
    const failing = inScope.filter((m) => m[1] === "✗").map((m) => m[0]);
    const total = /Total: (\d+) passed, (\d+) failed/.exec(output);
    const passedChecks = inScope.reduce((sum, m) => sum + Number(m[3]), 0);
    const failedChecks = inScope.reduce((sum, m) => sum + Number(m[4]), 0);
    if (outOfScope.size > 0) console.log(`\nconformance ${revision}: ${outOfScope.size} tasks-extension scenarios run but out of scope (the extension is not implemented): ${[...outOfScope].join(", ")}`);
    if (code !== 0 || failing.length > 0 || !total || inScope.length === 0) {
      failed = true;
      console.error(`\nconformance ${revision}: FAILED (referee exit ${code}; failing scenarios, scored or not: ${failing.length})`);
      for (const line of failing) console.error(`  ${line.trim()}`);
    } else {
      console.log(`\nconformance ${revision}: every in-scope scenario passed, unscored ones included (${inScope.length} scenarios, ${passedChecks} checks passed, ${failedChecks} failed)`);
    }
  }
} finally {
  await server.dispose();
}
process.exit(failed ? 1 : 0);

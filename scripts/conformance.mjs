/**
 * `npm run conformance [-- 2025-11-25 …]`: starts the conformance fixture on a free loopback port
 * and runs the official referee, `@modelcontextprotocol/conformance` (pinned in package.json),
 * with `server --requirements <revision>` for each revision given (default: 2025-11-25 and
 * 2026-07-28, both against the same `/mcp` URL) — on workerd (miniflare), Deno and Node at once,
 * each runtime's report printed whole when it ends: the same fixture definition served by each
 * runtime's entry, Node's with its state in PostgreSQL (a cluster the run starts and stops). `RUNTIME=workerd`, `deno` or
 * `node` runs one.
 *
 * The referee runs under Deno (`referee.mjs`). It fails on ANY failing scenario — the scored ones,
 * and also those the requirement file marks as not scored (the referee itself would let those
 * pass). There is no expected-failures baseline and nothing is left out: the 2026-07-28 set's
 * tasks-extension scenarios (SEP-2663, listed as not scored with reason "extension") count like
 * every other. The referee's authorization-server lane runs in `npm test`
 * (`oauthExample.test.ts`), since it needs the consent form submitted.
 *
 * Extension scenarios outside every revision's set are run by name: the Skills extension's three
 * server scenarios (`sep-2640-skills-*`), over 2026-07-28 (the referee's default) and over a
 * 2025-11-25 session (`--spec-version 2025-11-25 --force`). Each must pass every check with no
 * warning; a scenario whose checks were all skipped fails too.
 */
import { startCluster } from "./postgresCluster.mjs";
import { runReferee } from "./referee.mjs";
import { startServer } from "./startServer.mjs";

/** Revisions named on the command line run alone; with none, both run, and the extension scenarios after them. */
const named = process.argv.slice(2);
const revisions = named.length ? named : ["2025-11-25", "2026-07-28"];
/** A scenario's summary line, e.g. "✓ caching: 8 passed, 0 failed". */
const SUMMARY = /^([✓✗]) ([\w-]+): (\d+) passed, (\d+) failed$/;
const run = (url, revision) => runReferee(["server", "--url", url, "--requirements", revision], { echo: false });

/** Extension scenarios no revision's requirement set lists, run by name in both eras. */
const EXTENSION_SCENARIOS = ["sep-2640-skills-enumeration", "sep-2640-skills-manifest", "sep-2640-skills-directory"];
const EXTENSION_ERAS = [
  { era: "2026-07-28", args: [] },
  { era: "2025-11-25 session", args: ["--spec-version", "2025-11-25", "--force"] },
];
/** A single scenario's last line, e.g. "Passed: 32/32, 0 failed, 0 warnings". */
const SCENARIO_SUMMARY = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/;

const RUNTIMES = ["workerd", "deno", "node"];
const runtimes = process.env.RUNTIME ? [process.env.RUNTIME] : RUNTIMES;
if (!runtimes.every((runtime) => RUNTIMES.includes(runtime))) {
  console.error(`RUNTIME must be one of ${RUNTIMES.join(", ")}, not ${process.env.RUNTIME}`);
  process.exit(2);
}
// The runtimes run at once (the referee mostly waits on the server), each writing to a report of
// its own, printed whole when it ends: a log reads one runtime at a time.
// Node serves from PostgreSQL, as in production: a cluster of the run's own, a database per server (`startServer`).
const cluster = runtimes.includes("node") ? await startCluster() : undefined;
if (cluster) process.env.NODE_STORE_SERVER_URL = cluster.url;
const outcomes = await Promise.allSettled(runtimes.map(async (runtime) => {
  const report = { out: [], err: [] };
  const server = await startServer({ entry: "test/conformance/fixtureWorker.ts", vars: { LOG_LEVEL: "error" }, runtime });
  try {
    return (await referee(server, runtime, report)) && (named.length > 0 || (await extensionScenarios(server, runtime, report)));
  } finally {
    await server.dispose();
    if (report.out.length) console.log(report.out.join("\n"));
    if (report.err.length) console.error(report.err.join("\n"));
  }
}));
await cluster?.stop();
for (const [i, outcome] of outcomes.entries()) {
  if (outcome.status === "rejected") console.error(`\nconformance on ${runtimes[i]}: could not run: ${outcome.reason?.stack ?? outcome.reason}`);
}
process.exit(outcomes.every((o) => o.status === "fulfilled" && o.value) ? 0 : 1);

/** Runs the referee for each revision against `server`, its output and verdicts into `report`; whether every scenario passed. */
async function referee(server, runtime, report) {
  let passed = true;
  for (const revision of revisions) {
    const { code, output } = await run(`${server.url}/mcp`, revision);
    report.out.push(output.trimEnd());
    const summaries = output.split("\n").map((l) => SUMMARY.exec(l)).filter((m) => m !== null);
    const failing = summaries.filter((m) => m[1] === "✗").map((m) => m[0]);
    const total = /Total: (\d+) passed, (\d+) failed/.exec(output);
    const passedChecks = summaries.reduce((sum, m) => sum + Number(m[3]), 0);
    const failedChecks = summaries.reduce((sum, m) => sum + Number(m[4]), 0);
    if (code !== 0 || failing.length > 0 || !total || summaries.length === 0) {
      passed = false;
      report.err.push(`\nconformance ${revision} on ${runtime}: FAILED (referee exit ${code}; failing scenarios, scored or not: ${failing.length})`);
      for (const line of failing) report.err.push(`  ${line.trim()}`);
    } else {
      report.out.push(`\nconformance ${revision} on ${runtime}: every scenario passed, unscored and extension ones included (${summaries.length} scenarios, ${passedChecks} checks passed, ${failedChecks} failed; ${total[0]})`);
    }
  }
  return passed;
}

/** Runs each extension scenario in each era against `server`, verdicts into `report`; whether every one passed every check. */
async function extensionScenarios(server, runtime, report) {
  let passed = true;
  for (const scenario of EXTENSION_SCENARIOS) {
    for (const { era, args } of EXTENSION_ERAS) {
      const { code, output } = await runReferee(["server", "--url", `${server.url}/mcp`, "--scenario", scenario, ...args], { echo: false });
      const summary = SCENARIO_SUMMARY.exec(output);
      const [checks, total, failures, warnings] = summary ? summary.slice(1).map(Number) : [0, 0, 0, 0];
      if (code !== 0 || !summary || failures > 0 || warnings > 0 || checks === 0) {
        passed = false;
        report.err.push(`\n${scenario} (${era}) on ${runtime}: FAILED (referee exit ${code}; ${summary ? summary[0] : "no summary"})`);
        report.err.push(output.split("\n").filter((line) => /FAILURE|WARNING/.test(line)).join("\n"));
      } else {
        report.out.push(`${scenario} (${era}) on ${runtime}: ${checks}/${total} checks passed, 0 failed, 0 warnings`);
      }
    }
  }
  return passed;
}
